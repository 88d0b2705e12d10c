"""
Companies and their locations: business hours, holidays, settings and the reminder schedule.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any, Literal

import attrs

from slotwise.errors import FieldRequired, InconsistentFields, InvalidFormat, OutOfRange

from ._checks import (
    LATITUDE,
    LONGITUDE,
    check_bool,
    check_choice,
    check_date,
    check_email,
    check_int,
    check_number,
    check_phone,
    check_text,
    check_url,
    check_zone,
    str_tuple,
    to_enum,
)
from ._enum import SpecEnum
from .hours import BusinessHours

__all__ = [
    "Address",
    "BookingWindow",
    "Company",
    "Holiday",
    "Location",
    "LocationSettings",
    "Reminder",
    "ReminderSchedule",
    "ReminderUnit",
    "SettingsScope",
    "TimeUnit",
]

LOCATION_NAME_MAX = 50
COMPANY_NAME_MAX = 255
TEXT_MAX = 255
LONG_TEXT_MAX = 4000

TimeUnit = Literal["days", "weeks", "months"]
"""Unit of the book-ahead restriction."""

# Decision (docs/semantics.md, "Book-ahead horizon"): the horizon is capped at about two years
# in each unit, which also bounds the work of one availability query.
BOOK_AHEAD_MAX: dict[str, int] = {"days": 730, "weeks": 104, "months": 24}


def _check_book_ahead(instance: BookingWindow, _attribute: Any, _value: Any) -> None:
    limit = BOOK_AHEAD_MAX[instance.book_ahead_unit]
    if not 1 <= instance.book_ahead_value <= limit:
        raise OutOfRange(
            field="book_ahead_value",
            allowed=f"between 1 and {limit} {instance.book_ahead_unit}",
            requested=instance.book_ahead_value,
        )


@attrs.frozen(kw_only=True)
class BookingWindow:
    """
    How far ahead and how soon a slot may be booked.

    ``book_ahead_value`` + ``book_ahead_unit``: slots starting later than now + that span are not
    offered (default 1 week). ``book_in_advance_mins``: minimum lead time (default 0).

    .. versionadded:: 0.1
    """

    book_ahead_unit: TimeUnit = attrs.field(
        default="weeks", validator=check_choice("days", "weeks", "months")
    )
    book_ahead_value: int = attrs.field(default=1, validator=[check_int(), _check_book_ahead])
    book_in_advance_mins: int = attrs.field(default=0, validator=check_int(low=0, high=525_600))


@attrs.frozen(kw_only=True)
class Address:
    """
    A postal address.

    .. versionadded:: 0.1
    """

    address_line1: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    address_line2: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    city: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    state: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    country: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    postal_code: str | None = attrs.field(default=None, validator=check_text(max_len=32))


def _to_business_user_emails(value: Iterable[str]) -> tuple[str, ...]:
    return str_tuple(value, field="business_user_emails")


def _to_urls(value: Iterable[str]) -> tuple[str, ...]:
    return str_tuple(value, field="disabled_webhook_urls")


def _check_disabled_urls(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if len(value) > 3:
        raise OutOfRange(field=attribute.name, allowed="at most 3 URLs", requested=len(value))
    for url in value:
        check_url(instance, attribute, url)


@attrs.frozen(kw_only=True)
class Company:
    """
    A business: the tenant that owns every other record.

    .. versionadded:: 0.1
    """

    id: str
    name: str = attrs.field(validator=check_text(max_len=COMPANY_NAME_MAX, required=True))
    timezone: str = attrs.field(validator=check_zone)
    email: str | None = attrs.field(default=None, validator=check_email)
    phone: str | None = attrs.field(default=None, validator=check_phone)
    website: str | None = attrs.field(default=None, validator=check_url)
    booking_webhook_url: str | None = attrs.field(default=None, validator=check_url)
    customer_webhook_url: str | None = attrs.field(default=None, validator=check_url)
    reminder_webhook_url: str | None = attrs.field(default=None, validator=check_url)
    meeting_webhook_url: str | None = attrs.field(default=None, validator=check_url)
    """Called when an appointment is booked; answers ``{"meetingUrl"}`` (spec: Events 3)."""
    webhook_signature_hash: str | None = attrs.field(
        default=None, validator=check_text(max_len=TEXT_MAX)
    )
    notifications_disabled: bool = attrs.field(default=False, validator=check_bool)
    """True when the company has e-mail and SMS notifications disabled (skips e-mail checks)."""
    business_user_emails: tuple[str, ...] = attrs.field(
        default=(), converter=_to_business_user_emails
    )
    disabled_webhook_urls: tuple[str, ...] = attrs.field(
        default=(), converter=_to_urls, validator=_check_disabled_urls
    )
    """Webhook URLs that answered 410 Gone: nothing is sent to them until re-enabled (decision 38)."""

    @property
    def company_id(self) -> str:
        """Return the company's own id: a company is its own tenant."""
        return self.id


