"""
Why not? One candidate time explained by the calculator that lists times (issues 14 and 22).

A slot of R at t needs ``[t, t + duration)`` in R's open time and ``[t, t + duration +
padding)`` clear of R's full bookings and external busy time (decision 8, the module docstring of
``calculator``). So the reasons are the unavailable stretches (decision 15) that overlap the
candidate, and the ``BK``/``EB`` ones that overlap the padding after it; a ``BK`` stretch is told
as the appointments that hold it, each part named for what it is: the appointment's own time
("Fully booked"), the padding after it, or this service's padding running into it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ._minutes import REASON_TEXTS, _floor_minute, _Label
from .calculator import _Calculator, available_times, names_of, unavailable_times
from .explanation import Explanation
from .holders import PADDING_AFTER, holds
from .query import AvailabilityQuery
from .results import Reason, UnavailableTime
from .snapshot import Snapshot

__all__ = ["explain_time"]

_PADDED = (Reason.FULLY_BOOKED, Reason.EXTERNAL_BUSY)
"""The causes a slot's padding must be clear of (decision 8)."""


def explain_time(
    snapshot: Snapshot,
    query: AvailabilityQuery,
    now: datetime,
    start: datetime,
    *,
    resource_id: str | None,
) -> Explanation:
    """
    Return whether *start* is offered by *query* (round robin ``none``) and why not.

    *query* searches the location dates that ``[start, start + duration)`` touches, in the
    location's zone; see :class:`~slotwise.Explanation` for what the answer holds.
    """
    calc = _Calculator(snapshot, query, now)
    local = calc.output.tz
    slots = available_times(snapshot, query, now).available_times
    duration = timedelta(minutes=calc.duration)
    end = start + duration
    padded_end = end + timedelta(minutes=calc.padding)
    # Compared in UTC: an aware time in a DST fold never equals one of another zone (PEP 495).
    wanted = start.astimezone(UTC)
    mine = [s for s in slots if resource_id is None or s.resource_id == resource_id]
    offered = any(slot.start.astimezone(UTC) == wanted for slot in mine)
    reasons: list[UnavailableTime] = []
    nearest: tuple[datetime, ...] = ()
    if not offered:
        for stretch in unavailable_times(snapshot, query, now).unavailable_times:
            if resource_id is not None and stretch.resource_id not in (None, resource_id):
                continue
            if (stretch.start < end and stretch.end > start) or (
                stretch.reason_code in _PADDED and stretch.start < padded_end and stretch.end > end
            ):
                reasons.extend(_told(calc, stretch, start, padded_end))
        if not reasons:
            starts = {slot.start.astimezone(UTC): slot.start for slot in mine}
            before = [starts[m] for m in sorted(starts) if m < wanted][-1:]
            after = [starts[m] for m in sorted(starts) if m > wanted][:1]
            nearest = (*before, *after)
    return Explanation(
        service_id=snapshot.service.id,
        start=start.astimezone(local),
        end=end.astimezone(local),
        resource_id=resource_id,
        offered=offered,
        reasons=tuple(reasons),
        off_grid=not offered and not reasons,
        nearest=nearest,
        names=names_of(calc),
    )


def _told(
    calc: _Calculator, stretch: UnavailableTime, start: datetime, padded_end: datetime
) -> list[UnavailableTime]:
    """Return *stretch* as it bears on the candidate: a ``BK`` one as the appointments holding it."""
    res = next((r for r in calc.candidates if r.id == stretch.resource_id), None)
    if stretch.reason_code is not Reason.FULLY_BOOKED or res is None:
        return [stretch]
    low = max(_floor_minute(stretch.start), _floor_minute(start))
    high = min(_floor_minute(stretch.end), _floor_minute(padded_end))
    candidate_end = _floor_minute(start) + calc.duration
    told: list[UnavailableTime] = []
    for hold in holds(calc, res, low, high):
        parts = (
            (hold.start, hold.end, False),
            (hold.end, hold.occupied_end, True),
        )
        for begin, finish, is_padding in parts:
            begin, finish = max(begin, low), min(finish, high)
            if begin >= finish:
                continue
            if is_padding:
                text = f"{PADDING_AFTER} ({hold.occupied_end - hold.end} min)"
            elif begin < candidate_end:
                text = REASON_TEXTS[Reason.FULLY_BOOKED]
            else:
                text = f"This service's padding ({calc.padding} min) runs into an appointment"
            label = _Label(Reason.FULLY_BOOKED, text, "appointment", hold.id)
            told.extend(piece for _, piece in calc.unavailable_pieces(begin, finish, label, res.id))
    return told or [stretch]
