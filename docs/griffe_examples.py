"""A griffe extension for the API pages: a docstring's ``Example:`` section is read as
Google style's ``Examples:``, so its ``>>>`` lines render as code (singular ``Example:``
would be an admonition of plain text, where ``>>>`` reads as a quotation)."""

from __future__ import annotations

import re
from typing import Any

import griffe

_HEADER = re.compile(r"^(\s*)Example:[ \t]*$", flags=re.M)


class ExampleSections(griffe.Extension):
    """Rename ``Example:`` section headers to ``Examples:`` in every docstring."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is not None and "Example:" in docstring.value:
            docstring.value = _HEADER.sub(r"\1Examples:", docstring.value)