@attrs.frozen(kw_only=True)
class Holiday:
    """
    A date a location is closed.

    .. versionadded:: 0.1
    """

    date: date = attrs.field(validator=check_date)
    name: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    public_holiday_id: str | None = attrs.field(
        default=None, validator=check_text(max_len=TEXT_MAX)
    )


class SettingsScope(SpecEnum):
    """
    Whether a location uses its own settings or the company's (the primary location's).

    .. versionadded:: 0.1
    """

    COMPANY = "company"
    LOCATION = "location"


def _to_settings_scope(value: object) -> SettingsScope:
    # Named converter: an unknown code raises InvalidChoice naming the field, not a bare ValueError.
    return to_enum(SettingsScope, value, field="settings_scope")


@attrs.frozen(kw_only=True)
class LocationSettings:
    """
    A location's booking settings.

    Deprecated internal-use flags (spec: Versioning 3) are kept so records round-trip.

    .. versionadded:: 0.1
    """

    booking_timer_mins: int = attrs.field(default=10, validator=check_int(low=1, high=1440))
    booking_window: BookingWindow = attrs.field(factory=BookingWindow)
    customer_bookings_per_day: int = attrs.field(default=0, validator=check_int(low=0, high=1000))
    """Active bookings one customer may have per location day; 0 means no limit."""
    late_cancel_hours: int = attrs.field(default=0, validator=check_int(low=0, high=8760))
    late_cancel_action: int = attrs.field(default=0, validator=check_int(low=0, high=10))
    late_reschedule_hours: int = attrs.field(default=0, validator=check_int(low=0, high=8760))
    late_reschedule_action: int = attrs.field(default=0, validator=check_int(low=0, high=10))
    booking_policy: str | None = attrs.field(
        default=None, validator=check_text(max_len=LONG_TEXT_MAX)
    )
    booking_message: str | None = attrs.field(
        default=None, validator=check_text(max_len=LONG_TEXT_MAX)
    )
    booking_confirmation_message: str | None = attrs.field(
        default=None, validator=check_text(max_len=LONG_TEXT_MAX)
    )
    book_with_account: bool = attrs.field(default=False, validator=check_bool)
    customer_verification: bool = attrs.field(default=False, validator=check_bool)
    default_service: bool = attrs.field(default=False, validator=check_bool)
    first_available: bool = attrs.field(default=False, validator=check_bool)
    enable_world_timezones: bool = attrs.field(default=False, validator=check_bool)
    default_to_customer_timezone: bool = attrs.field(default=False, validator=check_bool)
    # Deprecated, internal-use (spec: Versioning 3); stored and returned, never acted on.
    enabled: bool = attrs.field(default=True, validator=check_bool)
    family_members_enabled: bool = attrs.field(default=False, validator=check_bool)
    service_label: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    resource_label: str | None = attrs.field(default=None, validator=check_text(max_len=TEXT_MAX))
    resource_any_label: str | None = attrs.field(
        default=None, validator=check_text(max_len=TEXT_MAX)
    )
    resource_selection: bool = attrs.field(default=True, validator=check_bool)
    live_mode: bool = attrs.field(default=True, validator=check_bool)
    form_flow: int = attrs.field(default=0, validator=check_int(low=0, high=100))
    availability_form: int = attrs.field(default=0, validator=check_int(low=0, high=100))
    show_service_groups: bool = attrs.field(default=False, validator=check_bool)
    show_platform_logo: bool = attrs.field(default=True, validator=check_bool)
    show_business_logo: bool = attrs.field(default=True, validator=check_bool)
    disable_authorization: bool = attrs.field(default=False, validator=check_bool)
    hide_nav_bar: bool = attrs.field(default=False, validator=check_bool)
    hide_location_nav: bool = attrs.field(default=False, validator=check_bool)
    hide_service_groups_nav: bool = attrs.field(default=False, validator=check_bool)
    hide_services_nav: bool = attrs.field(default=False, validator=check_bool)
    hide_continue_booking: bool = attrs.field(default=False, validator=check_bool)
    return_to_service: bool = attrs.field(default=False, validator=check_bool)
    return_to_availability: bool = attrs.field(default=False, validator=check_bool)
    hide_bread_crumb_nav: bool = attrs.field(default=False, validator=check_bool)


ReminderUnit = Literal["minutes", "hours", "days", "weeks"]
"""Unit of a reminder's lead time."""

_REMINDER_LIMITS: dict[str, int] = {"minutes": 1440, "hours": 24, "days": 30, "weeks": 8}
_MINUTES_PER_UNIT: dict[str, int] = {"minutes": 1, "hours": 60, "days": 1440, "weeks": 10080}


