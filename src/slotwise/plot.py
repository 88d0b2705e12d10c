"""
A picture of availability: bookable, booked, padding and unavailable time per resource and day
(matplotlib, extra ``slotwise[plot]``).

The figure is built as a :class:`matplotlib.figure.Figure` of its own, never through pyplot's
state: slotwise leaves the host's backend, its open figures and its rcParams as they were
(issue 22: switching to ``Agg`` hid every later figure of a Jupyter kernel). Jupyter shows the
figure through its ``_repr_png_``, whatever backend the kernel uses; ``savefig`` writes it.

.. versionadded:: 0.1
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date, datetime
from typing import TYPE_CHECKING, Final, TypedDict

from slotwise._time import wall_hour_happens
from slotwise.availability.results import AvailableTimes, UnavailableTimes
from slotwise.errors import MissingDependency

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from slotwise._figure import ReportFigure

__all__ = ["availability"]

# What each bar means: (legend text, colour, hatch); the codes of decision 15 map onto them.
KINDS: Final = {
    "free": ("bookable (a slot starts)", "#6cbf73", ""),
    "nofit": ("free, but no slot fits (grid, padding)", "#e3f3e3", "...."),
    "BK": ("booked", "#d9534f", ""),
    "padding": ("padding after a booking", "#f4b6b4", "////"),
    "DL": ("daily limit reached", "#a93226", ""),
    "block": ("blocked or busy", "#f0a35e", ""),
    "hours": ("outside service or resource hours", "#e9dc9c", ""),
    "closed": ("location closed or holiday", "#9e9e9e", ""),
    "past": ("past, or beyond book-ahead", "#cfcfcf", ""),
    "gap": ("no such time (the clocks went forward)", "#ffffff", "xxxx"),
}
"""Bar kinds in legend order: legend text, face colour and hatch."""

_KIND_OF: Final = {
    "BK": "BK",
    "DL": "DL",
    "CB": "block",
    "SB": "block",
    "RB": "block",
    "EB": "block",
    "SH": "hours",
    "RH": "hours",
    "AL": "hours",
    "CL": "closed",
    "HO": "closed",
    "TP": "past",
    "BA": "past",
}
_OUTSIDE: Final = frozenset({"TP", "BA", "CL", "HO"})
"""Codes that say nothing about open hours: the x axis spans the other bars."""

Bar = tuple[float, float, str, str]
"""(start hour, end hour, kind, label) in the day's wall time."""


class _Literal(TypedDict):
    parse_math: bool
    usetex: bool


_LITERAL: Final[_Literal] = {"parse_math": False, "usetex": False}
"""Text properties of every text that comes from records (names, reasons, the title): drawn as
typed. Names are entered by people: ``$5 - $10`` is not mathtext, and ``\\frac{1}`` between
dollars would make the figure fail to draw; ``_`` and ``&`` would break a host's ``usetex``."""

MAX_ROWS: Final = 120
"""Rows (resource and date) a picture draws unless asked for more."""

_NAME_CHARS: Final = 20
"""Characters of a resource's name a row label shows; a longer name is cut with an ellipsis."""


def _hour(moment: datetime, day: date) -> float:
    """Return *moment*'s wall hour on *day* (24 when it is the next midnight)."""
    if moment.date() > day:
        return 24.0
    return moment.hour + moment.minute / 60


