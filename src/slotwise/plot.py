"""
A picture of availability: free, booked and unavailable time per resource and day (matplotlib,
extra ``slotwise[plot]``).

.. versionadded:: 0.1
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any, Final

from slotwise.availability.results import AvailableTimes, UnavailableTimes
from slotwise.errors import MissingDependency

__all__ = ["availability"]

COLOURS: Final = {
    "free": "#7bc47f",
    "BK": "#d9534f",
    "DL": "#d9534f",
    "TP": "#bbbbbb",
    "BA": "#bbbbbb",
    "CL": "#999999",
    "HO": "#999999",
    "SH": "#e6d58a",
    "RH": "#e6d58a",
    "AL": "#e6d58a",
    "CB": "#f0a35e",
    "SB": "#f0a35e",
    "RB": "#f0a35e",
    "EB": "#f0a35e",
}
"""Bar colours: free green, booked red, blocks orange, hours yellow, closed and past grey."""


def _hours(moment: datetime) -> float:
    return moment.hour + moment.minute / 60


def availability(
    times: AvailableTimes,
    unavailable: UnavailableTimes | None = None,
    *,
    names: dict[str, str] | None = None,
    title: str | None = None,
) -> Any:
    """
    Return a matplotlib Figure: one row per (resource, day), hours across.

    Free slots are green bars; the stretches of *unavailable* (if given) are coloured by their
    reason code and labelled with it (booked red, blocks orange, outside hours yellow, closed
    and past grey). Times are wall times in the zone the query asked for.

    Raises:
        MissingDependency: when matplotlib is not installed (extra ``slotwise[plot]``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as pyplot
    except ImportError:
        raise MissingDependency(feature="slotwise.plot", extra="plot") from None
    names = names or {}
    rows: dict[tuple[str, date], list[tuple[float, float, str, str]]] = {}
    for slot in times.available_times:
        key = (slot.resource_id or "-", slot.date)
        begin = _hours(slot.start)
        rows.setdefault(key, []).append((begin, slot.duration / 60, COLOURS["free"], ""))
    for stretch in unavailable.unavailable_times if unavailable is not None else ():
        key = (stretch.resource_id or "-", stretch.date)
        begin = _hours(stretch.start)
        length = (stretch.end - stretch.start).total_seconds() / 3600
        code = stretch.reason_code.value
        label = f"{code} {stretch.reason}" if code in ("CB", "SB", "RB") else code
        rows.setdefault(key, []).append((begin, length, COLOURS.get(code, "#cccccc"), label))
    ordered = sorted(rows)
    figure, axes = pyplot.subplots(figsize=(10, 0.5 * max(len(ordered), 2) + 1))
    for position, key in enumerate(ordered):
        for begin, length, colour, label in _merged(rows[key]):
            axes.broken_barh([(begin, length)], (position - 0.4, 0.8), facecolors=colour)
            if label and length >= 0.75:
                axes.text(begin + length / 2, position, label, ha="center", va="center",
                          fontsize=7, clip_on=True)  # fmt: skip
    axes.set_yticks(range(len(ordered)))
    axes.set_yticklabels([f"{names.get(r, r)[:12]} {d:%a %d %b}" for r, d in ordered])
    axes.set_xlim(0, 24)
    axes.set_xticks(range(0, 25, 2))
    axes.set_xlabel("hour")
    axes.invert_yaxis()
    axes.set_title(title or repr(times))
    figure.tight_layout()
    return figure


def _merged(
    bars: Iterable[tuple[float, float, str, str]],
) -> list[tuple[float, float, str, str]]:
    """Join touching bars of one colour and label, so a free afternoon is one bar."""
    merged: list[tuple[float, float, str, str]] = []
    for begin, length, colour, label in sorted(bars):
        if merged:
            last_begin, last_length, last_colour, last_label = merged[-1]
            if (last_colour, last_label) == (colour, label) and begin <= last_begin + last_length:
                end = max(last_begin + last_length, begin + length)
                merged[-1] = (last_begin, end - last_begin, colour, label)
                continue
        merged.append((begin, length, colour, label))
    return merged
