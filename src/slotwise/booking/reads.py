"""
Reading appointments (a part of ``AppointmentOperations``): one by id, a filtered page, and an
appointment's audit history (also after its hold was deleted).
"""

from __future__ import annotations

import builtins
from datetime import date, datetime, timedelta

from slotwise._time import wall_to_instant, zone
from slotwise.errors import (
    InvalidDateRange,
    NotFound,
    Unauthorized,
)
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Customer,
    Resource,
    Service,
)
from slotwise.model._checks import to_enum
from slotwise.operations._boundary import operations
from slotwise.operations.availability import as_date
from slotwise.paging import DEFAULT_LIMIT, AllPages, Page, check_window
from slotwise.storage.listing import Listed, ListQuery, as_page, fold
from slotwise.storage.protocol import Reader
from slotwise.storage.replicas import lagging_read

from .checks import (
    BookingChecks,
)

__all__ = ["AppointmentReads"]


@operations
class AppointmentReads(BookingChecks, AllPages[Appointment]):
    """Reading appointments: one, a filtered page, and a history."""

    def get(self, appointment_id: str, /) -> Appointment:
        """
        Return an appointment (spec: GET /consumer/v1/appointments/{id}).

        Raises:
            NotFound: when there is no such appointment.
            Unauthorized: when it is not the principal's.
        """
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Appointment, appointment_id, field="appointment_id")

    def list(
        self,
        *,
        location_id: str | None = None,
        email: str | None = None,
        service_id: str | None = None,
        resource_id: str | None = None,
        customer_id: str | None = None,
        status: AppointmentStatus | str | None = None,
        start_date: date | datetime | str | None = None,
        end_date: date | datetime | str | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[Appointment]:
        """
        List a location's appointments in creation order (spec: GET /consumer/v1/appointments).

        Args:
            location_id: the location; defaults to the primary location (spec: Endpoints).
            email: keeps appointments with this e-mail address, ignoring case.
            service_id: keeps appointments of this service.
            resource_id: keeps appointments taking this resource.
            customer_id: keeps this customer's appointments.
            status: keeps appointments in this status (a status or its code).
            start_date: keeps appointments starting on or after this date, in the location's
                zone (a slotwise extension, decision 48: lists need never page through years).
            end_date: keeps appointments starting on or before this date, in the location's
                zone (inclusive; a slotwise extension, decision 48).
            offset: records to skip (at least 0).
            limit: page size, 1..100.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign location, service, resource or
                customer: a filter naming another company's (or, for a principal limited to
                some locations, another location's) record is refused, not answered with an
                empty page.
            InvalidChoice: for an unknown status code.
            InvalidFormat: for a *start_date* or *end_date* that is not a date.
            InvalidDateRange: when *end_date* is before *start_date*.
            OutOfRange: for an invalid *offset* or *limit*, or a date outside 1900..9998.

        .. versionchanged:: 0.1
           *start_date* and *end_date* (decision 48).
        """
        ctx = self._ctx
        check_window(offset, limit)
        first = None if start_date is None else as_date(start_date, field="start_date")
        last = None if end_date is None else as_date(end_date, field="end_date")
        if first is not None and last is not None and last < first:
            raise InvalidDateRange(field="end_date", start=first, end=last)
        wanted = None if status is None else to_enum(AppointmentStatus, status, field="status")
        equal: dict[str, str | None] = {}
        if service_id is not None:
            equal["service_id"] = service_id
        if customer_id is not None:
            equal["customer_id"] = customer_id
        if wanted is not None:
            equal["status"] = wanted.value

        # A list tolerates lag (decision 50): a replica close enough behind may answer (and
        # when it fails during the read, the read runs again elsewhere: it only reads).
        def read(reader: Reader) -> tuple[ListQuery, Listed[Appointment]]:
            location = ctx.location(reader, location_id)
            if service_id is not None:
                ctx.owned(reader, Service, service_id, field="service_id")
            if resource_id is not None:
                ctx.owned(reader, Resource, resource_id, field="resource_id")
            if customer_id is not None:
                ctx.owned(reader, Customer, customer_id, field="customer_id")
            query = ListQuery(
                company_id=ctx.company_id,
                location_id=location.id,
                equal=equal,
                contains={} if resource_id is None else {"resource_ids": resource_id},
                folded={} if email is None else {"email": fold(email)},
                starting=_starting(location.timezone, first, last),
                offset=offset,
                limit=limit,
            )
            return query, reader.page(Appointment, query)

        query, listed = lagging_read(ctx.store, read)
        return as_page(listed, query, url="/consumer/v1/appointments")

    def history(self, appointment_id: str, /) -> builtins.list[AuditEntry]:
        """
        Return an appointment's audit entries in order, also after a hold was deleted.

        Raises:
            NotFound: when no appointment (or history) has that id.
            Unauthorized: when it is not the principal's.
        """
        ctx = self._ctx
        with ctx.store.read() as reader:
            entries = reader.audit_of(appointment_id)
            if reader.get(Appointment, appointment_id) is not None:
                ctx.owned(reader, Appointment, appointment_id, field="appointment_id")
                return entries
        if not entries:
            raise NotFound(kind="Appointment", record_id=appointment_id)
        first = entries[0]
        if first.company_id != ctx.company_id or not ctx.principal.may_use_location(
            first.location_id
        ):
            raise Unauthorized(field="appointment_id", value=appointment_id)
        return entries


# Appointments start within 1900..9999 (decision 36); an open side of a date range is that edge.
_EARLIEST = date(1900, 1, 1)
_LATEST = date(9999, 1, 1)


def _starting(
    timezone: str, first: date | None, last: date | None
) -> tuple[datetime, datetime] | None:
    """The instants between which an appointment of the dates *first*..*last* starts."""
    if first is None and last is None:
        return None
    tz = zone(timezone)
    since = wall_to_instant(first or _EARLIEST, 0, tz, edge="start")
    until = wall_to_instant((last or _LATEST) + timedelta(days=1), 0, tz, edge="start")
    return since, until
