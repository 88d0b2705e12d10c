"""
Availability at a glance: short reprs and a week grid in plain HTML for notebooks (issue 14).

The grid has a column per date and a row per hour. For available times each cell lists the
slots starting in that hour (``09:00 09:15 …``, each resource's initials when several take the
service); for unavailable times each cell is shaded by the reason that covers most of the hour
and names it. No JavaScript and no dependency: Jupyter shows it as it is, and it reads in any
browser when written to a file.
"""

from __future__ import annotations

import collections
import html
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any, Final

__all__ = ["days_html", "range_text", "times_html", "unavailable_html"]

_STYLE: Final = (
    "<style>"
    ".sw-grid{border-collapse:collapse;font:12px/1.3 system-ui,sans-serif}"
    ".sw-grid th,.sw-grid td{border:1px solid #ddd;padding:2px 6px;vertical-align:top}"
    ".sw-grid th{background:#f4f4f4}"
    ".sw-free{background:#e7f6e7}"
    ".sw-TP,.sw-BA{background:#eee;color:#777}"
    ".sw-CL,.sw-HO{background:#ddd}"
    ".sw-SH,.sw-RH,.sw-AL{background:#f3f0e0}"
    ".sw-CB,.sw-SB,.sw-RB,.sw-EB{background:#fde2cf}"
    ".sw-BK,.sw-DL{background:#f8d0d0}"
    "</style>"
)


def range_text(first: date, last: date) -> str:
    """Return ``2026-11-23..29`` (same month), ``2026-11-30..12-06`` or ``2026-12-28..2027-01-03``."""
    if first == last:
        return first.isoformat()
    if first.year != last.year:
        return f"{first.isoformat()}..{last.isoformat()}"
    if first.month != last.month:
        return f"{first.isoformat()}..{last:%m-%d}"
    return f"{first.isoformat()}..{last:%d}"


def _initials(resource_id: str | None, names: dict[str, str]) -> str:
    if resource_id is None:
        return ""
    name = names.get(resource_id, resource_id)
    return "".join(part[:1] for part in name.split()[:2]).upper()


def _table(dates: list[date], hours: list[int], cell: Any, caption: str) -> str:
    head = "".join(f"<th>{day:%a %d %b}</th>" for day in dates)
    rows = []
    for hour in hours:
        cells = "".join(cell(day, hour) for day in dates)
        rows.append(f"<tr><th>{hour:02d}:00</th>{cells}</tr>")
    return (
        f"{_STYLE}<table class='sw-grid'><caption>{html.escape(caption)}</caption>"
        f"<thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def times_html(result: Any, *, names: dict[str, str] | None = None) -> str:
    """Return the week grid of an ``AvailableTimes``: the slots starting in each hour."""
    slots = list(result.available_times)
    caption = repr(result)
    if not slots:
        return f"{_STYLE}<p class='sw-grid'>{html.escape(caption)}: no bookable time.</p>"
    several = len({slot.resource_id for slot in slots}) > 1
    by_cell: dict[tuple[date, int], list[str]] = collections.defaultdict(list)
    for slot in slots:
        label = f"{slot.time // 100:02d}:{slot.time % 100:02d}"
        if several:
            label += f" {_initials(slot.resource_id, names or {})}"
        by_cell[slot.date, slot.time // 100].append(label)
    dates = _dates(result.start_date, result.end_date)
    hours = list(range(min(h for _, h in by_cell), max(h for _, h in by_cell) + 1))

    def cell(day: date, hour: int) -> str:
        found = by_cell.get((day, hour))
        if not found:
            return "<td></td>"
        return f"<td class='sw-free'>{html.escape(' '.join(found))}</td>"

    return _table(dates, hours, cell, caption)


def unavailable_html(result: Any) -> str:
    """Return the week grid of an ``UnavailableTimes``: each hour shaded by its main reason."""
    stretches = list(result.unavailable_times)
    caption = repr(result)
    if not stretches:
        return f"{_STYLE}<p class='sw-grid'>{html.escape(caption)}</p>"
    # Minutes of each (date, hour) covered by each reason, in the stretches' own wall time.
    covered: dict[tuple[date, int], collections.Counter[tuple[str, str]]] = collections.defaultdict(
        collections.Counter
    )
    for stretch in stretches:
        _cover(covered, stretch.start, stretch.end, (stretch.reason_code.value, stretch.reason))
    dates = sorted({day for day, _ in covered})
    hours = list(range(24))

    def cell(day: date, hour: int) -> str:
        counts = covered.get((day, hour))
        if not counts:
            return "<td class='sw-free'></td>"
        (code, reason), _ = counts.most_common(1)[0]
        return f"<td class='sw-{code}' title='{html.escape(reason)}'>{code}</td>"

    return _table(_dates(dates[0], dates[-1]), hours, cell, caption)


def _cover(
    covered: dict[tuple[date, int], collections.Counter[tuple[str, str]]],
    start: datetime,
    end: datetime,
    key: tuple[str, str],
) -> None:
    moment = start
    while moment < end:
        hour_end = (moment + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
        step = min(hour_end, end)
        covered[moment.date(), moment.hour][key] += int((step - moment).total_seconds() // 60)
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
