"""
Availability at a glance: short reprs and week grids in plain HTML for notebooks (issues 14, 22).

Each grid has a column per date and a row per hour, in the wall time of the result's zone (the
location's unless the query asked for another), and names resources, the service and the
location by their names. Available times read three ways: ``times`` (each hour's starts, with
the names of the resources that start then), ``resources`` (one grid per resource) and
``counts`` (how many resources start a slot in each hour; their names on hover). Unavailable
times read two ways: ``combined`` (each hour says what holds for whom: a reason shared by every
resource shades the cell, otherwise the cell lists who is free and who is not, and why) and
``resources`` (one grid per resource, each hour shaded by what covers most of it). No JavaScript
and no dependency: Jupyter shows it as it is, and it reads in any browser when written to a file.
"""

from __future__ import annotations

import collections
import html
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final, Literal

import attrs

from slotwise._time import wall_hour_happens

__all__ = [
    "HtmlView",
    "TimesView",
    "UnavailableView",
    "days_html",
    "range_text",
    "times_html",
    "title_text",
    "unavailable_html",
]

TimesView = Literal["times", "resources", "counts"]
"""How a grid of available times reads: starts with names, a grid per resource, or counts."""

UnavailableView = Literal["combined", "resources"]
"""How a grid of unavailable times reads: what holds for whom, or a grid per resource."""

_STYLE: Final = (
    "<style>"
    ".sw-grid{border-collapse:collapse;font:12px/1.3 system-ui,sans-serif;margin-bottom:8px}"
    ".sw-grid th,.sw-grid td{border:1px solid #ddd;padding:2px 6px;vertical-align:top}"
    ".sw-grid th{background:#f4f4f4}"
    ".sw-grid caption{text-align:left;font-weight:600;padding:2px 0}"
    ".sw-free{background:#e7f6e7}"
    ".sw-mixed{background:#fbfbe8}"
    ".sw-TP,.sw-BA{background:#eee;color:#777}"
    ".sw-CL,.sw-HO{background:#ddd}"
    ".sw-SH,.sw-RH,.sw-AL{background:#f3f0e0}"
    ".sw-CB,.sw-SB,.sw-RB,.sw-EB{background:#fde2cf}"
    ".sw-BK,.sw-DL{background:#f8d0d0}"
    ".sw-out,.sw-gap{background:#fafafa;color:#bbb}"
    ".sw-legend{font:11px system-ui,sans-serif;color:#555}"
    "</style>"
)
_FREE: Final = "free"
_OUTSIDE: Final = "out"
_GAP: Final = "gap"
"""An hour the clocks skip (a DST change forward): no such time, neither free nor taken."""
_CLOSED: Final = frozenset({"TP", "BA", "CL", "HO", _OUTSIDE, _GAP})


@attrs.frozen
class HtmlView:
    """
    An HTML grid that Jupyter shows as it is (``_repr_html_``); ``str()`` gives the markup.

    .. versionadded:: 0.1
    """

    html: str

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html


def range_text(first: date, last: date) -> str:
    """Return ``2026-11-23..29`` (same month), ``2026-11-30..12-06`` or ``2026-12-28..2027-01-03``."""
    if first == last:
        return first.isoformat()
    if first.year != last.year:
        return f"{first.isoformat()}..{last.isoformat()}"
    if first.month != last.month:
        return f"{first.isoformat()}..{last:%m-%d}"
    return f"{first.isoformat()}..{last:%d}"


def title_text(service: str, location: str | None, first: date, last: date, zone: str) -> str:
    """Return ``Massage at Downtown, Mon 23 Nov - Sun 29 Nov 2026 (America/New_York)``."""
    dates = f"{first:%a %d %b}" if first == last else f"{first:%a %d %b} - {last:%a %d %b}"
    where = f" at {location}" if location else ""
    return f"{service}{where}, {dates} {last:%Y} ({zone})"


