"""Tests of paddle_lite.dataset.movielens on generated ml-1m files and the real sample."""

from __future__ import annotations

import random

import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite.dataset import common, movielens

MOVIES = (
    "1::Toy Story (1995)::Animation|Comedy\n2::Café Noir (1999)::Drama\n3::Heat (1995)::Action\n"
)
USERS = "1::F::1::10::48067\n2::M::56::16::70072\n"
RATINGS = "".join(
    f"{u}::{m}::{r}::97830{i:04d}\n"
    for i, (u, m, r) in enumerate(
        [(u, m, (u + m + k) % 5 + 1) for k in range(5) for u in (1, 2) for m in (1, 2, 3)]
    )
)


def _members():
    return {
        "ml-1m/movies.dat": MOVIES.encode("latin-1"),
        "ml-1m/users.dat": USERS.encode("latin-1"),
        "ml-1m/ratings.dat": RATINGS.encode("latin-1"),
    }


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


@pytest.fixture(params=["folder", "zip"])
def home(request, tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    if request.param == "folder":
        fx.write_tree(home / "movielens", _members())
    else:
        fx.make_zip(home / "movielens" / "ml-1m.zip", _members())
    return home


def test_helpers(home):
    assert movielens.movie_categories() == {"Action": 0, "Animation": 1, "Comedy": 2, "Drama": 3}
    titles = movielens.get_movie_title_dict()
    assert titles == {"café": 0, "heat": 1, "noir": 2, "story": 3, "toy": 4}
    assert (movielens.max_movie_id(), movielens.max_user_id(), movielens.max_job_id()) == (3, 2, 16)
    assert movielens.movie_info()[2].value() == [2, [3], [0, 2]]
    user = movielens.user_info()[2]
    assert user.value() == [2, 0, 6, 16] and user.is_male
    assert movielens.user_info()[1].value() == [1, 1, 0, 10]
    assert len(movielens.age_table) == 7


def test_split_is_seeded_and_complete(home):
    lines = RATINGS.splitlines()
    rand = random.Random(0)
    in_test = [rand.random() < 0.1 for _ in lines]
    train = list(movielens.train()())
    test = list(movielens.test()())
    assert len(train) == in_test.count(False) and len(test) == in_test.count(True)
    assert list(movielens.train()()) == train
    assert len(list(movielens.test(test_ratio=1.0)())) == len(lines)
    assert len(list(movielens.train(rand_seed=3, test_ratio=0.5)())) + len(
        list(movielens.test(rand_seed=3, test_ratio=0.5)())
    ) == len(lines)


def test_sample_layout(home):
    samples = list(movielens.test(test_ratio=1.0)())
    first = samples[0]
    uid, mid, rating = (int(v) for v in RATINGS.splitlines()[0].split("::")[:3])
    assert len(first) == 8
    assert first == [uid, 1, 0, 10, mid, [1, 2], [4, 3], [rating * 2 - 5.0]]


def test_bad_lines_are_typed_errors(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    members = _members()
    members["ml-1m/ratings.dat"] = b"1::1::5\n"
    fx.write_tree(home / "movielens", members)
    with pytest.raises(common.CorruptFileError, match="line 1 has 3 fields, expected 4"):
        list(movielens.train()())
    members["ml-1m/ratings.dat"] = b"9::1::5::0\n"
    fx.write_tree(home / "movielens", members)
    with pytest.raises(common.CorruptFileError, match="unknown user 9"):
        list(movielens.test(test_ratio=1.0)())


def test_missing_data_names_zip_md5(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(common.DownloadError, match="c4d9eecfca2ab87c1945afe126590906"):
        movielens.max_user_id()


@pytest.mark.slow  # a real-data run: python -m pytest -m slow
def test_real_ratings_sample(monkeypatch):
    folder = fx.shared_or_skip("movielens", "ml-1m", "ratings.dat").parent
    fx.use_home(folder.parent.parent, monkeypatch)
    train = list(movielens.train()())
    test = list(movielens.test()())
    assert len(train) + len(test) == 100000
    assert 9000 < len(test) < 11000
    assert all(len(s) == 8 for s in train[:1000] + test[:1000])
    assert {s[7][0] for s in test} == {-3.0, -1.0, 1.0, 3.0, 5.0}
    assert {s[1] for s in train} == {0, 1} and max(s[2] for s in train) == 6
    assert (movielens.max_user_id(), movielens.max_movie_id(), movielens.max_job_id()) == (
        6040,
        3952,
        20,
    )
    assert len(movielens.movie_categories()) == 18
    titles = movielens.get_movie_title_dict()
    assert 4000 < len(titles) < 6000
    assert all(i < len(titles) for s in test for i in s[6])
