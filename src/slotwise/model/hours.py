"""
Weekly opening hours: business hours of a location, weekly availability of services and resources.

All times are HHMM wall times in the owner's zone (the location's for business and service hours,
the resource's own for resource hours). A day with start 0 and end 0 is closed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

import attrs

from slotwise._time import END_OF_DAY, validate_hhmm
from slotwise.errors import InvalidFormat, InvalidTimeRange

from ._checks import check_bool, check_hhmm
from ._enum import SpecEnum

__all__ = ["BusinessHours", "DayHours", "DayWindow", "Weekday", "WeeklyHours"]


class Weekday(SpecEnum):
    """
    A day of the week, valued by the spec's key.

    ``digit`` is the repeat-rule digit (0 = Sunday); ``python`` is ``date.weekday()`` (0 = Monday).

    .. versionadded:: 0.1
    """

    SUN = "sun"
    MON = "mon"
    TUE = "tue"
    WED = "wed"
    THU = "thu"
    FRI = "fri"
    SAT = "sat"

    @property
    def digit(self) -> int:
        """Return the spec's repeat-rule digit: 0 = Sunday .. 6 = Saturday."""
        return _ORDER.index(self)

    @property
    def python(self) -> int:
        """Return the ``date.weekday()`` number: 0 = Monday .. 6 = Sunday."""
        return (self.digit - 1) % 7

    @classmethod
    def of(cls, day: date) -> Weekday:
        """Return the weekday of *day*."""
        return _BY_PYTHON[day.weekday()]

    @classmethod
    def from_digit(cls, digit: int) -> Weekday:
        """Return the weekday of a repeat-rule digit (0 = Sunday)."""
        return _ORDER[digit]


_ORDER = (
    Weekday.SUN,
    Weekday.MON,
    Weekday.TUE,
    Weekday.WED,
    Weekday.THU,
    Weekday.FRI,
    Weekday.SAT,
)
_BY_PYTHON = {day.python: day for day in _ORDER}
# The field of each ``date.weekday()``: read by name, as an enum's ``value`` is a Python-level
# property (a booking reads a date's hours several times).
_FIELD_BY_PYTHON = tuple(_BY_PYTHON[number].value for number in range(7))


def _check_window(instance: DayWindow, _attribute: Any, _value: Any) -> None:
    if instance.start_time == 0 and instance.end_time == 0:
        return
    if instance.start_time >= instance.end_time:
        raise InvalidTimeRange(field="start_time", start=instance.start_time, end=instance.end_time)


@attrs.frozen(kw_only=True)
class DayWindow:
    """
    One day of weekly availability: ``[start_time, end_time)`` in HHMM; ``0, 0`` means closed.

    .. versionadded:: 0.1
    """

    start_time: int = attrs.field(validator=check_hhmm)
    end_time: int = attrs.field(validator=[check_hhmm, _check_window])

    @property
    def is_closed(self) -> bool:
        """Tell whether this day offers no time at all."""
        return self.start_time == 0 and self.end_time == 0

    @classmethod
    def closed(cls) -> DayWindow:
        """Return a closed day."""
        return cls(start_time=0, end_time=0)

    @classmethod
    def all_day(cls) -> DayWindow:
        """Return a day open from 0 to 2400."""
        return cls(start_time=0, end_time=END_OF_DAY)


def _window(value: DayWindow | Mapping[str, int]) -> DayWindow:
    # The annotation types ``WeeklyHours(mon=...)`` for mypy; the check below stays for callers
    # without a type checker.
    if isinstance(value, DayWindow):
        return value
    if isinstance(value, Mapping):
        return DayWindow(start_time=value.get("start_time", 0), end_time=value.get("end_time", 0))
    raise InvalidFormat(field="weekly_hours", expected="a DayWindow or a mapping", value=value)


@attrs.frozen(kw_only=True, cache_hash=True)
class WeeklyHours:
    """
    Weekly availability of a service or a resource: one :class:`DayWindow` per weekday.

    Its hash is worked out once (resources alike are told apart by their hours, issue 23).

    .. versionadded:: 0.1
    """

    sun: DayWindow = attrs.field(factory=DayWindow.closed, converter=_window)
    mon: DayWindow = attrs.field(factory=DayWindow.closed, converter=_window)
    tue: DayWindow = attrs.field(factory=DayWindow.closed, converter=_window)
    wed: DayWindow = attrs.field(factory=DayWindow.closed, converter=_window)
    thu: DayWindow = attrs.field(factory=DayWindow.closed, converter=_window)
    fri: DayWindow = attrs.field(factory=DayWindow.closed, converter=_window)
    sat: DayWindow = attrs.field(factory=DayWindow.closed, converter=_window)

    def on(self, day: Weekday) -> DayWindow:
        """Return the window of *day*."""
        window: DayWindow = getattr(self, day.value)
        return window

    def for_date(self, day: date) -> DayWindow:
        """Return the window that applies on the calendar date *day*."""
        window: DayWindow = getattr(self, _FIELD_BY_PYTHON[day.weekday()])
        return window

    def items(self) -> Iterator[tuple[Weekday, DayWindow]]:
        """Yield ``(weekday, window)`` from Sunday to Saturday."""
        for day in _ORDER:
            yield day, self.on(day)

    def with_days(
        self, changes: Mapping[Weekday | str, DayWindow | Mapping[str, int]]
    ) -> WeeklyHours:
        """Return a copy with the named days replaced; days not named keep their window."""
        updates: dict[str, Any] = {}
        for key, value in changes.items():
            name = key.value if isinstance(key, Weekday) else str(key)
            if name not in Weekday._value2member_map_:
                raise InvalidFormat(field="weekday", expected="one of sun..sat", value=key)
            updates[name] = _window(value)
        return attrs.evolve(self, **updates)

    @classmethod
    def every_day(cls, window: DayWindow) -> WeeklyHours:
        """Return hours with the same *window* on every day."""
        return cls(**{day.value: window for day in _ORDER})

    @classmethod
    def always(cls) -> WeeklyHours:
        """Return hours open 0..2400 every day (24x7)."""
        return cls.every_day(DayWindow.all_day())