def availability(
    times: AvailableTimes,
    unavailable: UnavailableTimes | None = None,
    *,
    names: dict[str, str] | None = None,
    title: str | None = None,
    max_rows: int = MAX_ROWS,
) -> ReportFigure:
    """
    Return a matplotlib Figure: one row per resource and day (sorted by name), hours across.

    Bookable time (where slots start) is green; with *unavailable*, its stretches are drawn by
    reason (booked red, the padding after a booking hatched, blocks orange and labelled with
    their reason, outside hours yellow, closed grey) and free time where no slot fits is
    dotted. The x axis spans the open hours, in the wall time of the zone the query asked for;
    a legend names every kind drawn; the title is the query (service, location, dates, zone)
    unless *title* is given. Resource names come from the results; *names* overrides them.
    At most *max_rows* rows are drawn (the first, by name and date), and the axis label says
    how many there were: a quarter of a hundred resources (9,000 rows) would make a picture
    some two hundred metres tall and take minutes. The host's pyplot state and backend are
    left alone.

    Raises:
        MissingDependency: when matplotlib is not installed (extra ``slotwise[plot]``).
    """
    try:
        from matplotlib.patches import Patch

        from slotwise._figure import ReportFigure
    except ImportError:
        raise MissingDependency(feature="slotwise.plot", extra="plot") from None
    named = {**times.resource_names(), **(unavailable.resource_names() if unavailable else {})}
    named.update(names or {})
    rows = _rows(times, unavailable)
    low, high = _span(rows)
    _mark_skipped_hours(rows, times, unavailable, low, high)
    if unavailable is not None:
        for (_, day), bars in rows.items():
            begin, end = _searched_hours(unavailable, day, low, high)
            bars.extend(_gaps(bars, begin, end))
    # A date closed for everyone (a Sunday, a holiday) is a footnote, not a grey row per person.
    closed = _closed_dates(rows, low, high)
    order = sorted(
        (key for key in rows if key[1] not in closed),
        key=lambda key: (named.get(key[0], key[0]), key[0], key[1]),
    )
    total = len(order)
    order = order[:max_rows]
    figure = ReportFigure(figsize=(11, 0.32 * max(len(order), 3) + 2.2))
    axes = figure.subplots()
    drawn = _draw_bars(axes, order, rows)
    axes.set_yticks(range(len(order)))
    short = _short_names({rid: named.get(rid, rid) for rid, _ in order})
    axes.set_yticklabels([f"{short[r]}  {d:%a %d %b}" for r, d in order], fontsize=8, **_LITERAL)
    # No rows (closed for everyone): one empty row's height, not a range of zero height.
    axes.set_ylim(max(len(order), 1) - 0.5, -0.5)
    axes.set_xlim(low, high)
    step = 1 if high - low <= 12 else 2
    ticks = list(range(int(low), int(high) + 1, step))
    axes.set_xticks(ticks)
    axes.set_xticklabels([f"{tick:02d}:00" for tick in ticks], fontsize=8)
    xlabel = f"wall time ({times.title.rsplit('(', 1)[-1].rstrip(')')})"
    for heading, cause in (("closed all day", "closed"), ("past or beyond book-ahead", "past")):
        shown = ", ".join(
            f"{day:%a %d %b}" + (f" ({why})" if why else "")
            for day, (kind, why) in closed.items()
            if kind == cause
        )
        if shown:
            xlabel += f"\n{heading}: {shown}"
    if total > len(order):
        xlabel += (
            f"\nthe first {len(order)} of {total} rows (resource and date) are drawn:"
            " ask for fewer resources or dates, or pass a larger max_rows"
        )
    axes.set_xlabel(xlabel, **_LITERAL)
    axes.grid(axis="x", color="#dddddd", linewidth=0.5)
    axes.set_axisbelow(True)
    axes.set_title(title or times.title, fontsize=10, **_LITERAL)
    handles = [
        Patch(
            facecolor=KINDS[k][1], edgecolor="#777777", hatch=KINDS[k][2] or None, label=KINDS[k][0]
        )
        for k in KINDS
        if k in drawn
    ]
    axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
                frameon=False)  # fmt: skip
    figure.tight_layout()
    return figure


def _draw_bars(
    axes: Axes, order: list[tuple[str, date]], rows: dict[tuple[str, date], list[Bar]]
) -> set[str]:
    """
    Draw the rows' bars, one collection per kind (padding last, over the booking it follows),
    and label the long ones; return the kinds drawn.

    One collection per kind, not one per bar: matplotlib recomputes the view of every
    collection as each is added, so a bar each took minutes for a few thousand rows.
    """
    from matplotlib.collections import PolyCollection

    boxes: dict[str, list[list[tuple[float, float]]]] = {}
    for position, key in enumerate(order):
        low, high = position - 0.4, position + 0.4
        for begin, end, kind, label in _merged(rows[key]):
            boxes.setdefault(kind, []).append(
                [(begin, low), (begin, high), (end, high), (end, low)]
            )
            if label and end - begin >= 0.75:
                axes.text((begin + end) / 2, position, label, ha="center", va="center",
                          fontsize=7, clip_on=True, **_LITERAL)  # fmt: skip
    for kind, (_, colour, hatch) in KINDS.items():
        if kind in boxes:
            bars = PolyCollection(
                boxes[kind],
                facecolors=colour,
                edgecolors="#777777" if hatch else colour,
                hatch=hatch or None,
                linewidths=0.3,
            )
            axes.add_collection(bars, autolim=False)
    return set(boxes)


def _short_names(names: dict[str, str]) -> dict[str, str]:
    """
    Return each row's name as its label shows it: cut to :data:`_NAME_CHARS` with an ellipsis,
    in full where two different names would be cut to the same label.
    """
    cut = {
        rid: name if len(name) <= _NAME_CHARS else name[: _NAME_CHARS - 1] + "\u2026"
        for rid, name in names.items()
    }
    names_of: dict[str, set[str]] = {}
    for rid, label in cut.items():
        names_of.setdefault(label, set()).add(names[rid])
    return {rid: label if len(names_of[label]) == 1 else names[rid] for rid, label in cut.items()}


