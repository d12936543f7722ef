"""Showing a Ploter's figure in Jupyter: one image per cell, updated in place.

The first ``plot()`` of a cell displays the figure as a PNG with a display id; later
calls from the same cell replace that image (``update_display``) instead of clearing the
cell, so a progress bar or printed lines in the same cell stay, and the saved notebook
holds exactly one image per plotting cell. A call from another cell starts a new image.
"""

from __future__ import annotations

import io
from typing import Any


def _cell_id() -> Any:
    """The execution count of the cell running now (None outside IPython)."""
    from IPython import get_ipython

    shell = get_ipython()
    return None if shell is None else shell.execution_count


def png_bytes(figure: Any) -> bytes:
    """The figure rendered as PNG bytes (tight bounding box, so labels are not cut)."""
    buf = io.BytesIO()
    figure.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def show(owner: Any, figure: Any) -> None:
    """Display ``figure`` for ``owner`` (a Ploter), replacing its image in this cell.

    Args:
        owner: the object the image belongs to; it keeps the display handle.
        figure: a matplotlib figure, drawn now.
    """
    from IPython import display

    image = display.Image(data=png_bytes(figure), format="png")
    cell = _cell_id()
    previous = getattr(owner, "_display_handle", None)
    if previous is not None and previous[0] == cell:
        previous[1].update(image)
        return
    handle = display.display(image, display_id=True)
    owner._display_handle = (cell, handle)
