"""Port of v2's python/paddle/v2/dataset/tests/mnist_test.py (commit 7f83f83b).

v2's test downloaded MNIST and counted 60,000 / 10,000 samples; here the reader runs on
IDX files of 30 / 20 images the test writes (see ``_synthetic``), and the counts are
theirs. The real test set, when ``$PADDLE_LITE_SHARED/datasets/mnist`` has it, gets v2's
exact check in ``test_real_test``.
"""

import os
import unittest
from unittest import mock

import paddle_lite.dataset.mnist

from .._synthetic import SyntheticHome, mnist_files, shared_datasets


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle


class TestMNIST(SyntheticHome):
    def write_data(self):
        mnist_files(self.home / "mnist", "train", 30)
        mnist_files(self.home / "mnist", "t10k", 20)

    def check_reader(self, reader):
        sum = 0
        label = 0
        for l in reader():
            self.assertEqual(l[0].size, 784)
            if l[1] > label:
                label = l[1]
            sum += 1
        return sum, label

    def test_train(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.mnist.train())
        self.assertEqual(instances, 30)
        self.assertEqual(max_label_value, 9)

    def test_test(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.mnist.test())
        self.assertEqual(instances, 20)
        self.assertEqual(max_label_value, 9)

    def test_real_test(self):
        folder = shared_datasets() / "mnist"
        if not (folder / "t10k-images-idx3-ubyte.gz").exists():
            self.skipTest(f"real data {folder} is not available on this machine")
        with mock.patch.dict(os.environ, {"PADDLE_LITE_DATA_HOME": str(folder.parent)}):
            instances, max_label_value = self.check_reader(paddle.v2.dataset.mnist.test())
        self.assertEqual(instances, 10000)
        self.assertEqual(max_label_value, 9)


if __name__ == "__main__":
    unittest.main()
