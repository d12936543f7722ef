"""v2's python/paddle/v2/dataset/tests/ptb_test.py (commit 70d15e84): skipped.

It tested ``paddle.v2.dataset.ptb``, a module that existed in a single v2 commit and was
then folded into ``paddle.v2.dataset.imikolov`` (the same PTB corpus and first-line checks:
see ``imikolov_test.py``); v2's API as released has no ``ptb``, and neither has paddle_lite.
"""

import unittest

GONE = "tests paddle.v2.dataset.ptb, which v2 replaced by imikolov (see imikolov_test.py)"


@unittest.skip(GONE)
class TestMikolov(unittest.TestCase):
    def test_ngram_train(self):
        pass

    def test_ngram_test(self):
        pass

    def test_seq_train(self):
        pass

    def test_seq_test(self):
        pass

    def test_total(self):
        pass


if __name__ == "__main__":
    unittest.main()
