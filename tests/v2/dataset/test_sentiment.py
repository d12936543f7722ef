"""Port of v2's python/paddle/v2/dataset/tests/test_sentiment.py (commit 19db989e).

v2 read NLTK's downloaded ``movie_reviews`` corpus through ``nltk``; paddle_lite reads the
corpus files itself. Here they are a ``movie_reviews.zip`` the test writes: 1,000 negative and
1,000 positive reviews (the corpus's sizes, which ``NUM_TOTAL_INSTANCES`` and
``NUM_TRAINING_INSTANCES`` assume) whose ten most frequent tokens are, in order, the ten v2's
test expects of the real corpus. One assertion is left out: that v2 had put
``/root/.cache/paddle/dataset`` on ``nltk.data.path``, a v2 internal (paddle_lite does not
use NLTK).
"""

import unittest
import zipfile

import paddle_lite.dataset.sentiment as st

from .._synthetic import SyntheticHome

TOP = [",", "the", ".", "a", "and", "of", "to", "'", "is", "in"]


def _review(label, i):
    words = [w for rank, w in enumerate(TOP) for _ in range(20 - rank)]
    return (" ".join(words) + f" {label}word{i} word{i % 7}\n").encode()


class TestSentimentMethods(SyntheticHome):
    def write_data(self):
        folder = self.home / "sentiment"
        folder.mkdir(parents=True)
        with zipfile.ZipFile(folder / "movie_reviews.zip", "w") as zf:
            for label in ("neg", "pos"):
                for i in range(1000):
                    zf.writestr(f"movie_reviews/{label}/cv{i:03d}_{i}.txt", _review(label, i))

    def test_get_word_dict(self):
        word_dict = st.get_word_dict()[0:10]
        test_word_list = [
            (",", 0),
            ("the", 1),
            (".", 2),
            ("a", 3),
            ("and", 4),
            ("of", 5),
            ("to", 6),
            ("'", 7),
            ("is", 8),
            ("in", 9),
        ]
        for idx, each in enumerate(word_dict):
            self.assertEqual(each, test_word_list[idx])

    def test_sort_files(self):
        last_label = ""
        for sample_file in st.sort_files():
            current_label = sample_file.split("/")[0]
            self.assertNotEqual(current_label, last_label)
            last_label = current_label

    def test_data_set(self):
        data_set = st.load_sentiment_data()
        last_label = -1
        for each in st.test():
            self.assertNotEqual(each[1], last_label)
            last_label = each[1]
        self.assertEqual(len(data_set), st.NUM_TOTAL_INSTANCES)
        self.assertEqual(len(list(st.train())), st.NUM_TRAINING_INSTANCES)
        self.assertEqual(len(list(st.test())), (st.NUM_TOTAL_INSTANCES - st.NUM_TRAINING_INSTANCES))


if __name__ == "__main__":
    unittest.main()
