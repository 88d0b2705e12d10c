"""
Valid sample records of the business's setup (company, locations, calendars, services,
resources, their groups, blocks and allocations), re-exported by :mod:`slotwise.testing.samples`.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from slotwise.model import (
    OPEN_END,
    Address,
    Allocation,
    AllocationTarget,
    Block,
    BlockTarget,
    BookingWindow,
    BusinessHours,
    Calendar,
    CalendarProvider,
    Company,
    DayHours,
    DayWindow,
    Frequency,
    Holiday,
    Location,
    LocationSettings,
    MonthType,
    PhoneNumbers,
    Reminder,
    ReminderSchedule,
    RepeatRule,
    Resource,
    ResourceGroup,
    ResourceOptions,
    RoundRobin,
    Service,
    ServiceGroup,
    ServiceScope,
    WeeklyHours,
)

__all__ = [
    "CREATED",
    "MODIFIED",
    "sample_address",
    "sample_allocation",
    "sample_block",
    "sample_calendar",
    "sample_company",
    "sample_location",
    "sample_resource",
    "sample_resource_group",
    "sample_service",
    "sample_service_group",
]

# Instants carry microseconds: SystemClock produces them, so every store must keep them.
CREATED = datetime(2026, 1, 5, 9, 30, 15, 123456, tzinfo=UTC)
MODIFIED = datetime(2026, 1, 6, 17, 45, 0, 654321, tzinfo=UTC)

_WORKDAYS = WeeklyHours(
    mon=DayWindow(start_time=800, end_time=1800),
    tue=DayWindow(start_time=800, end_time=1800),
    wed=DayWindow(start_time=1000, end_time=2400),
    thu=DayWindow(start_time=0, end_time=1230),
    fri=DayWindow(start_time=800, end_time=1700),
)


def sample_address(line1: str) -> Address:
    """Return a full Amsterdam address starting with *line1*."""
    return Address(
        address_line1=line1,
        address_line2="2e verdieping",
        city="Amsterdam",
        state="Noord-Holland",
        country="NL",
        postal_code="1015 CJ",
    )


def sample_company(*, id: str, **changes: Any) -> Company:
    """
    Return a valid company; a company's ``company_id`` is its own ``id``.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "name": "Zoë's Spa & Co — 東京",
        "timezone": "America/New_York",
        "email": "owner@example.com",
        "phone": "+1 212 555 0100",
        "website": "https://example.com/spa",
        "booking_webhook_url": "https://hooks.example.com/booking",
        "customer_webhook_url": "https://hooks.example.com/customer",
        "webhook_signature_hash": "sha256",
        "notifications_disabled": True,
        "business_user_emails": ("owner@example.com", "desk@example.com"),
    }
    fields.update(changes)
    return Company(**fields)


def sample_location(*, id: str, company_id: str, **changes: Any) -> Location:
    """
    Return a valid location with hours, holidays, settings and reminders filled in.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "name": "Downtown — Straße 1",
        "timezone": "Europe/Amsterdam",
        "is_primary": True,
        "friendly_id": f"{id}-front",
        "phone": "0201234567",
        "email": "front@example.com",
        "website": "https://example.com/downtown",
        "address": sample_address("Keizersgracht 1"),
        "latitude": 52.3676,
        "longitude": 4.9041,
        "business_hours": BusinessHours(
            sat=DayHours.open(1000, 1400), sun=DayHours(is_open=True, is_24_hours=True)
        ),
        "holidays": (
            Holiday(date=date(2026, 12, 25), name="Christmas"),
            Holiday(date=date(2026, 4, 27), name="King's Day", public_holiday_id="nl-koningsdag"),
        ),
        "settings": LocationSettings(
            booking_timer_mins=15,
            booking_window=BookingWindow(
                book_ahead_unit="months", book_ahead_value=3, book_in_advance_mins=120
            ),
            customer_bookings_per_day=2,
            booking_policy="Cancel 24 h ahead.\nNo refunds after that.",
            first_available=True,
            resource_label="Stylist",
        ),
        "reminders": ReminderSchedule(
            email_first=Reminder(unit="days", value=2),
            email_second=Reminder(unit="hours", value=3),
            sms_first=Reminder(unit="hours", value=24),
        ),
    }
    fields.update(changes)
    return Location(**fields)


def sample_calendar(*, id: str, company_id: str, location_id: str, **changes: Any) -> Calendar:
    """
    Return a valid calendar.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "name": "Main calendar",
        "type": "service",
        "primary": True,
        "interval": 30,
        "bookings_per_slot": 3,
        "availability": _WORKDAYS,
    }
    fields.update(changes)
    return Calendar(**fields)


