"""
Who holds booked time: the appointments behind a fully booked (``BK``) stretch, and which part of
it is an appointment's padding (issue 22: "why not?" names padding and the appointment).

Decision 15 merges fully booked minutes into stretches per cause, without saying whose; these
helpers find, for a resource and a span, the active appointments that occupy it (decision 8:
each occupies ``[start, end + padding)``, the padding of its own service) so a person can be
told "padding after appointment X" rather than "not on the grid".
"""

from __future__ import annotations

import bisect
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from slotwise.model import Appointment, AppointmentStatus

from ._minutes import _ceil_minute, _floor_minute, _Label
from .records import _Resource
from .results import Reason, UnavailableTime

if TYPE_CHECKING:
    from .labels import _Labels

__all__ = ["Hold", "holds", "padding_pieces"]

PADDING_AFTER = "Padding after an appointment"
"""The reason text of the padding that follows an appointment."""


class Hold(NamedTuple):
    """One active appointment of a resource, in minutes: ``[start, end)`` then its padding."""

    id: str
    start: int
    end: int
    occupied_end: int


def is_active(appointment: Appointment, now: datetime) -> bool:
    """Tell whether an appointment occupies its time at *now* (decision 8)."""
    status = appointment.status
    if status in (AppointmentStatus.BOOKED, AppointmentStatus.RESERVED, AppointmentStatus.NO_SHOW):
        return True
    expires = appointment.hold_expires_at
    return status is AppointmentStatus.INITIAL and (expires is None or now < expires)


def _all_holds(calc: _Labels, res: _Resource) -> list[Hold]:
    """Return R's active appointments, by start (every candidate's worked out in one pass)."""
    cache = calc.holds_cache
    if not cache:
        cache.update({candidate.id: [] for candidate in calc.candidates})
        for appointment in calc.snapshot.appointments:
            holders = [
                cache[rid] for rid in dict.fromkeys(appointment.resource_ids) if rid in cache
            ]
            if not holders or not is_active(appointment, calc.now):
                continue
            start, end = _floor_minute(appointment.start), _ceil_minute(appointment.end)
            hold = Hold(appointment.id, start, end, end + calc._padding_of(appointment))
            for found in holders:
                found.append(hold)
        for found in cache.values():
            found.sort(key=lambda hold: (hold.start, hold.id))
    return cache.get(res.id, [])


def holds(calc: _Labels, res: _Resource, low: int, high: int) -> list[Hold]:
    """Return R's active appointments whose occupied span meets ``[low, high)``, by start."""
    every = _all_holds(calc, res)
    longest = max((hold.occupied_end - hold.start for hold in every), default=0)
    first = bisect.bisect_left(every, low - longest, key=lambda hold: hold.start)
    last = bisect.bisect_left(every, high, key=lambda hold: hold.start)
    return [hold for hold in every[first:last] if hold.occupied_end > low]


def padding_pieces(
    calc: _Labels, res: _Resource, low: int, high: int
) -> list[tuple[int, UnavailableTime]]:
    """
    Return the parts of R's fully booked stretch ``[low, high)`` that are padding.

    Each is the padding after one appointment (its id the entity, type ``"appointment"``),
    split at midnight like every unavailable time, with its start minute.
    """
    found: list[tuple[int, UnavailableTime]] = []
    for hold in holds(calc, res, low, high):
        begin, finish = max(hold.end, low), min(hold.occupied_end, high)
        if begin < finish:
            label = _Label(Reason.FULLY_BOOKED, PADDING_AFTER, "appointment", hold.id)
            found.extend(calc.unavailable_pieces(begin, finish, label, res.id))
    return found
