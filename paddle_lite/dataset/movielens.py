"""MovieLens 1M ratings (v2 ``paddle.v2.dataset.movielens``)."""

from paddle_lite._src.dataset.movielens import (
    MovieInfo,
    UserInfo,
    age_table,
    convert,
    fetch,
    get_movie_title_dict,
    max_job_id,
    max_movie_id,
    max_user_id,
    movie_categories,
    movie_info,
    test,
    train,
    user_info,
)

__all__ = [
    "MovieInfo",
    "UserInfo",
    "age_table",
    "convert",
    "fetch",
    "get_movie_title_dict",
    "max_job_id",
    "max_movie_id",
    "max_user_id",
    "movie_categories",
    "movie_info",
    "test",
    "train",
    "user_info",
]
