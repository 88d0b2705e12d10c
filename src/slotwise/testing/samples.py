"""
Valid sample records of every kind, for store tests.

Each ``sample_<kind>()`` builds one record with most optional fields filled in (nested values,
enums, tuples, mappings, floats, dates, microseconds, non-ASCII text), so a store that drops or
mangles a field fails a round trip. Keyword arguments override any field.
:func:`sample_records` builds one record of every kind in ``slotwise.model.RECORD_KINDS``, with
every reference pointing at a record of the same list.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from slotwise.model import (
    AllocationTarget,
    ApiToken,
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Customer,
    CustomerKind,
    FieldDefinition,
    FieldKind,
    FieldType,
    FieldValue,
    Operation,
    OutboxEvent,
    QueuedReminder,
    Record,
    Subscription,
    Trigger,
)

from ._setup_samples import (
    CREATED,
    MODIFIED,
    sample_address,
    sample_allocation,
    sample_block,
    sample_calendar,
    sample_company,
    sample_location,
    sample_resource,
    sample_resource_group,
    sample_service,
    sample_service_group,
)

__all__ = [
    "sample_allocation",
    "sample_api_token",
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
        "address": sample_address("Damrak 70"),
        "timezone": "Europe/Stockholm",
        "notes": "Prefers mornings.\nAllergic to 🥜.",
        "created_at": CREATED,
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
        "plan_start": CREATED,
        "trial_period_start": CREATED,
        "trial_period_end": MODIFIED,
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
        "created_at": CREATED,
        "last_modified_at": MODIFIED,
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
        "due_at": CREATED,
        "sent_at": MODIFIED,
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
        "modified_on": MODIFIED,
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
        "created_at": CREATED,
        "delivered_at": MODIFIED,
    }
    fields.update(changes)
    return OutboxEvent(**fields)


def sample_api_token(*, id: str, company_id: str, **changes: Any) -> ApiToken:
    """
    Return a valid API token record (its hash is that of ``f"token-{id}"``), expiring later.

    .. versionadded:: 0.1
    """
    fields: dict[str, Any] = {
        "id": id,
        "company_id": company_id,
        "label": "Front desk — Åsa",
        "token_hash": hashlib.sha256(f"token-{id}".encode()).hexdigest(),
        "created_at": CREATED,
        "expires_at": MODIFIED.replace(year=2027),
    }
    fields.update(changes)
    return ApiToken(**fields)


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
            "token",
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
        sample_api_token(
            id=ids["token"], company_id=company_id, location_ids=frozenset({location_id})
        ),
    ]
    return records
