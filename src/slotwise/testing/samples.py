"""
Valid sample records of every kind, for store tests.

Each ``sample_<kind>()`` builds one record with most optional fields filled in (nested values,
enums, tuples, mappings, floats, dates, microseconds, non-ASCII text), so a store that drops or
mangles a field fails a round trip. Keyword arguments override any field.
:func:`sample_records` builds one record of every kind in ``slotwise.model.RECORD_KINDS``, with
every reference pointing at a record of the same list.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from slotwise.model import (
    OPEN_END,
    Address,
    Allocation,
    AllocationTarget,
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Block,
    BlockTarget,
    BookingWindow,
    BusinessHours,
    Calendar,
    CalendarProvider,
    Company,
    Customer,
    CustomerKind,
    DayHours,
    DayWindow,
    FieldDefinition,
    FieldKind,
    FieldType,
    FieldValue,
    Frequency,
    Holiday,
    Location,
    LocationSettings,
    MonthType,
    Operation,
    OutboxEvent,
    PhoneNumbers,
    QueuedReminder,
    Record,
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
    Subscription,
    Trigger,
    WeeklyHours,
)

__all__ = [
    "sample_allocation",
    "sample_appointment",
    "sample_audit_entry",
    "sample_block",
    "sample_calendar",
    "sample_company",
    "sample_customer",
    "sample_field_definition",
    "sample_location",
    "sample_outbox_event",
    "sample_queued_reminder",
    "sample_records",
    "sample_resource",
    "sample_resource_group",
    "sample_service",
    "sample_service_group",
    "sample_subscription",
]

# Instants carry microseconds: SystemClock produces them, so every store must keep them.
_CREATED = datetime(2026, 1, 5, 9, 30, 15, 123456, tzinfo=UTC)
_MODIFIED = datetime(2026, 1, 6, 17, 45, 0, 654321, tzinfo=UTC)

_WORKDAYS = WeeklyHours(
    mon=DayWindow(start_time=800, end_time=1800),
    tue=DayWindow(start_time=800, end_time=1800),
    wed=DayWindow(start_time=1000, end_time=2400),
    thu=DayWindow(start_time=0, end_time=1230),
    fri=DayWindow(start_time=800, end_time=1700),
)


def _address(line1: str) -> Address:
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
        "address": _address("Keizersgracht 1"),
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
        "address": _address("Prinsengracht 263"),
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


def sample_customer(*, id: str, company_id: str, **changes: Any) -> Customer:
    """
    Return a valid person customer.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "kind": CustomerKind.PERSON,
        "first_name": "Åsa",
        "last_name": "O'Brien",
        "email": "asa@example.com",
        "phone": "+46701234567",
        "phone_type": "mobile",
        "address": _address("Damrak 70"),
        "timezone": "Europe/Stockholm",
        "notes": "Prefers mornings.\nAllergic to 🥜.",
        "created_at": _CREATED,
    }
    fields.update(changes)
    return Customer(**fields)


def sample_subscription(
    *, id: str, company_id: str, customer_id: str, **changes: Any
) -> Subscription:
    """
    Return a valid subscription of *customer_id* to a plan with a trial.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "customer_id": customer_id,
        "customer_plan_id": "gold",
        "customer_plan_name": "Gold — monthly",
        "plan_start": _CREATED,
        "trial_period_start": _CREATED,
        "trial_period_end": _MODIFIED,
    }
    fields.update(changes)
    return Subscription(**fields)


def sample_field_definition(
    *, id: str, company_id: str, location_id: str, **changes: Any
) -> FieldDefinition:
    """
    Return a valid select-type custom field definition.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "kind": FieldKind.CUSTOM,
        "name": "field3",
        "label": "Allergies",
        "type": FieldType.SELECT,
        "required": True,
        "choices": ("none", "nuts", "gluten"),
        "sort_order": 2,
    }
    fields.update(changes)
    return FieldDefinition(**fields)


def sample_appointment(
    *,
    id: str,
    company_id: str,
    location_id: str,
    service_id: str,
    start: datetime,
    end: datetime,
    **changes: Any,
) -> Appointment:
    """
    Return a valid booked appointment from *start* to *end* with customer details filled in.

    ``resource_ids`` defaults to none; ``calendar_id`` and ``customer_id`` to ``None``.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "service_id": service_id,
        "status": AppointmentStatus.BOOKED,
        "start": start,
        "end": end,
        "group_size": 2,
        "created_at": _CREATED,
        "last_modified_at": _MODIFIED,
        "last_modified_by": "desk@example.com",
        "confirmation_number": f"CONF-{id}",
        "booked_by": "Front desk",
        "online_booking": False,
        "confirmed": True,
        "email": "asa@example.com",
        "first_name": "Åsa",
        "last_name": "O'Brien",
        "phone": "+46701234567",
        "customer_message": "Running 5 minutes late — sorry!",
        "payment_status": 1,
        "custom_fields": {"field3": "nuts"},
        "appointment_booking_fields": (FieldValue(name="Parking", value="yes"),),
        "customer_booking_fields": (FieldValue(name="Referral", value="a friend"),),
        "idempotency_key": f"key-{id}",
    }
    fields.update(changes)
    return Appointment(**fields)


def sample_queued_reminder(
    *, id: str, company_id: str, location_id: str, appointment_id: str, **changes: Any
) -> QueuedReminder:
    """
    Return a valid second SMS reminder of *appointment_id*, already sent.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "appointment_id": appointment_id,
        "channel": "sms",
        "ordinal": 2,
        "due_at": _CREATED,
        "sent_at": _MODIFIED,
    }
    fields.update(changes)
    return QueuedReminder(**fields)


