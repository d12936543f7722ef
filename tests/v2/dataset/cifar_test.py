"""Port of v2's python/paddle/v2/dataset/tests/cifar_test.py (commit 996b3e15).

v2's test downloaded CIFAR-10/100 and counted 50,000 / 10,000 samples; here the readers run on
archives of the same layout the test writes (five training batches of 24 and a test batch of
20 for CIFAR-10; 120 / 100 samples for CIFAR-100, labels cycling through every class), and
the counts are theirs.
"""

import unittest

import paddle_lite.dataset.cifar

from .._synthetic import SyntheticHome, cifar_batch, write_tar


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle


class TestCIFAR(SyntheticHome):
    def write_data(self):
        ten = {
            f"cifar-10-batches-py/data_batch_{i}": cifar_batch(24, "labels", 10)
            for i in range(1, 6)
        }
        ten["cifar-10-batches-py/test_batch"] = cifar_batch(20, "labels", 10)
        write_tar(self.home / "cifar" / "cifar-10-python.tar.gz", ten)
        hundred = {
            "cifar-100-python/train": cifar_batch(120, "fine_labels", 100),
            "cifar-100-python/test": cifar_batch(100, "fine_labels", 100),
        }
        write_tar(self.home / "cifar" / "cifar-100-python.tar.gz", hundred)

    def check_reader(self, reader):
        sum = 0
        label = 0
        for l in reader():
            self.assertEqual(l[0].size, 3072)
            if l[1] > label:
                label = l[1]
            sum += 1
        return sum, label

    def test_test10(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.cifar.test10())
        self.assertEqual(instances, 20)
        self.assertEqual(max_label_value, 9)

    def test_train10(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.cifar.train10())
        self.assertEqual(instances, 5 * 24)
        self.assertEqual(max_label_value, 9)

    def test_test100(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.cifar.test100())
        self.assertEqual(instances, 100)
        self.assertEqual(max_label_value, 99)

    def test_train100(self):
        instances, max_label_value = self.check_reader(paddle.v2.dataset.cifar.train100())
        self.assertEqual(instances, 120)
        self.assertEqual(max_label_value, 99)


if __name__ == "__main__":
    unittest.main()
