"""A small reader for protobuf text format (the ``.protostr`` golden files), no protobuf needed.

A message reads as ``{field: [value, ...]}``: every field is a list (repeated or not), in
file order; a value is a ``str`` (quoted string or enum name), ``int``, ``float``, ``bool`` or
a nested message (``dict``). Numbers keep their written type: ``1`` is an int, ``1.0`` a float.

Example::

    msg = parse('name: "fc" size: 3 inputs { input_layer_name: "x" }')
    msg["inputs"][0]["input_layer_name"]   # ["x"]
"""

from __future__ import annotations

import ast
import re
from typing import Any

Message = dict[str, list[Any]]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<punct>[{}:<>\[\],;])
      | (?P<word>[-+]?[A-Za-z0-9_.+-]+)
      | (?P<comment>\#[^\n]*)
    )""",
    re.VERBOSE,
)


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"protostr: cannot read {text[pos : pos + 30]!r} at offset {pos}")
        pos = match.end()
        if match.lastgroup != "comment":
            out.append(match.group(match.lastgroup))
    return out


def _scalar(token: str) -> Any:
    if token[0] in "\"'":
        return ast.literal_eval(token)
    if token in ("true", "false"):
        return token == "true"
    for convert in (int, float):
        try:
            return convert(token)
        except ValueError:
            pass
    return token  # an enum value


def _message(tokens: list[str], pos: int, close: str | None) -> tuple[Message, int]:
    msg: Message = {}
    while pos < len(tokens) and tokens[pos] != close:
        name = tokens[pos]
        pos += 1
        if tokens[pos] == ":":
            pos += 1
        if tokens[pos] in ("{", "<"):
            value, pos = _message(tokens, pos + 1, "}" if tokens[pos] == "{" else ">")
            pos += 1
        else:
            value, pos = _scalar(tokens[pos]), pos + 1
        msg.setdefault(name, []).append(value)
        if pos < len(tokens) and tokens[pos] in ",;":
            pos += 1
    if close is not None and pos >= len(tokens):
        raise ValueError(f"protostr: missing {close!r} at the end of the text")
    return msg, pos


def parse(text: str) -> Message:
    """The message written in ``text`` (protobuf text format)."""
    msg, _ = _message(_tokens(text), 0, None)
    return msg
