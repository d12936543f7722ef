"""Port of v2's python/paddle/v2/dataset/tests/wmt16_test.py (commit 96ee7d5c).

v2's test downloaded ``wmt16.tar.gz``; here the readers run on the extracted files
``wmt16/{train,val,test}`` (``<en tokens>\\t<de tokens>`` per line) that the test writes, with
1,200 distinct English training words so that a 1,000-word dictionary fills up. With the
raw Multi30K corpus in ``$PADDLE_LITE_SHARED/datasets/wmt16``, ``TestWMT16Real`` runs v2's
test unchanged on it.
"""

import os
import shutil
import tempfile
import unittest
from unittest import mock

import paddle_lite.dataset.wmt16

from .._synthetic import SyntheticHome, shared_datasets


class _Paddle:  # so the test reads ``paddle.v2.dataset...`` as v2's did
    class v2:
        dataset = paddle_lite.dataset


paddle = _Paddle


def _lines(n, offset):
    return "".join(
        " ".join(f"en{(i * 7 + k + offset) % 1200}" for k in range(6))
        + "\t"
        + " ".join(f"de{(i * 5 + k) % 900}" for k in range(5))
        + "\n"
        for i in range(n)
    )


class _Checks:
    def checkout_one_sample(self, sample):
        # train data has 3 field: source language word indices,
        # target language word indices, and target next word indices.
        self.assertEqual(len(sample), 3)

        # test start mark and end mark in source word indices.
        self.assertEqual(sample[0][0], 0)
        self.assertEqual(sample[0][-1], 1)

        # test start mask in target word indices
        self.assertEqual(sample[1][0], 0)

        # test en mask in target next word indices
        self.assertEqual(sample[2][-1], 1)

    def test_train(self):
        for idx, sample in enumerate(
            paddle.v2.dataset.wmt16.train(src_dict_size=100000, trg_dict_size=100000)()
        ):
            if idx >= 10:
                break
            self.checkout_one_sample(sample)

    def test_test(self):
        for idx, sample in enumerate(
            paddle.v2.dataset.wmt16.test(src_dict_size=1000, trg_dict_size=1000)()
        ):
            if idx >= 10:
                break
            self.checkout_one_sample(sample)

    def test_val(self):
        for idx, sample in enumerate(
            paddle.v2.dataset.wmt16.validation(src_dict_size=1000, trg_dict_size=1000)()
        ):
            if idx >= 10:
                break
            self.checkout_one_sample(sample)

    def test_get_dict(self):
        dict_size = 1000
        word_dict = paddle.v2.dataset.wmt16.get_dict("en", dict_size, True)
        self.assertEqual(len(word_dict), dict_size)
        self.assertEqual(word_dict[0], "<s>")
        self.assertEqual(word_dict[1], "<e>")
        self.assertEqual(word_dict[2], "<unk>")


class TestWMT16(_Checks, SyntheticHome):
    def write_data(self):
        folder = self.home / "wmt16" / "wmt16"
        folder.mkdir(parents=True)
        (folder / "train").write_text(_lines(400, 0))
        (folder / "val").write_text(_lines(20, 3))
        (folder / "test").write_text(_lines(20, 5))


class TestWMT16Real(_Checks, unittest.TestCase):
    def setUp(self):
        raw = shared_datasets() / "wmt16" / "multi30k_task1_raw"
        if not raw.exists():
            self.skipTest(f"real data {raw} is not available on this machine")
        # a home of its own: the dictionaries are cached beside the corpus
        home = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, home, True)
        os.makedirs(os.path.join(home, "wmt16"))
        os.symlink(raw, os.path.join(home, "wmt16", "multi30k_task1_raw"))
        patch = mock.patch.dict(os.environ, {"PADDLE_LITE_DATA_HOME": home})
        patch.start()
        self.addCleanup(patch.stop)


if __name__ == "__main__":
    unittest.main()