def sample_audit_entry(
    *, id: str, company_id: str, location_id: str, appointment_id: str, **changes: Any
) -> AuditEntry:
    """
    Return a valid audit entry: *appointment_id* rescheduled (BK to RE).

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "location_id": location_id,
        "appointment_id": appointment_id,
        "operation": Operation.RESCHEDULE,
        "modified_on": _MODIFIED,
        "modified_by": "Zoë at the front desk",
        "status_before": AppointmentStatus.BOOKED,
        "status_after": AppointmentStatus.RESCHEDULED,
    }
    fields.update(changes)
    return AuditEntry(**fields)


def sample_outbox_event(
    *, id: str, company_id: str, entity_id: str, sequence: int, **changes: Any
) -> OutboxEvent:
    """
    Return a valid, delivered booking event whose payload nests every JSON type.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "sequence": sequence,
        "trigger": Trigger.BOOKING_CONFIRMATION,
        "entity_id": entity_id,
        "payload": {
            "appointment": {
                "id": entity_id,
                "name": "Åsa O'Brien — 東京",
                "group_size": 2,
                "fee": 49.95,
                "confirmed": True,
                "rescheduled_id": None,
                "resource_ids": ["r-1", "r-2"],
                "start": "2026-03-03T14:00:00+00:00",
            },
            "customer": None,
            "resources": [{"id": "r-1", "name": "Dr. Ana Müller"}],
            "empty": {},
            "nothing": [],
        },
        "created_at": _CREATED,
        "delivered_at": _MODIFIED,
    }
    fields.update(changes)
    return OutboxEvent(**fields)


def sample_records(
    *, company_id: str, location_id: str, prefix: str, with_company: bool = True
) -> list[Record]:
    """
    Return one record of every kind, in ``RECORD_KINDS`` order, all of one company and location.

    Ids are ``f"{prefix}-{kind}"`` (``prefix-calendar``, ``prefix-service``, ...); every id a record
    names belongs to a record of the list, so a store that enforces references within a unit
    of work accepts the list inserted in one unit of work.

    Args:
        company_id: the company's id (and the id of the company record).
        location_id: the location's id.
        prefix: starts every other id, so several lists can share a store.
        with_company: leave the company record out when ``False`` (for a second location of an
            already stored company).

    .. versionadded:: 0.1
    """
    ids = {
        kind: f"{prefix}-{kind}"
        for kind in (
            "calendar",
            "service",
            "service-group",
            "resource",
            "resource-group",
            "block",
            "allocation",
            "customer",
            "subscription",
            "field",
            "appointment",
            "reminder",
            "audit",
            "event",
        )
    }
    where: dict[str, Any] = {"company_id": company_id, "location_id": location_id}
    records: list[Record] = []
    if with_company:
        records.append(sample_company(id=company_id))
    records += [
        sample_location(
            id=location_id,
            company_id=company_id,
            is_primary=with_company,
            primary_calendar_id=ids["calendar"],
        ),
        sample_calendar(id=ids["calendar"], **where),
        sample_service(id=ids["service"], service_group_id=ids["service-group"], **where),
        sample_service_group(id=ids["service-group"], **where),
        sample_resource(
            id=ids["resource"],
            group_id=ids["resource-group"],
            linked_service_ids=(ids["service"],),
            **where,
        ),
        sample_resource_group(id=ids["resource-group"], **where),
        sample_block(id=ids["block"], target_id=ids["resource"], **where),
        sample_allocation(
            id=ids["allocation"],
            target=AllocationTarget.SERVICE,
            target_id=ids["service"],
            **where,
        ),
        sample_customer(id=ids["customer"], company_id=company_id),
        sample_subscription(
            id=ids["subscription"], company_id=company_id, customer_id=ids["customer"]
        ),
        sample_field_definition(id=ids["field"], **where),
        sample_appointment(
            id=ids["appointment"],
            service_id=ids["service"],
            calendar_id=ids["calendar"],
            customer_id=ids["customer"],
            resource_ids=(ids["resource"],),
            start=datetime(2026, 3, 3, 14, 0, tzinfo=UTC),
            end=datetime(2026, 3, 3, 14, 45, tzinfo=UTC),
            **where,
        ),
        sample_queued_reminder(id=ids["reminder"], appointment_id=ids["appointment"], **where),
        sample_audit_entry(id=ids["audit"], appointment_id=ids["appointment"], **where),
        sample_outbox_event(
            id=ids["event"],
            company_id=company_id,
            entity_id=ids["appointment"],
            location_id=location_id,
            # Unique per prefix: a store may keep sequence numbers unique.
            sequence=int.from_bytes(prefix.encode(), "big") % 1_000_000_007 + 1,
        ),
    ]
    return records