def sample_service(*, id: str, company_id: str, location_id: str, **changes: Any) -> Service:
    """
    Return a valid service with durations, fees, limits, options and hours filled in.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "name": "Haircut & colour",
        "duration": 45,
        "scope": ServiceScope.LOCATION,
        "description": "Cut, wash and colour.",
        "image_url": "https://example.com/cut.png",
        "duration_select": True,
        "duration_min": 15,
        "duration_max": 60,
        "duration_interval": 15,
        "padding": 10,
        "consumer_padding": True,
        "booking_interval": 15,
        "fee_amount": 49.95,
        "fee_taxable": True,
        "cancellation_fee_amount": 10.5,
        "booking_limit": 2,
        "max_capacity": 8,
        "max_group_size": 4,
        "daily_booking_limit_count": 6,
        "daily_booking_limit_minutes": 300,
        "round_robin": RoundRobin.RANDOM,
        "booking_window": BookingWindow(book_ahead_unit="days", book_ahead_value=30),
        "availability": WeeklyHours.every_day(DayWindow(start_time=900, end_time=1700)),
        "options": {"color": "#3366ff", "priority": 2, "online": True},
        "reason": "seasonal",
    }
    fields.update(changes)
    return Service(**fields)


def sample_service_group(
    *, id: str, company_id: str, location_id: str | None, **changes: Any
) -> ServiceGroup:
    """
    Return a valid service group.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "name": "Hair",
        "description": "Everything hair.",
        "label": "Popular",
        "image_url": "https://example.com/hair.png",
    }
    fields.update(changes)
    return ServiceGroup(**fields)


def sample_resource(*, id: str, company_id: str, location_id: str, **changes: Any) -> Resource:
    """
    Return a valid resource in a zone other than its location's.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "name": "Dr. Ana Müller",
        "timezone": "America/New_York",
        "email": "ana@example.com",
        "description": "Senior stylist.",
        "image_url": "https://example.com/ana.png",
        "skype_name": "ana.mueller",
        "phone": PhoneNumbers(phone_type="mobile", mobile_phone="+31612345678"),
        "address": sample_address("Prinsengracht 263"),
        "options": ResourceOptions(
            effective_date="2026-01-01",
            display_color="#ff0000",
            ignore_business_hours=True,
            gender="f",
            hourly=45.5,
            calendar_availability=1,
            sort_key=-3,
            bio_link="https://example.com/ana",
        ),
        "provider_a": CalendarProvider(
            calendar_id="ana@example.com", auth_url="https://auth.example.com/a", authorized=True
        ),
        "weekly_hours": _WORKDAYS,
        "reason": "part-time",
    }
    fields.update(changes)
    return Resource(**fields)


def sample_resource_group(
    *, id: str, company_id: str, location_id: str | None, **changes: Any
) -> ResourceGroup:
    """
    Return a valid resource group.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "name": "Stylists",
        "description": "Everyone with scissors.",
    }
    fields.update(changes)
    return ResourceGroup(**fields)


def sample_block(
    *, id: str, company_id: str, location_id: str, target_id: str, **changes: Any
) -> Block:
    """
    Return a valid open-ended, fortnightly block of a resource (``target`` may be changed).

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "target": BlockTarget.RESOURCE,
        "target_id": target_id,
        "start_date": date(2026, 3, 2),
        "end_date": OPEN_END,
        "start_time": 1200,
        "end_time": 1330,
        "reason": "Lunch",
        "repeat": RepeatRule(frequency=Frequency.WEEKLY, interval=2, weekdays="135"),
    }
    fields.update(changes)
    return Block(**fields)


def sample_allocation(
    *, id: str, company_id: str, location_id: str, target_id: str, **changes: Any
) -> Allocation:
    """
    Return a valid monthly allocation of a resource (``target`` may be changed).

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "target": AllocationTarget.RESOURCE,
        "target_id": target_id,
        "start_date": date(2026, 4, 1),
        "end_date": date(2026, 6, 30),
        "start_time": 900,
        "end_time": 1200,
        "reason": "Saturday clinic",
        "repeat": RepeatRule(
            frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY, month_day=43
        ),
        "booking_limit": 5,
    }
    fields.update(changes)
    return Allocation(**fields)