def _table(
    dates: list[date], hours: list[int], cell: Callable[[date, int], str], caption: str
) -> str:
    head = "".join(f"<th>{day:%a %d %b}</th>" for day in dates)
    rows = []
    for hour in hours:
        cells = "".join(cell(day, hour) for day in dates)
        rows.append(f"<tr><th>{hour:02d}:00</th>{cells}</tr>")
    return (
        f"<table class='sw-grid'><caption>{html.escape(caption)}</caption>"
        f"<thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _hhmm(slot: Any) -> str:
    """
    Return the slot's wall time, ``09:00``; in a DST fold, where the wall time happens twice,
    with the zone's abbreviation: ``02:00 CEST`` then ``02:00 CET``.
    """
    shown = f"{slot.time // 100:02d}:{slot.time % 100:02d}"
    start = slot.start
    if start.replace(fold=1 - start.fold).utcoffset() != start.utcoffset():
        shown += f" {start.tzname()}"
    return shown


def _who(result: Any, slot: Any) -> str:
    ids = slot.resource_ids if len(slot.resource_ids) > 1 else (slot.resource_id,)
    return " + ".join(result.name_of(rid) or "" for rid in ids if rid)


def times_html(result: Any, *, view: TimesView = "times") -> str:
    """Return a week grid of an ``AvailableTimes`` (see the module docstring for *view*)."""
    slots = list(result.available_times)
    caption = result.title
    if not slots:
        return f"{_STYLE}<p class='sw-grid'>{html.escape(caption)}: no bookable time.</p>"
    dates = _dates(result.start_date, result.end_date)
    hours = list(range(min(s.time // 100 for s in slots), max(s.time // 100 for s in slots) + 1))
    if view == "resources":
        tables = []
        for rid, name in result.resource_names().items():
            own = [s for s in slots if rid in (s.resource_id, *s.resource_ids)]
            tables.append(_times_table(result, own, dates, hours, f"{name}: {caption}", False))
        return _STYLE + "".join(tables)
    if view == "counts":
        return _STYLE + _counts_table(result, slots, dates, hours, caption)
    several = (
        len({s.start.astimezone(UTC) for s in slots}) < len(slots)
        or len(result.resource_names()) > 1
    )
    return _STYLE + _times_table(result, slots, dates, hours, caption, several)


def _times_table(
    result: Any, slots: list[Any], dates: list[date], hours: list[int], caption: str, names: bool
) -> str:
    by_cell: dict[tuple[date, int], dict[str, list[str]]] = collections.defaultdict(dict)
    for slot in slots:
        by_cell[slot.date, slot.time // 100].setdefault(_hhmm(slot), []).append(_who(result, slot))

    def cell(day: date, hour: int) -> str:
        found = by_cell.get((day, hour))
        if not found:
            return "<td></td>"
        if not names:
            return f"<td class='sw-free'>{html.escape(' '.join(found))}</td>"
        lines = (f"{time} {', '.join(sorted(who))}" for time, who in found.items())
        return f"<td class='sw-free'>{'<br>'.join(html.escape(line) for line in lines)}</td>"

    return _table(dates, hours, cell, caption)


def _counts_table(
    result: Any, slots: list[Any], dates: list[date], hours: list[int], caption: str
) -> str:
    total = len(result.resource_names())
    who: dict[tuple[date, int], set[str]] = collections.defaultdict(set)
    for slot in slots:
        who[slot.date, slot.time // 100].add(_who(result, slot))

    def cell(day: date, hour: int) -> str:
        found = who.get((day, hour))
        if not found:
            return "<td></td>"
        names = ", ".join(sorted(found))
        return f"<td class='sw-free' title='{html.escape(names)}'>{len(found)}</td>"

    heading = f"{caption}: resources with a start in each hour (of {total})"
    return _table(dates, hours, cell, heading)


def unavailable_html(result: Any, *, view: UnavailableView = "combined") -> str:
    """Return a week grid of an ``UnavailableTimes`` (see the module docstring for *view*)."""
    stretches = list(result.unavailable_times)
    caption = f"Unavailable: {result.title}"
    if not stretches:
        # Unavailable time is per resource (decision 15): with no candidate there is none, yet
        # nothing can be booked either.
        said = (
            "nothing unavailable"
            if result.resource_names()
            else ("no resource takes the service here, so nothing is bookable")
        )
        return f"{_STYLE}<p class='sw-grid'>{html.escape(caption)}: {said}.</p>"
    names = result.resource_names()
    # Minutes of each (resource, date, hour) covered by each code, in the stretches' wall time.
    covered: dict[tuple[str, date, int], collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    texts: dict[str, str] = {}
    for stretch in stretches:
        code = stretch.reason_code.value
        texts.setdefault(code, stretch.reason)
        _cover(covered, stretch.resource_id or "", stretch.start, stretch.end, code)
    dates = _dates(stretches[0].date, max(stretch.date for stretch in stretches))
    tz = stretches[0].start.tzinfo
    if result.searched is not None:
        # Another output zone than the location's: the first and last dates shown begin and
        # end outside the search, which is neither free nor unavailable.
        low, high = (instant.astimezone(tz) for instant in result.searched)
        shown = (datetime.combine(dates[0], time(), tz), datetime.combine(dates[-1], time(), tz))
        outside = [(shown[0], low), (high, shown[1] + timedelta(days=1))]
        for rid in names:
            for begin, end in outside:
                _cover(covered, rid, begin, end, _OUTSIDE)
        if any(begin < end for begin, end in outside):
            texts[_OUTSIDE] = "not searched"

    skipped = {
        (day, hour) for day in dates for hour in range(24) if not wall_hour_happens(day, hour, tz)
    }
    if skipped:
        texts[_GAP] = "no such time (the clocks went forward)"

    def state(rid: str, day: date, hour: int) -> str:
        if (day, hour) in skipped:
            return _GAP
        counts = covered.get((rid, day, hour), collections.Counter())
        free = 60 - sum(counts.values())
        code, most = counts.most_common(1)[0] if counts else (_FREE, 0)
        return _FREE if free > 0 and free >= most else code

    states = {
        (day, hour): {rid: state(rid, day, hour) for rid in names}
        for day in dates
        for hour in range(24)
    }
    open_hours = [
        hour
        for hour in range(24)
        if any(s not in _CLOSED for day in dates for s in states[day, hour].values())
    ]
    hours = list(range(open_hours[0], open_hours[-1] + 1)) if open_hours else list(range(24))
    legend = " · ".join(f"{code} {text}" for code, text in sorted(texts.items()))
    legend_html = f"<p class='sw-legend'>{html.escape(legend)}</p>"
    if view == "resources":
        tables = [
            _table(dates, hours, _shaded(states, rid, texts), f"{name}: {caption}")
            for rid, name in names.items()
        ]
        return _STYLE + "".join(tables) + legend_html
    return _STYLE + _table(dates, hours, _combined(states, names, texts), caption) + legend_html


def _shaded(
    states: dict[tuple[date, int], dict[str, str]], rid: str, texts: dict[str, str]
) -> Callable[[date, int], str]:
    def cell(day: date, hour: int) -> str:
        found = states[day, hour][rid]
        if found == _FREE:
            return "<td class='sw-free'></td>"
        return f"<td class='sw-{found}' title='{html.escape(texts[found])}'>{found}</td>"

    return cell


def _combined(
    states: dict[tuple[date, int], dict[str, str]], names: dict[str, str], texts: dict[str, str]
) -> Callable[[date, int], str]:
    def cell(day: date, hour: int) -> str:
        by_state: dict[str, list[str]] = {}
        for rid, found in states[day, hour].items():
            by_state.setdefault(found, []).append(names[rid])
        if len(by_state) == 1:
            [found] = by_state
            if found == _FREE:
                return "<td class='sw-free'></td>"
            return f"<td class='sw-{found}' title='{html.escape(texts[found])}'>{found}</td>"
        # Mixed: who is free first, then each reason; a person reads who can take the hour.
        order = sorted(by_state, key=lambda s: (s != _FREE, s))
        lines = [f"{found} {', '.join(by_state[found])}" for found in order]
        title = "; ".join(
            f"{'free' if s == _FREE else texts[s]}: {', '.join(by_state[s])}" for s in order
        )
        body = "<br>".join(html.escape(line) for line in lines)
        return f"<td class='sw-mixed' title='{html.escape(title)}'>{body}</td>"

    return cell


def _cover(
    covered: dict[tuple[str, date, int], collections.Counter[str]],
    rid: str,
    start: datetime,
    end: datetime,
    code: str,
) -> None:
    moment = start
    while moment < end:
        hour_end = (moment + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
        step = min(hour_end, end)
        covered[rid, moment.date(), moment.hour][code] += int((step - moment).total_seconds() // 60)
        moment = step


def days_html(result: Any) -> str:
    """Return a row of days: available, closed or full, with the day's bookings and limit."""
    cells = []
    for day in result.available_days:
        state = "sw-free" if day.available else ("sw-CL" if day.closed else "sw-BK")
        text = "open" if day.available else (day.reason or ("closed" if day.closed else "full"))
        cells.append(
            f"<td class='{state}'>{day.date:%a %d %b}<br>{html.escape(str(text))}"
            f"<br>{day.booking_count}/{day.booking_limit or '-'}</td>"
        )
    return (
        f"{_STYLE}<table class='sw-grid'><caption>{html.escape(repr(result))}</caption>"
        f"<tr>{''.join(cells)}</tr></table>"
    )


def _dates(first: date, last: date) -> list[date]:
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def count_codes(codes: Iterable[str]) -> str:
    """Return ``RB 2, TP 1`` for the codes given, most frequent first."""
    counted = collections.Counter(codes)
    return ", ".join(f"{code} {count}" for code, count in counted.most_common())
