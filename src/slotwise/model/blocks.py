"""
Blocks (time taken away) and allocations (time given) with their repeat rules.

Both are windows ``[start_time, end_time)`` of wall time in the location's zone, on the dates
their rule selects between ``start_date`` and ``end_date`` (inclusive). Without a repeat rule a
window applies on every date of its date range. ``OPEN_END`` (9999-12-31) ends an open repeat.
Expanding the dates is ``slotwise.rules.repeat``'s job.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import attrs

from slotwise._time import END_OF_DAY
from slotwise.errors import (
    FieldRequired,
    InconsistentFields,
    InvalidDateRange,
    InvalidFormat,
    InvalidTimeRange,
    OutOfRange,
)

from ._checks import (
    check_bool,
    check_date,
    check_date_bounds,
    check_hhmm,
    check_int,
    check_text,
    to_enum,
)
from ._enum import SpecEnum

__all__ = [
    "OPEN_END",
    "Allocation",
    "AllocationTarget",
    "Block",
    "BlockTarget",
    "Frequency",
    "MonthType",
    "RepeatRule",
    "parse_end_date",
]

OPEN_END = date(9999, 12, 31)
"""The end date of an open-ended repeat (the spec's ``9999-12-31``, also written ``never``)."""

REPEAT_INTERVAL_MAX = 99


class Frequency(SpecEnum):
    """
    Repeat frequency: daily, weekly, monthly or yearly.

    .. versionadded:: 0.1
    """

    DAILY = "D"
    WEEKLY = "W"
    MONTHLY = "M"
    YEARLY = "Y"


class MonthType(SpecEnum):
    """
    How a monthly repeat picks its day: ``DAY`` of month, or nth ``WEEKDAY`` of month.

    .. versionadded:: 0.1
    """

    DAY = "D"
    WEEKDAY = "W"


# Named converters, so an unknown code raises InvalidChoice naming the field (not a bare ValueError).
def _to_frequency(value: object) -> Frequency:
    return to_enum(Frequency, value, field="frequency")


def _to_month_type(value: object) -> MonthType:
    return to_enum(MonthType, value, field="month_type")


def _month_day(value: object) -> object:
    """Accept the spec's response form too: ``"15"`` is 15 (spec: Repeat object, monthDay)."""
    if isinstance(value, str) and 1 <= len(value) <= 2 and value.isascii() and value.isdigit():
        return int(value)
    return value  # anything else is the validator's to refuse


def parse_end_date(value: date | str) -> date:
    """
    Return the end date of a window, reading ``"never"`` and ``"9999-12-31"`` as :data:`OPEN_END`.

    Raises:
        InvalidFormat: when *value* is neither a date nor an ISO date string nor ``never``.
    """
    # A datetime is a date subclass but cannot be compared with the start date.
    if isinstance(value, date) and not isinstance(value, datetime):
        return check_date_bounds(value, field="end_date")
    if isinstance(value, str):
        if value.strip().lower() == "never":
            return OPEN_END
        try:
            return check_date_bounds(date.fromisoformat(value), field="end_date")
        except ValueError:
            pass
    raise InvalidFormat(field="end_date", expected="a date, 'YYYY-MM-DD' or 'never'", value=value)


def _weekdays(value: object) -> frozenset[int]:
    """Accept the spec's digit string (``"125"``) or any iterable of digits 0..6."""
    digits: list[object]
    if isinstance(value, str):
        digits = list(value)
    elif isinstance(value, int):
        digits = list(str(value))
    else:
        digits = list(value)  # type: ignore[call-overload]
    result: set[int] = set()
    for digit in digits:
        try:
            number = int(digit)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            raise InvalidFormat(
                field="weekdays", expected="digits 0 (Sunday) to 6 (Saturday)", value=value
            ) from None
        if not 0 <= number <= 6:
            raise InvalidFormat(
                field="weekdays", expected="digits 0 (Sunday) to 6 (Saturday)", value=value
            )
        result.add(number)
    return frozenset(result)


def _check_rule(instance: RepeatRule, _attribute: Any, _value: Any) -> None:
    frequency = instance.frequency
    if frequency is Frequency.WEEKLY and not instance.weekdays:
        raise FieldRequired(field="weekdays")
    if frequency is not Frequency.WEEKLY and instance.weekdays:
        raise InconsistentFields("weekdays apply to weekly repeats only", field="weekdays")
    if frequency is not Frequency.MONTHLY and instance.month_day is not None:
        raise InconsistentFields("month_day applies to monthly repeats only", field="month_day")
    if frequency is Frequency.MONTHLY and instance.month_day is not None:
        if instance.month_type is MonthType.DAY and not 1 <= instance.month_day <= 31:
            raise OutOfRange(
                field="month_day", allowed="between 1 and 31", requested=instance.month_day
            )
        if instance.month_type is MonthType.WEEKDAY:
            weekday, week = divmod(instance.month_day, 10)
            if not (0 <= weekday <= 6 and 1 <= week <= 5):
                raise InvalidFormat(
                    field="month_day",
                    expected="two digits: weekday 0..6 then week of month 1..5 (e.g. 43)",
                    value=instance.month_day,
                )


@attrs.frozen(kw_only=True)
class RepeatRule:
    """
    How a block or allocation repeats (decision 17).

    * ``DAILY`` every ``interval`` days;
    * ``WEEKLY`` every ``interval`` weeks on ``weekdays`` (digits, 0 = Sunday);
    * ``MONTHLY`` every ``interval`` months on ``month_day`` (``MonthType.DAY``; default: the start
      date's day), or on the nth weekday (``MonthType.WEEKDAY``: ``month_day`` is two digits,
      weekday then week of month, ``43`` = third Thursday, week 5 = last; default: the start
      date's);
    * ``YEARLY`` every ``interval`` years on the start date's month and day.

    Months without the day are skipped, as in RFC 5545.

    .. versionadded:: 0.1
    """

    frequency: Frequency = attrs.field(converter=_to_frequency)
    interval: int = attrs.field(default=1, validator=check_int(low=1, high=REPEAT_INTERVAL_MAX))
    weekdays: frozenset[int] = attrs.field(default=frozenset(), converter=_weekdays)
    month_day: int | None = attrs.field(
        default=None, converter=_month_day, validator=check_int(low=0, high=99, optional=True)
    )
    month_type: MonthType = attrs.field(
        default=MonthType.DAY, converter=_to_month_type, validator=_check_rule
    )

    @property
    def weekday_digits(self) -> str:
        """Return ``weekdays`` as the spec's digit string, sorted (``"125"``)."""
        return "".join(str(day) for day in sorted(self.weekdays))


def _check_window(instance: _Window) -> None:
    if instance.start_date > instance.end_date:
        raise InvalidDateRange(field="start_date", start=instance.start_date, end=instance.end_date)
    if instance.start_time >= instance.end_time:
        # Spec: Errors, rule 6: "startTime must be less than endTime".
        raise InvalidTimeRange(field="start_time", start=instance.start_time, end=instance.end_time)


@attrs.frozen(kw_only=True)
class _Window:
    id: str
    company_id: str
    location_id: str
    target_id: str
    start_date: date = attrs.field(validator=check_date)
    end_date: date = attrs.field(converter=parse_end_date)
    start_time: int = attrs.field(default=0, validator=check_hhmm)
    end_time: int = attrs.field(default=END_OF_DAY, validator=check_hhmm)
    all_day: bool = attrs.field(default=False, validator=check_bool)
    reason: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    repeat: RepeatRule | None = None

    def __attrs_post_init__(self) -> None:
        # Decision 18: allDay sets 0..2400 whatever times were given.
        if self.all_day:
            object.__setattr__(self, "start_time", 0)
            object.__setattr__(self, "end_time", END_OF_DAY)
        _check_window(self)

    @property
    def repeats(self) -> bool:
        """Tell whether this window has a repeat rule."""
        return self.repeat is not None

    @property
    def is_open_ended(self) -> bool:
        """Tell whether this window repeats without an end date."""
        return self.end_date == OPEN_END


def _to_block_target(value: object) -> BlockTarget:
    return to_enum(BlockTarget, value, field="target")


def _to_allocation_target(value: object) -> AllocationTarget:
    return to_enum(AllocationTarget, value, field="target")


class BlockTarget(SpecEnum):
    """
    What a block takes time away from.

    .. versionadded:: 0.1
    """

    CALENDAR = "calendar"
    SERVICE = "service"
    RESOURCE = "resource"


class AllocationTarget(SpecEnum):
    """
    What an allocation gives time to: an event-type service or a resource.

    .. versionadded:: 0.1
    """

    SERVICE = "service"
    RESOURCE = "resource"


@attrs.frozen(kw_only=True)
class Block(_Window):
    """
    Time taken away from a calendar, service or resource (``target`` + ``target_id``).

    .. versionadded:: 0.1
    """

    target: BlockTarget = attrs.field(converter=_to_block_target)
    deleted: bool = attrs.field(default=False, validator=check_bool)


@attrs.frozen(kw_only=True)
class Allocation(_Window):
    """
    Time given to an event-type service or to a resource without recurring availability.

    ``booking_limit`` (0 = not set) overrides the service's and the calendar's booking limit for
    slots inside this allocation (decision 8).

    .. versionadded:: 0.1
    """

    target: AllocationTarget = attrs.field(converter=_to_allocation_target)
    booking_limit: int = attrs.field(default=0, validator=check_int(low=0, high=1000))
