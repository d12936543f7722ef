"""Port of v2's python/paddle/v2/tests/test_image.py (commit 54a748d4).

v2 loaded ``cat.jpg``, a photo kept beside its test; this port writes a JPEG of a similar
size (375 x 500, RGB noise) into a temporary folder and loads that. Needs Pillow.
"""

import os
import shutil
import tempfile
import unittest

import numpy as np
import pytest

import paddle_lite.image as image


class Image(unittest.TestCase):
    def setUp(self):
        pil = pytest.importorskip("PIL.Image")
        self.folder = tempfile.mkdtemp()
        rgb = np.random.default_rng(0).integers(0, 256, size=(375, 500, 3), dtype=np.uint8)
        pil.fromarray(rgb).save(os.path.join(self.folder, "cat.jpg"), format="JPEG")
        self.cwd = os.getcwd()
        os.chdir(self.folder)

    def tearDown(self):
        os.chdir(self.cwd)
        shutil.rmtree(self.folder)

    def test_resize_flip_chw(self):
        # resize
        im = image.load_image("cat.jpg")
        im = image.resize_short(im, 256)
        self.assertEqual(256, min(im.shape[:2]))
        self.assertEqual(3, im.shape[2])

        # flip
        im = image.left_right_flip(im)
        im2 = np.flip(im, 1)
        self.assertEqual(im.all(), im2.all())

        # to_chw
        h, w, c = im.shape
        im = image.to_chw(im)
        self.assertEqual(c, im.shape[0])
        self.assertEqual(h, im.shape[1])
        self.assertEqual(w, im.shape[2])


if __name__ == "__main__":
    unittest.main()
