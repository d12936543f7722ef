"""Port of v2's python/paddle/v2/dataset/tests/imdb_test.py (commit 8137f58c).

v2's test downloaded the IMDB archive (dictionary of 7,036 words at cutoff 150, 25,000
reviews per split); here the readers run on an ``aclImdb_v1.tar.gz`` the test writes: 4
positive and 4 negative reviews per split, in which exactly 10 words occur more than 150
times in the training reviews (so the dictionary has those 10 and ``<unk>``).
"""

import re
import unittest

import paddle_lite.dataset.imdb

from .._synthetic import SyntheticHome, write_tar


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle

TRAIN_POS_PATTERN = re.compile(r"aclImdb/train/pos/.*\.txt$")
TRAIN_NEG_PATTERN = re.compile(r"aclImdb/train/neg/.*\.txt$")
TRAIN_PATTERN = re.compile(r"aclImdb/train/.*\.txt$")

TEST_POS_PATTERN = re.compile(r"aclImdb/test/pos/.*\.txt$")
TEST_NEG_PATTERN = re.compile(r"aclImdb/test/neg/.*\.txt$")
TEST_PATTERN = re.compile(r"aclImdb/test/.*\.txt$")


def _review(i):
    frequent = " ".join(f"word{k}" for k in range(10))  # 10 words, 20 times per review
    return (f"{frequent} " * 20 + f"rare{i} once{i}<br />").encode()


class TestIMDB(SyntheticHome):
    word_idx = None

    def write_data(self):
        members = {
            f"aclImdb/{split}/{label}/{i}_{7 if label == 'pos' else 2}.txt": _review(i)
            for split in ("train", "test")
            for label in ("pos", "neg")
            for i in range(4)
        }
        write_tar(self.home / "imdb" / "aclImdb_v1.tar.gz", members)

    def test_build_dict(self):
        if self.word_idx is None:
            self.word_idx = paddle.v2.dataset.imdb.build_dict(TRAIN_PATTERN, 150)

        self.assertEqual(len(self.word_idx), 11)

    def check_dataset(self, dataset, expected_size):
        if self.word_idx is None:
            self.word_idx = paddle.v2.dataset.imdb.build_dict(TRAIN_PATTERN, 150)

        sum = 0
        for l in dataset(self.word_idx)():
            self.assertEqual(l[1], sum % 2)
            sum += 1
        self.assertEqual(sum, expected_size)

    def test_train(self):
        self.check_dataset(paddle.v2.dataset.imdb.train, 8)

    def test_test(self):
        self.check_dataset(paddle.v2.dataset.imdb.test, 8)


if __name__ == "__main__":
    unittest.main()
