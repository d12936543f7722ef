"""NLTK movie_reviews sentiment (v2 ``paddle.v2.dataset.sentiment``)."""

from paddle_lite._src.dataset.sentiment import (
    NUM_TOTAL_INSTANCES,
    NUM_TRAINING_INSTANCES,
    convert,
    fetch,
    get_word_dict,
    load_sentiment_data,
    sort_files,
    test,
    train,
)

__all__ = [
    "NUM_TOTAL_INSTANCES",
    "NUM_TRAINING_INSTANCES",
    "convert",
    "fetch",
    "get_word_dict",
    "load_sentiment_data",
    "sort_files",
    "test",
    "train",
]
