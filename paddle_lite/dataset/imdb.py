"""IMDB movie-review sentiment (v2 ``paddle.v2.dataset.imdb``)."""

from paddle_lite._src.dataset.imdb import (
    build_dict,
    convert,
    fetch,
    test,
    tokenize,
    tokenize_text,
    train,
    word_dict,
)

__all__ = [
    "build_dict",
    "convert",
    "fetch",
    "test",
    "tokenize",
    "tokenize_text",
    "train",
    "word_dict",
]
