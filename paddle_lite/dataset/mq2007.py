"""LETOR 4.0 MQ2007 learning to rank (v2 ``paddle.v2.dataset.mq2007``)."""

from paddle_lite._src.dataset.mq2007 import convert, fetch, load_from_text, parse_line, test, train

__all__ = ["convert", "fetch", "load_from_text", "parse_line", "test", "train"]
