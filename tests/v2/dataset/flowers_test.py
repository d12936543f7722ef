"""Port of v2's python/paddle/v2/dataset/tests/flowers_test.py (commit 7f83f83b).

v2's test downloaded the Oxford flowers files (6,149 / 1,020 / 1,020 images); here the
readers run on a ``102flowers.tgz``, ``imagelabels.mat`` and ``setid.mat`` the test writes:
5 / 3 / 2 small JPEGs, the largest label 102. v2's test expected the largest label to be
102: it was written when v2 kept the 1-based labels of ``imagelabels.mat``; v2's later
``flowers.py``, which paddle_lite follows, yields ``label - 1``, so the largest is 101.
"""

import io
import unittest

import numpy as np

import paddle_lite.dataset.flowers
from paddle_lite._src.dataset.matfile import write_mat

from .._synthetic import SyntheticHome, write_tar


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle


class TestFlowers(SyntheticHome):
    def write_data(self):
        pil = __import__("PIL.Image").Image
        rng, members = np.random.default_rng(1), {}
        for i in range(1, 11):
            jpg = io.BytesIO()
            pil.fromarray(rng.integers(0, 256, size=(20, 30, 3), dtype=np.uint8)).save(jpg, "JPEG")
            members[f"jpg/image_{i:05d}.jpg"] = jpg.getvalue()
        folder = self.home / "flowers"
        write_tar(folder / "102flowers.tgz", members)
        labels = np.array([[5, 1, 102, 7, 7, 3, 102, 9, 102, 1]])
        (folder / "imagelabels.mat").write_bytes(write_mat({"labels": labels}, False))
        # v2 trains on tstid and tests on trnid (the larger set first)
        setid = {"tstid": [[1, 2, 3, 4, 5]], "trnid": [[6, 7, 8]], "valid": [[9, 10]]}
        (folder / "setid.mat").write_bytes(write_mat(setid, False))

    def check_reader(self, reader):
        sum = 0
        label = 0
        size = 224 * 224 * 3
        for l in reader():
            self.assertEqual(l[0].size, size)
            if l[1] > label:
                label = l[1]
            sum += 1
        return sum, label

    def test_train(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.flowers.train())
        self.assertEqual(instances, 5)
        self.assertEqual(max_label_value, 101)

    def test_test(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.flowers.test())
        self.assertEqual(instances, 3)
        self.assertEqual(max_label_value, 101)

    def test_valid(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.flowers.valid())
        self.assertEqual(instances, 2)
        self.assertEqual(max_label_value, 101)


if __name__ == "__main__":
    unittest.main()