def _normalise_day(value: DayHours | Mapping[str, Any]) -> DayHours:
    if isinstance(value, Mapping):
        value = DayHours(
            is_open=value.get("is_open", False),
            start_time=value.get("start_time", 0),
            end_time=value.get("end_time", 0),
            is_24_hours=value.get("is_24_hours", False),
        )
    if not isinstance(value, DayHours):
        raise InvalidFormat(field="business_hours", expected="a DayHours or a mapping", value=value)
    return value


def _check_open_window(instance: DayHours, _attribute: Any, _value: Any) -> None:
    if instance.is_24_hours:
        return
    validate_hhmm(instance.start_time, field="start_time")
    validate_hhmm(instance.end_time, field="end_time")
    if instance.is_open and not instance.is_24_hours and instance.start_time >= instance.end_time:
        # Named as the day's own field: the caller's path (business_hours.wed) is put before it.
        raise InvalidTimeRange(field="start_time", start=instance.start_time, end=instance.end_time)


@attrs.frozen(kw_only=True)
class DayHours:
    """
    One day of a location's business hours.

    A day with ``is_24_hours`` is stored open from 0 to 2400 whatever else was given.

    .. versionadded:: 0.1
    """

    is_open: bool = attrs.field(default=False, validator=check_bool)
    start_time: int = 0
    end_time: int = 0
    is_24_hours: bool = attrs.field(default=False, validator=[check_bool, _check_open_window])

    def __attrs_post_init__(self) -> None:
        # Spec: Location, "When is24Hours is true ... stores startTime 0, endTime 2400, isOpen
        # true regardless of input values".
        if self.is_24_hours:
            object.__setattr__(self, "is_open", True)
            object.__setattr__(self, "start_time", 0)
            object.__setattr__(self, "end_time", END_OF_DAY)

    @property
    def window(self) -> DayWindow:
        """Return the open window, or a closed one."""
        if not self.is_open:
            return DayWindow.closed()
        # Asked for on every searched date (each booking's check): one validated window per
        # distinct (start, end), not a new one each time (windows are immutable).
        key = (self.start_time, self.end_time)
        window = _OPEN_WINDOWS.get(key)
        if window is None:
            window = DayWindow(start_time=self.start_time, end_time=self.end_time)
            if len(_OPEN_WINDOWS) >= _OPEN_WINDOWS_LIMIT:
                _OPEN_WINDOWS.clear()
            _OPEN_WINDOWS[key] = window
        return window

    @classmethod
    def open(cls, start_time: int, end_time: int, /) -> DayHours:
        """Return a day open from *start_time* to *end_time*."""
        return cls(is_open=True, start_time=start_time, end_time=end_time)


_OPEN_WINDOWS: dict[tuple[int, int], DayWindow] = {}
_OPEN_WINDOWS_LIMIT = 4096


def _nine_to_five() -> DayHours:
    return DayHours.open(900, 1700)


@attrs.frozen(kw_only=True)
class BusinessHours:
    """
    A location's business hours, one :class:`DayHours` per weekday (default: 09:00-17:00 Mon-Fri).

    .. versionadded:: 0.1
    """

    sun: DayHours = attrs.field(factory=DayHours, converter=_normalise_day)
    mon: DayHours = attrs.field(factory=_nine_to_five, converter=_normalise_day)
    tue: DayHours = attrs.field(factory=_nine_to_five, converter=_normalise_day)
    wed: DayHours = attrs.field(factory=_nine_to_five, converter=_normalise_day)
    thu: DayHours = attrs.field(factory=_nine_to_five, converter=_normalise_day)
    fri: DayHours = attrs.field(factory=_nine_to_five, converter=_normalise_day)
    sat: DayHours = attrs.field(factory=DayHours, converter=_normalise_day)

    def on(self, day: Weekday) -> DayHours:
        """Return the hours of *day*."""
        hours: DayHours = getattr(self, day.value)
        return hours

    def for_date(self, day: date) -> DayHours:
        """Return the hours that apply on the calendar date *day*."""
        hours: DayHours = getattr(self, _FIELD_BY_PYTHON[day.weekday()])
        return hours

    def as_weekly(self) -> WeeklyHours:
        """Return these hours as weekly availability windows (closed days as ``0, 0``)."""
        return WeeklyHours(**{day.value: self.on(day).window for day in _ORDER})

    @classmethod
    def always(cls) -> BusinessHours:
        """Return hours open 24 hours every day."""
        day = DayHours(is_open=True, is_24_hours=True)
        return cls(**{name.value: day for name in _ORDER})