def _check_reminder_value(instance: Reminder, _attribute: Any, _value: Any) -> None:
    limit = _REMINDER_LIMITS[instance.unit]
    # bool is an int subclass; True is no reminder lead time.
    value = instance.value
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
        raise OutOfRange(
            field="value",
            allowed=f"between 1 and {limit} {instance.unit}",
            requested=instance.value,
        )


@attrs.frozen(kw_only=True)
class Reminder:
    """
    One reminder: sent ``value`` ``unit`` before the appointment starts.

    Minutes run 1..1440 (decision 47: a reminder half an hour before), hours 1..24 (decision
    28), days 1..30, weeks 1..8.

    .. versionadded:: 0.1
    .. versionchanged:: 0.1
       ``minutes`` added (decision 47).
    """

    unit: ReminderUnit = attrs.field(validator=check_choice("minutes", "hours", "days", "weeks"))
    value: int = attrs.field(validator=_check_reminder_value)

    @property
    def lead_minutes(self) -> int:
        """Return how many minutes before the start this reminder is due."""
        return self.value * _MINUTES_PER_UNIT[self.unit]


def _check_order(first: Reminder | None, second: Reminder | None, channel: str) -> None:
    # Decision 28: the second reminder comes later, i.e. closer to the start, than the first.
    if second is None:
        return
    if first is None:
        raise FieldRequired(field=f"{channel}_first")
    if second.lead_minutes >= first.lead_minutes:
        raise InconsistentFields(
            f"{channel}_second ({second.value} {second.unit} before) must come after "
            f"{channel}_first ({first.value} {first.unit} before)",
            field=f"{channel}_second",
        )


@attrs.frozen(kw_only=True)
class ReminderSchedule:
    """
    A location's appointment-reminder schedule: a first and second e-mail and SMS reminder.

    .. versionadded:: 0.1
    """

    email_first: Reminder | None = None
    email_second: Reminder | None = None
    sms_first: Reminder | None = None
    sms_second: Reminder | None = None

    def __attrs_post_init__(self) -> None:
        _check_order(self.email_first, self.email_second, "email")
        _check_order(self.sms_first, self.sms_second, "sms")


def _holidays(values: Iterable[Holiday]) -> tuple[Holiday, ...]:
    return tuple(sorted(values, key=lambda holiday: holiday.date))


def _check_friendly_id(_instance: Any, _attribute: Any, value: Any) -> None:
    if value is None:
        return
    if (
        not isinstance(value, str)
        or not value
        or len(value) > 64
        or not all(ch.isalnum() or ch in "-_" for ch in value)
    ):
        raise InvalidFormat(
            field="friendly_id",
            expected="1 to 64 letters, digits, '-' or '_'",
            value=value,
        )


@attrs.frozen(kw_only=True)
class Location:
    """
    A business location: hours, holidays, settings and a primary calendar.

    ``timezone`` defaults to the company's (decision 1). ``settings_scope`` ``COMPANY`` makes the
    location use the primary location's settings.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    name: str = attrs.field(validator=check_text(max_len=LOCATION_NAME_MAX, required=True))
    timezone: str = attrs.field(validator=check_zone)
    is_primary: bool = attrs.field(default=False, validator=check_bool)
    friendly_id: str | None = attrs.field(default=None, validator=_check_friendly_id)
    phone: str | None = attrs.field(default=None, validator=check_phone)
    fax: str | None = attrs.field(default=None, validator=check_phone)
    email: str | None = attrs.field(default=None, validator=check_email)
    website: str | None = attrs.field(default=None, validator=check_url)
    logo: str | None = attrs.field(default=None, validator=check_url)
    address: Address = attrs.field(factory=Address)
    latitude: float | None = attrs.field(
        default=None, validator=check_number(low=LATITUDE[0], high=LATITUDE[1], optional=True)
    )
    longitude: float | None = attrs.field(
        default=None, validator=check_number(low=LONGITUDE[0], high=LONGITUDE[1], optional=True)
    )
    business_hours: BusinessHours = attrs.field(factory=BusinessHours)
    holidays: tuple[Holiday, ...] = attrs.field(default=(), converter=_holidays)
    settings: LocationSettings = attrs.field(factory=LocationSettings)
    settings_scope: SettingsScope = attrs.field(
        default=SettingsScope.LOCATION, converter=_to_settings_scope
    )
    reminders: ReminderSchedule = attrs.field(factory=ReminderSchedule)
    primary_calendar_id: str | None = None

    def is_holiday(self, day: date) -> bool:
        """Tell whether *day* is one of this location's holidays."""
        return any(holiday.date == day for holiday in self.holidays)
