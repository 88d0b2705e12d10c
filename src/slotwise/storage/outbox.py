"""
Appending events to the outbox inside a unit of work (decision 27), and their JSON payloads.

Used by the appointment operations and by the customer and resource setup operations, always
with the transaction of the change itself, so an event commits or vanishes with its change. It
lives beside the storage protocol, below every operation, so setup operations record events
without importing the appointment state machine.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from slotwise.clock import IdGenerator
from slotwise.model import (
    Appointment,
    Customer,
    FrozenJSON,
    OutboxEvent,
    QueuedReminder,
    Resource,
    Trigger,
    to_json_data,
)
from slotwise.model._checks import INSTANT_YEARS
from slotwise.model._trusted import trusted_constructor
from slotwise.model.events import DeferredPayload
from slotwise.storage.batched import insert_numbered
from slotwise.storage.protocol import Transaction

__all__ = [
    "append_appointment_event",
    "append_event",
    "appointment_payload",
    "customer_data",
    "deferred_appointment_payload",
    "resource_data",
]


def _frozen(items: dict[str, Any]) -> FrozenJSON:
    """
    Return *items* as a ``FrozenJSON`` without walking them again.

    Only for values that are frozen already (what ``to_json_data`` returns, ``str``, ``int``,
    ``None``): ``OutboxEvent`` freezes its payload, and ``freeze_json`` returns a
    ``FrozenJSON`` as it is, so an appointment event's payload is walked once, not twice.
    """
    frozen = FrozenJSON.__new__(FrozenJSON)
    dict.update(frozen, items)
    return frozen


def _appointment_data(appointment: Appointment) -> FrozenJSON:
    data: FrozenJSON = to_json_data(appointment)
    # A new FrozenJSON nobody else holds yet: finished in place, not copied twice more.
    # The fingerprint is slotwise's own bookkeeping, not appointment data.
    dict.__delitem__(data, "idempotency_fingerprint")
    dict.__setitem__(data, "resource_id", appointment.resource_id)
    dict.__setitem__(data, "duration", appointment.duration_minutes)
    return data


# id(record) -> (the record, its event data): the data of a record every booking of a customer
# (or resource) repeats is built once and shared by their events (records and data are
# immutable). Keeping the record keeps its id from being reused; emptied when full.
_SHARED_DATA: dict[int, tuple[object, FrozenJSON]] = {}
_SHARED_DATA_LIMIT = 1024


def _shared_data(record: object, build: Callable[[Any], FrozenJSON]) -> FrozenJSON:
    found = _SHARED_DATA.get(id(record))
    if found is not None and found[0] is record:
        return found[1]
    data = build(record)
    if len(_SHARED_DATA) >= _SHARED_DATA_LIMIT:
        _SHARED_DATA.clear()
    _SHARED_DATA[id(record)] = (record, data)
    return data


def customer_data(customer: Customer) -> Mapping[str, Any]:
    """Return a customer as read-only event data (every field)."""
    data: Mapping[str, Any] = _shared_data(customer, to_json_data)
    return data


def resource_data(resource: Resource) -> Mapping[str, Any]:
    """Return a resource as read-only event data (every field)."""
    data: Mapping[str, Any] = to_json_data(resource)
    return data


def _resource_summary(resource: Resource) -> FrozenJSON:
    return _shared_data(resource, _summarise)


def _summarise(resource: Resource) -> FrozenJSON:
    # Appointment events carry who is booked, not the resource's whole setup record.
    return _frozen(
        {
            "id": resource.id,
            "name": resource.name,
            "email": resource.email,
            "description": resource.description,
            "timezone": resource.timezone,
        }
    )


def appointment_payload(
    appointment: Appointment,
    *,
    customer: Customer | None,
    resources: Iterable[Resource],
    previous: Appointment | None = None,
    reminder: QueuedReminder | None = None,
) -> FrozenJSON:
    """
    Return the payload of an appointment event (read-only, ready for ``OutboxEvent``).

    ``{"appointment": ..., "customer": ... or None, "resources": [...]}``, plus
    ``"previous_appointment"`` for a reschedule (the old record) and ``"reminder"`` for a
    reminder event. Built with the event, from the (immutable) records: an event handed to
    any code -- a C-level encoder such as msgspec included -- holds its whole payload.
    """
    payload: dict[str, Any] = {
        "appointment": _appointment_data(appointment),
        "customer": customer_data(customer) if customer is not None else None,
        "resources": tuple([_resource_summary(resource) for resource in resources]),
    }
    if previous is not None:
        payload["previous_appointment"] = _appointment_data(previous)
    if reminder is not None:
        payload["reminder"] = to_json_data(reminder)
    return _frozen(payload)  # frozen already, all the way down


def _payload_of(
    appointment: Appointment,
    customer: Customer | None,
    resources: tuple[Resource, ...],
    previous: Appointment | None,
) -> FrozenJSON:
    return appointment_payload(
        appointment, customer=customer, resources=resources, previous=previous
    )


def deferred_appointment_payload(
    appointment: Appointment,
    *,
    customer: Customer | None,
    resources: Iterable[Resource],
    previous: Appointment | None = None,
) -> DeferredPayload:
    """
    Return :func:`appointment_payload` of these records, built when the event's payload is
    first read (decision 49): the records are immutable, so the payload is the one built now.
    """
    return DeferredPayload(_payload_of, appointment, customer, tuple(resources), previous)


def append_appointment_event(
    tx: Transaction,
    ids: IdGenerator,
    now: datetime,
    trigger: Trigger,
    appointment: Appointment,
    customer: Customer | None,
    resources: Iterable[Resource],
    previous: Appointment | None,
    /,
) -> None:
    """
    Insert *trigger*'s event of *appointment* in *tx*, as :func:`append_event` with the
    appointment's company, location and id and its :func:`deferred_appointment_payload`
    (one call for what every booking appends: no keywords, no second function).
    """
    numbered = functools.partial(
        _new_event,
        ids.new_id(),
        appointment.company_id,
        appointment.location_id,
        trigger,
        appointment.id,
        DeferredPayload(_payload_of, appointment, customer, tuple(resources), previous),
        now,
    )
    number_at_insert = getattr(tx, "insert_numbered", None)
    if number_at_insert is not None:
        number_at_insert(numbered)
    else:
        insert_numbered(tx, numbered)


def append_event(
    tx: Transaction,
    *,
    ids: IdGenerator,
    now: datetime,
    company_id: str,
    location_id: str | None,
    trigger: Trigger,
    entity_id: str,
    payload: Mapping[str, Any] | DeferredPayload,
) -> None:
    """
    Insert one outbox event in *tx*, numbered by the store's outbox sequence: by
    ``tx.next_sequence()``, or by the database as the row is written where the store can
    (:func:`slotwise.storage.batched.insert_numbered`; on PostgreSQL it rides with the unit's
    ``COMMIT``).

    *location_id* is the location of the record concerned; ``None`` only for company-wide
    events (a customer's), which principals limited to some locations never see (decision 37).
    Call it after every check of the unit of work passed, so a refused operation takes no
    sequence number.
    """
    # A partial, not a closure: the event is built by one call when the store numbers it.
    numbered = functools.partial(
        _new_event, ids.new_id(), company_id, location_id, trigger, entity_id, payload, now
    )
    # batched.insert_numbered, inline (every booking appends an event): may ride with the COMMIT.
    number_at_insert = getattr(tx, "insert_numbered", None)
    if number_at_insert is not None:
        number_at_insert(numbered)
    else:
        insert_numbered(tx, numbered)


_trusted_event = trusted_constructor(OutboxEvent, held_in={"payload": "_payload"})
"""A new event, in its default delivery state, each slot set once by its descriptor."""


def _new_event(
    event_id: str,
    company_id: str,
    location_id: str | None,
    trigger: Trigger,
    entity_id: str,
    payload: Mapping[str, Any] | DeferredPayload,
    created_at: datetime,
    sequence: int,
    /,
) -> OutboxEvent:
    """
    Return ``OutboxEvent(id=event_id, ..., created_at=created_at, sequence=sequence)``, a new
    event in its default delivery state.

    When every value is one the event's converters keep as it is and its validators accept (a
    positive ``int`` sequence, a ``Trigger``, a deferred or non-empty frozen payload, an instant
    in UTC within the years records allow: what the store's counter, the operations and the
    clock hand over), the record is built without running them; any other value goes through
    the constructor, so the record, or the error, is always the constructor's.
    """
    trusted = (
        sequence.__class__ is int
        and sequence >= 1
        and trigger.__class__ is Trigger
        and (payload.__class__ is DeferredPayload or (payload.__class__ is FrozenJSON and payload))
        and created_at.__class__ is datetime
        and created_at.tzinfo is UTC
        and INSTANT_YEARS[0] <= created_at.year <= INSTANT_YEARS[1]
    )
    build: Callable[..., OutboxEvent] = _trusted_event if trusted else OutboxEvent
    return build(
        id=event_id,
        company_id=company_id,
        location_id=location_id,
        sequence=sequence,
        trigger=trigger,
        entity_id=entity_id,
        payload=payload,
        created_at=created_at,
    )
