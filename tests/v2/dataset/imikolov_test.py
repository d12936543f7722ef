"""Port of v2's python/paddle/v2/dataset/tests/imikolov_test.py (commit dbd25805).

v2 built ``WORD_DICT`` from the downloaded PTB corpus when the module was imported; here
each test writes a small PTB-format corpus whose first train and valid lines are the PTB
lines v2's test checks, then builds the dictionary. With the real corpus in
``$PADDLE_LITE_SHARED/datasets/imikolov``, ``TestMikolovReal`` runs v2's test unchanged.
"""

import os
import unittest
from unittest import mock

import paddle_lite.dataset.imikolov

from .._synthetic import SyntheticHome, ptb_lines, shared_datasets


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle

TRAIN_FIRST = (
    "aer banknote berlitz calloway centrust cluett fromstein gitano guterman hydro-quebec "
    "ipo kia memotec mlx nahb punts rake regatta rubens sim snack-food ssangyong swapo wachter"
)
TEST_FIRST = "consumers may want to move their telephones a little closer to the tv set"


class _Checks:
    def check_reader(self, reader, n):
        for l in reader():
            self.assertEqual(len(l), n)

    def test_train(self):
        n = 5
        self.check_reader(paddle.v2.dataset.imikolov.train(WORD_DICT, n), n)

        first_line = TRAIN_FIRST
        first_line = [WORD_DICT.get(ch, WORD_DICT["<unk>"]) for ch in first_line.split(" ")]
        for l in paddle.v2.dataset.imikolov.train(
            WORD_DICT, n=-1, data_type=paddle.v2.dataset.imikolov.DataType.SEQ
        )():
            read_line = l[0][1:]
            break
        self.assertEqual(first_line, read_line)

    def test_test(self):
        n = 5
        self.check_reader(paddle.v2.dataset.imikolov.test(WORD_DICT, n), n)

        first_line = TEST_FIRST
        first_line = [WORD_DICT.get(ch, WORD_DICT["<unk>"]) for ch in first_line.split(" ")]
        for l in paddle.v2.dataset.imikolov.test(
            WORD_DICT, n=-1, data_type=paddle.v2.dataset.imikolov.DataType.SEQ
        )():
            read_line = l[0][1:]
            break
        self.assertEqual(first_line, read_line)

    def test_total(self):
        _, idx = zip(*WORD_DICT.items(), strict=True)
        self.assertEqual(sorted(idx)[-1], len(WORD_DICT) - 1)


WORD_DICT = None


class TestMikolov(_Checks, SyntheticHome):
    def write_data(self):
        global WORD_DICT
        train, valid = ptb_lines(TRAIN_FIRST, TEST_FIRST)
        data = self.home / "imikolov" / "simple-examples" / "data"
        data.mkdir(parents=True)
        (data / "ptb.train.txt").write_bytes(train)
        (data / "ptb.valid.txt").write_bytes(valid)
        WORD_DICT = paddle.v2.dataset.imikolov.build_dict()


class TestMikolovReal(_Checks, unittest.TestCase):
    def setUp(self):
        global WORD_DICT
        folder = shared_datasets() / "imikolov" / "simple-examples"
        if not folder.exists():
            self.skipTest(f"real data {folder} is not available on this machine")
        patch = mock.patch.dict(os.environ, {"PADDLE_LITE_DATA_HOME": str(folder.parents[1])})
        patch.start()
        self.addCleanup(patch.stop)
        WORD_DICT = paddle.v2.dataset.imikolov.build_dict()


if __name__ == "__main__":
    unittest.main()
