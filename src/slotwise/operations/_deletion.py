"""
Deleting customers, services, calendars and locations (decision 46), one rule for all four.

A record is deleted for good, in one unit of work, together with what only it owns (a
customer's subscriptions; the blocks and allocations of a service or calendar; a location's
calendars, groups, field definitions, windows and deleted resources). It is refused with
``RecordInUse`` while something the business still relies on names it -- appointments (the
booking history and the per-customer limits read them), resources linking a service (a
resource whose last link went would silently take every service), live services and resources
at a location, the location a calendar is primary for, the company's primary location -- and
the refusal changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from slotwise.errors import RecordInUse
from slotwise.model import (
    Allocation,
    Appointment,
    Block,
    Calendar,
    Customer,
    FieldDefinition,
    Location,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
    Subscription,
)
from slotwise.storage.listing import ListQuery
from slotwise.storage.protocol import Reader, Transaction

from ._context import Context

__all__ = ["delete_calendar", "delete_customer", "delete_location", "delete_service"]


def _appointments(
    reader: Reader, company_id: str, equal: Mapping[str, str], *, location_id: str | None = None
) -> int:
    # One page of one record: the store answers the total from its index (decision 48).
    query = ListQuery(company_id=company_id, location_id=location_id, equal=dict(equal), limit=1)
    return reader.page(Appointment, query).total


def _refuse_if_used(kind: str, record_id: str, uses: Iterable[tuple[str, int]]) -> None:
    for used_by, count in uses:
        if count:
            raise RecordInUse(kind=kind, record_id=record_id, used_by=used_by, count=count)


def _delete_windows(tx: Transaction, company_id: str, target_ids: set[str]) -> None:
    for block in tx.find(Block, company_id=company_id):
        if block.target_id in target_ids:
            tx.delete(Block, block.id)
    for allocation in tx.find(Allocation, company_id=company_id):
        if allocation.target_id in target_ids:
            tx.delete(Allocation, allocation.id)


def delete_customer(ctx: Context, customer_id: str) -> Customer:
    """Delete a customer and its subscriptions; see ``CustomerOperations.delete``."""
    with ctx.store.transaction() as tx:
        customer = ctx.owned(tx, Customer, customer_id, field="customer_id", change=True)
        booked = _appointments(tx, ctx.company_id, {"customer_id": customer.id})
        _refuse_if_used("Customer", customer.id, [("appointments", booked)])
        query = ListQuery(
            company_id=ctx.company_id, equal={"customer_id": customer.id}, limit=2**31 - 1
        )
        for subscription in tx.page(Subscription, query).records:
            tx.delete(Subscription, subscription.id)
        tx.delete(Customer, customer.id)
    return customer


def delete_service(ctx: Context, service: Service, tx: Transaction) -> Service:
    """Delete *service* (already checked writable) with its blocks and allocations, in *tx*."""
    linking = [
        resource
        for resource in tx.find(Resource, company_id=ctx.company_id)
        if service.id in resource.linked_service_ids
    ]
    _refuse_if_used(
        "Service",
        service.id,
        [
            ("appointments", _appointments(tx, ctx.company_id, {"service_id": service.id})),
            ("resources linking it", len(linking)),
        ],
    )
    _delete_windows(tx, ctx.company_id, {service.id})
    tx.delete(Service, service.id)
    return service


def delete_calendar(ctx: Context, calendar_id: str) -> Calendar:
    """Delete a calendar that is not primary, with its blocks; see ``CalendarOperations.delete``."""
    with ctx.store.transaction() as tx:
        calendar = ctx.owned(tx, Calendar, calendar_id, field="calendar_id", change=True)
        _refuse_if_used(
            "Calendar",
            calendar.id,
            [
                ("location as its primary calendar", int(calendar.primary)),
                ("appointments", _appointments(tx, ctx.company_id, {"calendar_id": calendar.id})),
            ],
        )
        _delete_windows(tx, ctx.company_id, {calendar.id})
        tx.delete(Calendar, calendar.id)
    return calendar


def delete_location(ctx: Context, location_id: str) -> Location:
    """Delete a location and what only it owns; see ``LocationOperations.delete``."""
    with ctx.store.transaction() as tx:
        location = ctx.owned(tx, Location, location_id, field="location_id", change=True)
        # The set of locations is company-wide (decision 37), like creating one.
        ctx.require_company_wide(field="location_id", value=location_id)
        resources = tx.find(Resource, company_id=ctx.company_id, location_id=location.id)
        services = tx.find(Service, company_id=ctx.company_id, location_id=location.id)
        booked = _appointments(tx, ctx.company_id, {}, location_id=location.id)
        _refuse_if_used(
            "Location",
            location.id,
            [
                ("company as its primary location", int(location.is_primary)),
                ("appointments", booked),
                ("services", len(services)),
                ("resources", sum(1 for r in resources if not r.deleted)),
            ],
        )
        owned: list[tuple[type[Calendar | Resource | ServiceGroup | ResourceGroup], str]] = [
            (Resource, resource.id) for resource in resources
        ]
        calendars = tx.find(Calendar, company_id=ctx.company_id, location_id=location.id)
        owned += [(Calendar, calendar.id) for calendar in calendars]
        for group_kind in (ServiceGroup, ResourceGroup):
            found = tx.find(group_kind, company_id=ctx.company_id, location_id=location.id)
            owned += [(group_kind, group.id) for group in found]
        _delete_windows(tx, ctx.company_id, {record_id for _, record_id in owned})
        for kind, record_id in owned:
            tx.delete(kind, record_id)
        for definition in tx.find(
            FieldDefinition, company_id=ctx.company_id, location_id=location.id
        ):
            tx.delete(FieldDefinition, definition.id)
        tx.delete(Location, location.id)
    return location
