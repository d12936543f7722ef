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


class CellImage:
    """One figure's image in the notebook: the first ``show`` of a cell displays it, later
    ones from the same cell replace it in place.

    Example:
        ```python
        image = CellImage()
        image.show(figure)   # displays the figure
        image.show(figure)   # from the same cell: replaces it
        ```
    """

    def __init__(self) -> None:
        self.cell: Any = None  # the execution count of the cell showing the image
        self.handle: Any = None  # IPython's DisplayHandle of the image, None before the first

    def show(self, figure: Any) -> None:
        """Display ``figure`` (a matplotlib figure, drawn now), replacing this image when
        it was shown from the same cell."""
        from IPython import display

        image = display.Image(data=png_bytes(figure), format="png")
        cell = _cell_id()
        if self.handle is not None and self.cell == cell:
            self.handle.update(image)
            return
        self.cell, self.handle = cell, display.display(image, display_id=True)
