"""
A matplotlib Figure that shows itself in Jupyter without pyplot (``slotwise.plot``'s result).

Imported only by ``slotwise.plot`` when matplotlib is installed (extra ``slotwise[plot]``).
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure

__all__ = ["ReportFigure"]


class ReportFigure(Figure):
    """
    A :class:`~matplotlib.figure.Figure` with a PNG representation for IPython.

    A Figure made without pyplot belongs to no backend, so a fresh Jupyter kernel (pyplot
    not yet imported) would print its repr instead of showing it; ``_repr_png_`` renders it
    with matplotlib's own Agg canvas for this one figure, leaving the host's backend as it is.
    Where the host's inline backend already formats figures, its formatter is used instead.

    .. versionadded:: 0.1
    """

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()
