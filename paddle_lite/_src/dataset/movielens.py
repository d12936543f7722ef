"""MovieLens 1M ratings with user and movie features, split into train and test by a seeded draw.

Sources, in order, under ``<data home>/movielens/``: the extracted folder ``ml-1m/``
(``movies.dat``, ``users.dat``, ``ratings.dat``), the archive ``ml-1m.zip``, then a download.
Files are ``::``-separated and decoded as latin-1.

A sample has 8 fields: ``[user_id, gender (0 = M, 1 = F), age index into age_table, job_id,
movie_id, [category ids], [title word ids], [rating * 2 - 5]]``. A rating line goes to the test
set when ``random.Random(rand_seed).random() < test_ratio`` (one draw per line, in file order).

Category ids and title-word ids number the sorted genre names and sorted lower-case title
words (titles without the trailing ``(year)``), so they are the same on every run.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, download_or_explain, module_home
from paddle_lite._src.dataset.sources import corrupt, read_text

URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
MD5 = "c4d9eecfca2ab87c1945afe126590906"
ARCHIVE = "ml-1m.zip"
age_table = [1, 18, 25, 35, 45, 50, 56]
_TITLE = re.compile(r"^(.*)\((\d+)\)$")


class MovieInfo:
    """One movie: id, genre names and title (without the year)."""

    def __init__(
        self,
        index: int,
        categories: Sequence[str],
        title: str,
        categories_dict: Mapping[str, int] | None = None,
        title_dict: Mapping[str, int] | None = None,
    ):
        self.index = int(index)
        self.categories = categories
        self.title = title
        self._categories_dict = categories_dict or {}
        self._title_dict = title_dict or {}

    def value(self) -> list:
        """Return ``[movie_id, [category ids], [title word ids]]``."""
        return [
            self.index,
            [self._categories_dict[c] for c in self.categories],
            [self._title_dict[w.lower()] for w in self.title.split()],
        ]

    def __repr__(self) -> str:
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"


class UserInfo:
    """One user: id, gender, age bucket and occupation id."""

    def __init__(self, index: int, gender: str, age: int, job_id: int):
        self.index = int(index)
        self.is_male = gender == "M"
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self) -> list:
        """Return ``[user_id, gender (0 = M, 1 = F), age index, job_id]``."""
        return [self.index, 0 if self.is_male else 1, self.age, self.job_id]

    def __repr__(self) -> str:
        gender = "M" if self.is_male else "F"
        age = age_table[self.age]
        return f"<UserInfo id({self.index}), gender({gender}), age({age}), job({self.job_id})>"


def _source() -> str:
    """Return the folder or zip holding ``ml-1m/*.dat``, downloading the zip if needed."""
    home = module_home("movielens")
    if os.path.isfile(os.path.join(home, "ml-1m", "ratings.dat")):
        return home
    archive = os.path.join(home, ARCHIVE)
    if os.path.isfile(archive):
        return archive
    alternative = f"The extracted folder {os.path.join(home, 'ml-1m')} is accepted too."
    return download_or_explain(URL, "movielens", MD5, save_name=ARCHIVE, alternative=alternative)


def _rows(source: str, name: str, fields: int) -> Iterator[list[str]]:
    """Yield the ``::``-separated fields of each line of ``ml-1m/<name>``."""
    where = f"{source}:ml-1m/{name}"
    text = read_text(source, f"ml-1m/{name}", MD5, encoding="latin-1")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.strip().split("::")
        if len(parts) != fields:
            raise corrupt(where, f"line {number} has {len(parts)} fields, expected {fields}", MD5)
        yield parts


def _parse_movies(source: str):
    """Return ``(movies, categories_dict, title_dict)`` from ``movies.dat``."""
    raw = []
    for movie_id, title, genres in _rows(source, "movies.dat", 3):
        match = _TITLE.match(title.strip())
        raw.append((movie_id, genres.split("|"), match.group(1) if match else title))
    categories = {c: i for i, c in enumerate(sorted({c for _, cs, _ in raw for c in cs}))}
    words = sorted({w.lower() for _, _, t in raw for w in t.split()})
    titles = {w: i for i, w in enumerate(words)}
    movies = {int(m): MovieInfo(m, cs, t, categories, titles) for m, cs, t in raw}
    return movies, categories, titles


def _parse_users(source: str) -> dict[int, UserInfo]:
    """Return ``{user_id: UserInfo}`` from ``users.dat``."""
    users = {}
    for uid, gender, age, job, _ in _rows(source, "users.dat", 5):
        try:
            users[int(uid)] = UserInfo(uid, gender, age, job)
        except ValueError as exc:
            where = f"{source}:ml-1m/users.dat"
            raise corrupt(where, f"bad user line for id {uid!r} ({exc})", MD5) from exc
    return users


def _reader(rand_seed: int = 0, test_ratio: float = 0.1, is_test: bool = False) -> Iterator[list]:
    source = _source()
    movies, _, _ = _parse_movies(source)
    users = _parse_users(source)
    rand = random.Random(rand_seed)
    for uid, mov_id, rating, _ in _rows(source, "ratings.dat", 4):
        if (rand.random() < test_ratio) == is_test:
            usr, mov = users.get(int(uid)), movies.get(int(mov_id))
            if usr is None or mov is None:
                where = f"{source}:ml-1m/ratings.dat"
                raise corrupt(where, f"rating of unknown user {uid} or movie {mov_id}", MD5)
            yield usr.value() + mov.value() + [[float(rating) * 2 - 5.0]]


def _reader_creator(**kwargs) -> Callable[[], Iterator[list]]:
    return lambda: _reader(**kwargs)


def train(rand_seed: int = 0, test_ratio: float = 0.1) -> Callable[[], Iterator[list]]:
    """Create the training reader (ratings whose seeded draw is ``>= test_ratio``).

    Args:
      rand_seed: seed of the split's ``random.Random``.
      test_ratio: probability that a rating goes to the test set.

    Returns:
      A reader yielding 8-field samples (see the module docstring).
    """
    return _reader_creator(rand_seed=rand_seed, test_ratio=test_ratio, is_test=False)


def test(rand_seed: int = 0, test_ratio: float = 0.1) -> Callable[[], Iterator[list]]:
    """Create the test reader: the complement of [`train`][paddle_lite.dataset.movielens.train] for
    the same arguments."""
    return _reader_creator(rand_seed=rand_seed, test_ratio=test_ratio, is_test=True)


def get_movie_title_dict() -> dict[str, int]:
    """Return ``{lower-case title word: id}``."""
    return _parse_movies(_source())[2]


def movie_categories() -> dict[str, int]:
    """Return ``{genre: id}`` (18 genres in ML-1M)."""
    return _parse_movies(_source())[1]


def movie_info() -> dict[int, MovieInfo]:
    """Return ``{movie_id: MovieInfo}``."""
    return _parse_movies(_source())[0]


def user_info() -> dict[int, UserInfo]:
    """Return ``{user_id: UserInfo}``."""
    return _parse_users(_source())


def max_movie_id() -> int:
    """Return the largest movie id (3952 in ML-1M)."""
    return max(movie_info())


def max_user_id() -> int:
    """Return the largest user id (6040 in ML-1M)."""
    return max(user_info())


def max_job_id() -> int:
    """Return the largest occupation id (20 in ML-1M)."""
    return max(u.job_id for u in user_info().values())


def fetch() -> str:
    """Download ``ml-1m.zip`` into the data home and return its path."""
    return download(URL, "movielens", MD5, save_name=ARCHIVE)


def convert(path: str) -> None:
    """Write the training and test sets as shards under ``path`` (see ``common.convert``)."""
    common.convert(path, train(), 1000, "movielens_train")
    common.convert(path, test(), 1000, "movielens_test")
