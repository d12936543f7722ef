"""The field being converted: where an error happened, and what its items must satisfy.

A ``Field`` names the data layer, the field index and its declared type (and, while the
steps or entries of one sample are converted, that sample) for the ``DataError`` a bad
item raises; it also carries the bound on ids and the image shape the layers reading it
expect.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

from paddle_lite._src.data_types import InputType
from paddle_lite._src.errors import DataError, DataWarning
from paddle_lite._src.tracebacks import user_stacklevel


class Field:
    """Where an error happened: data layer, field index, type (and, when the items being
    converted are the steps of one sample, that sample)."""

    def __init__(
        self,
        name: str,
        index: int,
        tp: InputType,
        sample: int | None = None,
        unit: str = "",
        *,
        limit: tuple[int | None, str] | None = None,
        image: tuple[tuple[int, int, int], str] | None = None,
    ) -> None:
        self.name, self.index, self.type = name, index, tp
        self.sample, self.unit = sample, unit
        # ``((C, H, W), layer)``: the image a layer reads this dense field as, when the data
        # layer declares no height and width (``checks.image_inputs``); None: any.
        self.image = image
        # Ids are below ``self.limit`` (None: no upper bound), ``why`` names the layer
        # setting it: the declared dim unless the layers reading the ids bound them
        # otherwise (``checks.id_limits``), as v2, whose DataFeeder never checked
        # ids against the declared dim (its layers did).
        self.limit, self.why = limit if limit is not None else (tp.dim, "")
        self._warned = [False]  # shared with the copies ``at`` makes: one warning a field

    def at(self, sample: int, unit: str) -> Field:
        """The same field, converting the ``unit`` items (steps, entries) of ``sample``."""
        item = copy.copy(self)  # shares ``_warned``
        item.sample, item.unit = sample, unit
        return item

    def past_dim(self, id_: int) -> None:
        """Warn, once for this field, that an id at or past the declared dim was accepted."""
        if self._warned[0]:
            return
        self._warned[0] = True
        warnings.warn(
            f"data layer '{self.name}' (field {self.index!r}) received id {id_}, at or past its "
            f"declared {self.type!r}; accepted, as v2 did, because {self.why}. Declare the "
            "data layer with the range its ids really have to silence this.",
            DataWarning,
            stacklevel=user_stacklevel(),
        )

    def error(self, what: str, item: int | None = None) -> DataError:
        where = f"data layer '{self.name}' (field {self.index!r}"
        if self.sample is not None:
            where += f", sample {self.sample}" + (
                f", {self.unit} {item}" if item is not None else ""
            )
        elif item is not None:
            where += f", sample {item}"
        return DataError(f"{where}): {what}; declared {self.type!r}.")


def show(value: Any, limit: int = 40) -> str:
    """``repr (type)`` of a received value, the repr cut to ``limit`` characters."""
    text = repr(value)
    return f"{text[: limit - 3] + '...' if len(text) > limit else text} ({type(value).__name__})"
