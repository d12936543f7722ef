"""Port of v2's python/paddle/v2/dataset/tests/vocseg_test.py (commit 1ba879be).

v2's test downloaded the VOC2012 tar (2,913 / 1,464 / 1,449 images); here ``voc_seg`` reads a
``VOCtrainval_11-May-2012.tar`` the test writes with 7 / 4 / 3 images in the three lists.
"""

import unittest

import paddle_lite.dataset.voc_seg

from .._synthetic import SyntheticHome, voc_members, write_tar


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle
SPLITS = {"trainval": 7, "train": 4, "val": 3}


class TestVOC(SyntheticHome):
    def write_data(self):
        tar = self.home / "voc2012" / "VOCtrainval_11-May-2012.tar"
        write_tar(tar, voc_members(SPLITS), mode="w")

    def check_reader(self, reader):
        sum = 0
        for l in reader():
            self.assertEqual(l[0].size, 3 * l[1].size)
            sum += 1
        return sum

    def test_train(self):
        count = self.check_reader(paddle.v2.dataset.voc_seg.train())
        self.assertEqual(count, 7)

    def test_test(self):
        count = self.check_reader(paddle.v2.dataset.voc_seg.test())
        self.assertEqual(count, 4)

    def test_val(self):
        count = self.check_reader(paddle.v2.dataset.voc_seg.val())
        self.assertEqual(count, 3)


if __name__ == "__main__":
    unittest.main()
