"""Port of v2's python/paddle/v2/dataset/tests/mq2007_test.py (commit ecf42467).

v2's test read the downloaded MQ2007 test fold; here it reads a LETOR file of 3 queries x 4
documents (46 features each) that the test writes. One v2 bug is fixed: v2 called
``query_left.shape()``, but a numpy array's ``shape`` is a tuple, not a method, so v2's
``test_pairwise`` raised ``TypeError`` on its first pair; the port compares ``.shape``.
"""

import unittest

import paddle_lite.dataset.mq2007

from .._synthetic import SyntheticHome, letor_lines


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle


class TestMQ2007(SyntheticHome):
    def write_data(self):
        fold = self.home / "mq2007" / "MQ2007" / "Fold1"
        fold.mkdir(parents=True)
        (fold / "test.txt").write_text(letor_lines(3, 4))

    def test_pairwise(self):
        count = 0
        for _label, query_left, query_right in paddle.v2.dataset.mq2007.test(format="pairwise"):
            self.assertEqual(query_left.shape, (46,))
            self.assertEqual(query_right.shape, (46,))
            count += 1
        self.assertGreater(count, 0)

    def test_listwise(self):
        count = 0
        for label_array, query_array in paddle.v2.dataset.mq2007.test(format="listwise"):
            self.assertEqual(len(label_array), len(query_array))
            count += 1
        self.assertEqual(count, 3)


if __name__ == "__main__":
    unittest.main()