def _closed_dates(
    rows: dict[tuple[str, date], list[Bar]], low: float, high: float
) -> dict[date, tuple[str, str]]:
    """
    Return the dates on which every row is closed or past over ``[low, high)``, each with its
    cause (``closed`` when the location is closed at all that day, else ``past``: past or
    beyond book-ahead, not closed) and why (a holiday's name).
    """
    days: dict[date, list[list[Bar]]] = {}
    for (_, day), bars in rows.items():
        days.setdefault(day, []).append(bars)
    closed: dict[date, tuple[str, str]] = {}
    for day, groups in sorted(days.items()):
        inside = [bar for bars in groups for bar in bars if bar[1] > low and bar[0] < high]
        kinds = {kind for _, _, kind, _ in inside}
        if kinds and kinds <= {"closed", "past", "nofit", "gap"} and kinds & {"closed", "past"}:
            cause = "closed" if "closed" in kinds else "past"
            closed[day] = (cause, next((label for *_, label in inside if label), ""))
    return closed


def _rows(
    times: AvailableTimes, unavailable: UnavailableTimes | None
) -> dict[tuple[str, date], list[Bar]]:
    rows: dict[tuple[str, date], list[Bar]] = {}
    for slot in times.available_times:
        for rid in (slot.resource_id,) if slot.resource_id else slot.resource_ids or ("-",):
            begin = _hour(slot.start, slot.date)
            rows.setdefault((rid, slot.date), []).append(
                (begin, _hour(slot.end, slot.date), "free", "")
            )
    if unavailable is None:
        return rows
    for stretch in unavailable.unavailable_times:
        code = stretch.reason_code.value
        kind = _KIND_OF.get(code, "block")
        label = stretch.reason if kind == "block" or code == "HO" else ""
        key = (stretch.resource_id or "-", stretch.date)
        rows.setdefault(key, []).append((_hour(stretch.start, stretch.date),
                                         _hour(stretch.end, stretch.date), kind, label))  # fmt: skip
    for piece in unavailable.padding:
        key = (piece.resource_id or "-", piece.date)
        rows.setdefault(key, []).append(
            (_hour(piece.start, piece.date), _hour(piece.end, piece.date), "padding", "")
        )
    return rows


def _mark_skipped_hours(
    rows: dict[tuple[str, date], list[Bar]],
    times: AvailableTimes,
    unavailable: UnavailableTimes | None,
    low: float,
    high: float,
) -> None:
    """
    Add a ``gap`` bar over each wall hour within ``[low, high)`` that the clocks skip on a row's
    day (a DST change forward): a slot drawn across it spans an hour that never happens.
    """
    stretches = unavailable.unavailable_times if unavailable is not None else ()
    first = next(iter((*times.available_times[:1], *stretches[:1])), None)
    if first is None:
        return
    tz = first.start.tzinfo
    hours = range(math.floor(low), math.ceil(high))
    skipped: dict[date, list[int]] = {}
    for (_, day), bars in rows.items():
        if day not in skipped:
            skipped[day] = [hour for hour in hours if not wall_hour_happens(day, hour, tz)]
        bars.extend((hour, hour + 1, "gap", "") for hour in skipped[day])


def _span(rows: dict[tuple[str, date], list[Bar]]) -> tuple[float, float]:
    """Return the whole hours that hold every bar but the closed, past and far ones."""
    inside = [
        (begin, end)
        for bars in rows.values()
        for begin, end, kind, _ in bars
        if kind not in ("closed", "past")
    ]
    if not inside:
        return 0.0, 24.0
    return float(math.floor(min(b for b, _ in inside))), float(math.ceil(max(e for _, e in inside)))


def _searched_hours(
    unavailable: UnavailableTimes, day: date, low: float, high: float
) -> tuple[float, float]:
    """
    Return the part of ``[low, high)`` on *day* that the query searched: with an output zone
    other than the location's, the first and last dates shown begin and end inside the search,
    and the time outside it is neither free nor unavailable.
    """
    if unavailable.searched is None or not unavailable.unavailable_times:
        return low, high
    tz = unavailable.unavailable_times[0].start.tzinfo
    first, last = (instant.astimezone(tz) for instant in unavailable.searched)
    if first.date() == day:
        low = max(low, _hour(first, day))
    if last.date() == day:
        high = min(high, _hour(last, day))
    return low, high


def _gaps(bars: list[Bar], low: float, high: float) -> list[Bar]:
    """Return the time within ``[low, high)`` that no bar covers: free, but no slot fits."""
    found: list[Bar] = []
    cursor = low
    for begin, end, _, _ in sorted(bars):
        if begin > cursor + 1e-9:
            found.append((cursor, min(begin, high), "nofit", ""))
        cursor = max(cursor, end)
    if cursor < high - 1e-9:
        found.append((cursor, high, "nofit", ""))
    return [bar for bar in found if bar[1] > bar[0]]


def _merged(bars: Iterable[Bar]) -> list[Bar]:
    """Join touching bars of one kind and label (a free afternoon is one bar); padding on top."""
    merged: list[Bar] = []
    for begin, end, kind, label in sorted(bars, key=lambda bar: (bar[2] == "padding", bar)):
        if merged:
            last_begin, last_end, last_kind, last_label = merged[-1]
            if (last_kind, last_label) == (kind, label) and begin <= last_end:
                merged[-1] = (last_begin, max(last_end, end), kind, label)
                continue
        merged.append((begin, end, kind, label))
    return merged
