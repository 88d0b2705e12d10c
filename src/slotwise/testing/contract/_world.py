"""
The small world every contract test starts from: two companies, their locations,
services and resources, and builders of the records a test adds.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast

import attrs

from slotwise.model import (
    Allocation,
    ApiToken,
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Block,
    Calendar,
    Company,
    Customer,
    FieldDefinition,
    Location,
    Operation,
    OutboxEvent,
    QueuedReminder,
    Record,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
    Subscription,
    Trigger,
)
from slotwise.storage.protocol import R, Reader
from slotwise.testing.samples import (
    sample_allocation,
    sample_appointment,
    sample_block,
    sample_calendar,
    sample_company,
    sample_location,
    sample_records,
    sample_resource,
    sample_service,
)

# -- a small world every test starts from ---------------------------------------------------

CO_A, CO_B = "co-a", "co-b"
LOC_A1, LOC_A2, LOC_B1 = "loc-a1", "loc-a2", "loc-b1"
SVC_A1, SVC_A2, SVC_B1 = "svc-a1", "svc-a2", "svc-b1"
RES_1, RES_2, RES_3 = "res-1", "res-2", "res-3"  # at loc-a1
RES_4 = "res-4"  # at loc-a2
RES_B = "res-b"  # at loc-b1

_COMPANY_OF = {LOC_A1: CO_A, LOC_A2: CO_A, LOC_B1: CO_B}
_SERVICE_OF = {LOC_A1: SVC_A1, LOC_A2: SVC_A2, LOC_B1: SVC_B1}

_DAY = date(2026, 3, 10)
"""Appointment tests happen on this day (a Tuesday, before Europe's DST change)."""

_WINDOW_KINDS: tuple[tuple[type[Block] | type[Allocation], str], ...] = (
    (Block, "blocks_touching"),
    (Allocation, "allocations_touching"),
)

_DELETE_ORDER: tuple[type[Any], ...] = (
    ApiToken,
    OutboxEvent,
    AuditEntry,
    QueuedReminder,
    Appointment,
    FieldDefinition,
    Subscription,
    Customer,
    Allocation,
    Block,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
    Calendar,
    Location,
    Company,
)
"""Record kinds, children before the records they name."""

_CHANGE_FIELD: dict[type[Any], str] = {
    ApiToken: "label",
    Company: "name",
    Location: "name",
    Calendar: "name",
    Service: "name",
    ServiceGroup: "name",
    Resource: "name",
    ResourceGroup: "name",
    Block: "reason",
    Allocation: "reason",
    Customer: "notes",
    Subscription: "customer_plan_name",
    FieldDefinition: "label",
    Appointment: "booked_by",
    AuditEntry: "modified_by",
}
"""A text field of each kind that an update may change freely (see also :func:`_changed`)."""


def _bare_world() -> list[Record]:
    """Two companies, three locations, their services and five resources; nothing else."""
    records: list[Record] = [sample_company(id=CO_A), sample_company(id=CO_B)]
    for location_id, company_id in _COMPANY_OF.items():
        calendar_id = f"cal-{location_id}"
        where: dict[str, Any] = {"company_id": company_id, "location_id": location_id}
        records += [
            sample_location(
                id=location_id,
                company_id=company_id,
                is_primary=location_id != LOC_A2,
                primary_calendar_id=calendar_id,
            ),
            sample_calendar(id=calendar_id, **where),
            sample_service(id=_SERVICE_OF[location_id], **where),
        ]
    for resource_id, location_id in (
        (RES_1, LOC_A1),
        (RES_2, LOC_A1),
        (RES_3, LOC_A1),
        (RES_4, LOC_A2),
        (RES_B, LOC_B1),
    ):
        records.append(
            sample_resource(
                id=resource_id, company_id=_COMPANY_OF[location_id], location_id=location_id
            )
        )
    return records


def _full_world() -> list[Record]:
    """Every kind three times: two locations of company A and one of company B."""
    return [
        *sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1"),
        *sample_records(company_id=CO_A, location_id=LOC_A2, prefix="a2", with_company=False),
        *sample_records(company_id=CO_B, location_id=LOC_B1, prefix="b1"),
    ]


def _minimal_world() -> list[Record]:
    """One record of every kind with only its required fields (optional ones left ``None``)."""
    where: dict[str, Any] = {"company_id": "co-min", "location_id": "loc-min"}
    start = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
    return [
        Company(id="co-min", name="M", timezone="UTC"),
        Location(id="loc-min", company_id="co-min", name="M", timezone="UTC"),
        Calendar(id="min-calendar", name="M", **where),
        Service(id="min-service", name="M", duration=1, **where),
        ServiceGroup(id="min-service-group", company_id="co-min", name="M"),
        Resource(id="min-resource", name="M", timezone="UTC", **where),
        ResourceGroup(id="min-resource-group", company_id="co-min", name="M"),
        Block(
            id="min-block",
            target="calendar",
            target_id="min-calendar",
            start_date=date(2026, 3, 3),
            end_date=date(2026, 3, 3),
            **where,
        ),
        Allocation(
            id="min-allocation",
            target="resource",
            target_id="min-resource",
            start_date=date(2026, 3, 3),
            end_date=date(2026, 3, 3),
            **where,
        ),
        # An empty string must come back as an empty string, not as None.
        Customer(id="min-customer", company_id="co-min", first_name="M", notes=""),
        Subscription(
            id="min-subscription",
            company_id="co-min",
            customer_id="min-customer",
            customer_plan_id="p",
        ),
        FieldDefinition(id="min-field", kind="booking", name="n", label="N", **where),
        Appointment(
            id="min-appointment",
            service_id="min-service",
            status=AppointmentStatus.INITIAL,
            start=start,
            end=start + timedelta(minutes=1),
            created_at=start,
            **where,
        ),
        QueuedReminder(
            id="min-reminder",
            appointment_id="min-appointment",
            channel="email",
            ordinal=1,
            due_at=start,
            **where,
        ),
        AuditEntry(
            id="min-audit",
            appointment_id="min-appointment",
            operation=Operation.CREATE_HOLD,
            modified_on=start,
            **where,
        ),
        OutboxEvent(
            id="min-event",
            company_id="co-min",
            sequence=1,
            trigger=Trigger.CUSTOMER_CREATED,
            entity_id="min-customer",
            created_at=start,
        ),
        ApiToken(
            id="min-token",
            company_id="co-min",
            label="t",
            token_hash="0" * 64,
            created_at=start,
        ),
    ]


def _changed(record: R, value: str = "Changed ✓") -> R:
    """Return *record* with one free field changed to a value derived from *value*."""
    if isinstance(record, QueuedReminder):
        # No free text here: move the due time by a number of minutes that *value* decides.
        minutes = sum(map(ord, value)) % 997 + 1
        return cast(R, attrs.evolve(record, due_at=record.due_at + timedelta(minutes=minutes)))
    if isinstance(record, OutboxEvent):
        return cast(R, attrs.evolve(record, payload={**record.payload, "note": value}))
    changed: R = attrs.evolve(cast(Any, record), **{_CHANGE_FIELD[type(record)]: value})
    return changed


def _at(hour: int, minute: int = 0, *, day: date = _DAY) -> datetime:
    """Return *hour*:*minute* UTC on *day*."""
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


def _appointment(
    record_id: str,
    start: datetime,
    end: datetime,
    *,
    resource_ids: Sequence[str] = (RES_1,),
    location_id: str = LOC_A1,
    **changes: Any,
) -> Appointment:
    """Return a booked appointment at *location_id* (company and service follow from it)."""
    fields: dict[str, Any] = {"service_id": _SERVICE_OF[location_id], **changes}
    return sample_appointment(
        id=record_id,
        company_id=_COMPANY_OF[location_id],
        location_id=location_id,
        start=start,
        end=end,
        resource_ids=tuple(resource_ids),
        **fields,
    )


def _window(
    kind: type[Block] | type[Allocation],
    record_id: str,
    target_id: str,
    first: date,
    last: date,
    **changes: Any,
) -> Block | Allocation:
    """Return a non-repeating block or allocation of *target_id* at ``loc-a1``."""
    fields: dict[str, Any] = {"repeat": None, **changes}
    where: dict[str, Any] = {"company_id": CO_A, "location_id": LOC_A1, "target_id": target_id}
    if kind is Block:
        return sample_block(id=record_id, start_date=first, end_date=last, **where, **fields)
    return sample_allocation(id=record_id, start_date=first, end_date=last, **where, **fields)


def _touching(
    reader: Reader,
    method: str,
    target_ids: Collection[str],
    first: date,
    last: date,
) -> list[str]:
    """Return the ids ``reader.<method>`` finds, in the order it returns them."""
    found = getattr(reader, method)(target_ids=target_ids, first=first, last=last)
    return [record.id for record in found]


def _overlapping(
    reader: Reader,
    start: datetime,
    end: datetime,
    *,
    resource_ids: Collection[str] | None = None,
    location_id: str = LOC_A1,
) -> list[str]:
    """Return the ids ``reader.appointments_overlapping`` finds, in its order."""
    found = reader.appointments_overlapping(
        location_id=location_id, resource_ids=resource_ids, start=start, end=end
    )
    return [appointment.id for appointment in found]
