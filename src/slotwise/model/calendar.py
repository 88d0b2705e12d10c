"""
Calendars: a location's booking grid and its default booking limit.
"""

from __future__ import annotations

import attrs

from ._checks import check_bool, check_choice, check_int, check_text
from .hours import WeeklyHours

__all__ = ["SLOT_INTERVALS", "Calendar"]

SLOT_INTERVALS = (1, 5, 10, 15, 20, 30, 60)
"""Allowed calendar slot intervals, in minutes."""

BOOKINGS_PER_SLOT_MAX = 20


@attrs.frozen(kw_only=True)
class Calendar:
    """
    A location's calendar.

    ``bookings_per_slot`` (1..20, default 1) is the location-level booking limit used when a
    service sets none; ``interval`` is the slot grid step when the service sets none.
    ``availability`` defaults to 24x7 (spec: POST /setup/v1/calendars).

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str
    name: str = attrs.field(validator=check_text(max_len=255, required=True))
    type: str = attrs.field(default="resource", validator=check_choice("resource", "service"))
    primary: bool = attrs.field(default=False, validator=check_bool)
    interval: int = attrs.field(default=15, validator=check_choice(*SLOT_INTERVALS))
    bookings_per_slot: int = attrs.field(
        default=1, validator=check_int(low=1, high=BOOKINGS_PER_SLOT_MAX)
    )
    availability: WeeklyHours = attrs.field(factory=WeeklyHours.always)
