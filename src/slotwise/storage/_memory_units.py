"""
``MemoryStore``'s readers and units of work: the protocol's reads over ``MemoryTables``, and its writes with their undo journal.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Mapping
from datetime import date, datetime
from typing import Any, Final, cast

import attrs

from slotwise.errors import NotFound
from slotwise.model import (
    Allocation,
    ApiToken,
    Appointment,
    AuditEntry,
    Block,
    Customer,
    OutboxEvent,
    QueuedReminder,
    Record,
)
from slotwise.storage.configuration import CONFIGURATION_KINDS
from slotwise.storage.listing import Listed, ListQuery, check_query
from slotwise.storage.protocol import R

from ._memory_indexes import StartIndex
from ._memory_tables import (
    _NO_PADDING,
    MemoryTables,
    _check_limit,
    _query_keys,
    _Window,
)

__all__ = ["MemoryReader", "MemoryTransaction"]


class MemoryReader:
    def __init__(self, store: MemoryTables) -> None:
        self._store = store

    def get(self, kind: type[R], record_id: str, /) -> R | None:
        # Not typing.cast: a Python call, and every unit of work reads records by id.
        return self._store._table(kind).get(record_id)

    def find(
        self, kind: type[R], /, *, company_id: str | None, location_id: str | None = None
    ) -> list[R]:
        store = self._store
        table = store._table(kind)
        if company_id is None:
            records: list[Any] = list(table.values())
            if location_id is not None:
                records = [record for record in records if record.location_id == location_id]
            return records
        if location_id is None:
            entries = store._listed(kind, company_id, None, None)
        else:
            entries = store._listed(kind, company_id, "location_id", location_id)
        return [table[record_id] for record_id in entries]

    def page(self, kind: type[R], query: ListQuery, /) -> Listed[R]:
        store = self._store
        table = store._table(kind)
        check_query(kind, query)
        keys, exact = _query_keys(kind, query)
        # The shortest index holding every match bounds the work; the others are checked.
        entries = min(
            (store._listed(kind, query.company_id, name, value) for name, value in keys), key=len
        )
        if query.starting is not None and kind is Appointment and query.location_id is not None:
            # Appointments of a date range: the location's start index bounds the work by the
            # appointments in the range, whatever the history (decision 48).
            in_range = store._starting_at(query.location_id, *query.starting)
            if len(in_range) < len(entries):
                entries = in_range
        first, last = query.offset, query.offset + query.limit
        if exact:
            size = len(entries)
            if query.newest_first:
                window = entries[max(size - last, 0) : max(size - first, 0)][::-1]
            else:
                window = entries[first:last]
            return Listed([table[record_id] for record_id in window], size)
        found: list[Any] = []
        total = 0
        for record_id in reversed(entries) if query.newest_first else entries:
            record = table[record_id]
            if query.matches(record):
                if first <= total < last:
                    found.append(record)
                total += 1
        return Listed(found, total)

    def blocks_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Block]:
        return cast(list[Block], self._windows_touching(Block, target_ids, first, last))

    def allocations_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Allocation]:
        return cast(list[Allocation], self._windows_touching(Allocation, target_ids, first, last))

    def _windows_touching(
        self, kind: type[Any], target_ids: Collection[str], first: date, last: date
    ) -> list[_Window]:
        store = self._store
        table = store._table(kind)
        created = store._created[kind]
        found: list[tuple[int, _Window]] = []
        for target_id in set(target_ids):
            for record_id in store._children.get((kind, target_id), ()):
                record: _Window = table[record_id]
                if record.start_date <= last and record.end_date >= first:
                    found.append((created[record_id], record))
        found.sort(key=lambda item: item[0])
        return [record for _, record in found]

    def appointments_overlapping(
        self,
        *,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        store = self._store
        table = store._table(Appointment)
        at_location = store._by_location.get(location_id)
        if at_location is None:
            return []
        wanted = None if resource_ids is None else set(resource_ids)
        if wanted is None or at_location.taken_only_by(wanted):
            # Every appointment at the location, or every one takes one of the resources (a
            # query of all the location's resources): its index is the answer, no filter.
            return _overlapping(at_location, table, start, end, None, None)
        indexes = store._by_resource
        sources = [found for rid in wanted if (found := indexes.get(rid)) is not None]
        # The location's index holds every candidate in (start, id) order already: read it,
        # keeping the appointments of the resources asked for, when its range is no longer
        # than the resources' ranges together (many resources of one location: no merge, no
        # sort); else merge the resources' own ranges (a few resources of a busy location).
        if len(sources) > 1:
            low, high = at_location.between(start - at_location.longest, end)
            spans = [found.between(start - found.longest, end) for found in sources]
            if high - low <= sum(top - bottom for bottom, top in spans):
                return _overlapping(at_location, table, start, end, None, wanted)
        # id -> the appointment: each once, however many of the resources it takes.
        seen: dict[str, Appointment] = {}
        for index in sources:
            for appointment in _overlapping(index, table, start, end, location_id, None):
                seen[appointment.id] = appointment
        found_all = list(seen.values())
        if len(sources) > 1:
            # One index is already in (start, id) order, and a dict keeps insertion order.
            found_all.sort(key=_start_and_id)
        return found_all

    def appointments_occupying(
        self,
        *,
        company_id: str,
        location_id: str,
        resource_ids: Collection[str],
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        # The capability slotwise.storage.batched.appointments_occupying uses: the company's
        # padding bound, not a whole day, is how far before *start* an occupied time can end.
        store = self._store
        bound = store._padding_bound.get(company_id, _NO_PADDING)
        if len(resource_ids) == 1:
            # One resource (a booking's check): its own index, kept to the location, is what
            # appointments_overlapping answers (both indexes are in (start, id) order).
            for resource_id in resource_ids:
                index = store._by_resource.get(resource_id)
                if index is None:
                    return []
                table = store._tables[Appointment]
                return _overlapping(index, table, start - bound, end, location_id, None)
        return self.appointments_overlapping(
            location_id=location_id, resource_ids=resource_ids, start=start - bound, end=end
        )

    def configuration_version(self, company_id: str) -> int:
        """The configuration version of *company_id* (0 before its first configuration write)."""
        return self._store._configuration_versions.get(company_id, 0)

    def appointment_by_idempotency_key(self, company_id: str, key: str) -> Appointment | None:
        store = self._store
        record_id = store._idempotency.get((company_id, key))
        return None if record_id is None else store._table(Appointment)[record_id]

    def customer_by_email(self, company_id: str, email: str) -> Customer | None:
        store = self._store
        found = store._emails.get((company_id, email.strip().casefold()))
        if not found:
            return None
        first = min(found.items(), key=lambda item: item[1])[0]
        return cast(Customer, store._table(Customer)[first])

    def token_by_hash(self, token_hash: str) -> ApiToken | None:
        store = self._store
        token_id = store._tokens.get(token_hash)
        return None if token_id is None else cast(ApiToken, store._table(ApiToken)[token_id])

    def appointments_of_customer(self, customer_id: str) -> list[Appointment]:
        return self._store._children_of(Appointment, customer_id)

    def expired_holds(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        now: datetime,
        limit: int,
    ) -> list[Appointment]:
        _check_limit(limit)
        table = self._store._table(Appointment)
        keys = self._store._holds.first(company_id, location_ids, limit, upto=now)
        return [table[record_id] for _, record_id in keys]

    def undelivered_events(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        limit: int,
    ) -> list[OutboxEvent]:
        _check_limit(limit)
        table = self._store._table(OutboxEvent)
        keys = self._store._undelivered.first(company_id, location_ids, limit)
        return [table[record_id] for _, record_id in keys]

    def reminders_due(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        before: datetime,
        limit: int,
    ) -> list[QueuedReminder]:
        _check_limit(limit)
        table = self._store._table(QueuedReminder)
        keys = self._store._unsent.first(company_id, location_ids, limit, upto=before)
        return [table[record_id] for _, record_id in keys]

    def reminders_of(self, appointment_id: str) -> list[QueuedReminder]:
        return self._store._children_of(QueuedReminder, appointment_id)

    def audit_of(self, appointment_id: str) -> list[AuditEntry]:
        return self._store._children_of(AuditEntry, appointment_id)


class MemoryTransaction(MemoryReader):
    """
    A unit of work's writes, applied in place; what undoes each goes on the store's journal
    (the store's lock lets one unit run at a time), which :meth:`rollback` plays back.
    """

    insert: Callable[[Record], None]
    """``MemoryTables._add`` itself, bound once per unit (one Python call per insert)."""
    insert_new: Callable[[Record], None]
    """``MemoryStore`` writes at once: ``insert_new`` is ``insert`` (the duplicate raised at once)."""

    def __init__(self, store: MemoryTables) -> None:
        self._store = store  # MemoryReader's one attribute (no super() call: one per unit)
        self.insert = self.insert_new = store._add

    def refuse_configuration(
        self,
    ) -> tuple[
        Callable[[Record], None],
        Callable[[Record], None],
        Callable[[Callable[[int], OutboxEvent]], None],
    ]:
        """
        From now on, refuse every configuration write of this unit (``TypeError``): it answers
        configuration reads from a cache, which such a write would leave behind. Return its
        ``insert``, ``insert_new`` and ``insert_numbered``, which refuse them too (a store's
        capability: ``slotwise.storage.configuration.CachedUnit`` uses them as its own rather
        than checking each write itself).
        """
        self._store._refusing = True
        return self.insert, self.insert_new, self.insert_numbered

    def insert_numbered(self, numbered: Callable[[int], OutboxEvent], /) -> None:
        """Insert ``numbered(n)``, *n* the next outbox sequence number (see ``batched``)."""
        store = self._store
        store._add(numbered(next(store._event_sequence)))

    def update(self, record: Record, /) -> None:
        store = self._store
        if store._refusing and type(record) in CONFIGURATION_KINDS:
            _refused(type(record))
        old = store._table(type(record)).get(record.id)
        if old is None:
            raise NotFound(kind=type(record).__name__, record_id=record.id)
        store._put(record)
        store._journal.append((store._put, old))

    def delete(self, kind: type[Record], record_id: str, /) -> None:
        store = self._store
        if store._refusing and kind in CONFIGURATION_KINDS:
            _refused(kind)
        if record_id not in store._table(kind):
            raise NotFound(kind=kind.__name__, record_id=record_id)
        store._journal.append((store._restore, store._remove(kind, record_id)))

    def next_sequence(self) -> int:
        return next(self._store._event_sequence)

    def claim_deliveries(
        self, *, owner: str, now: datetime, lease_until: datetime, limit: int
    ) -> list[OutboxEvent]:
        _check_limit(limit)
        store = self._store
        events = store._table(OutboxEvent)
        claimed: list[OutboxEvent] = []
        position = 0
        # Leasing keeps an event's due time, so its entry keeps its place while we walk.
        while position < len(store._due) and len(claimed) < limit:
            due, _, event_id = store._due[position]
            if due > now:
                break
            position += 1
            event = events[event_id]
            if event.lease_until is not None and event.lease_until > now:
                continue
            leased = attrs.evolve(event, lease_owner=owner, lease_until=lease_until)
            self.update(leased)
            claimed.append(leased)
        return claimed

    def rollback(self) -> None:
        """Undo the unit's writes, newest first: the store is as it was before the unit."""
        undo = self._store._journal
        while undo:
            function, argument = undo.pop()
            function(argument)


def _refused(kind: type[Any]) -> None:
    raise TypeError(f"a cached unit of work writes no {kind.__name__} (configuration)")


_start_and_id: Final = operator.attrgetter("start", "id")
"""An appointment's ``(start, id)``: the order appointments are listed in (a C-level key)."""


def _overlapping(
    index: StartIndex,
    table: Mapping[str, Any],
    start: datetime,
    end: datetime,
    location_id: str | None,
    resource_ids: set[str] | None,
) -> list[Appointment]:
    """
    Return the appointments of *index* overlapping ``[start, end)``, in its (start, id) order:
    with *location_id*, only those at that location; with *resource_ids*, only those taking
    one of them.
    """
    ids = index.ids
    low, middle = index.between(start - index.longest, start)
    high = index.between(start, end, middle)[1]
    get = table.__getitem__
    # Starting before the range: overlaps only when it ends inside it; starting inside the
    # range: overlaps (its end is after its start).
    found: list[Appointment] = [a for a in map(get, ids[low:middle]) if a.end > start]
    found += map(get, ids[middle:high])
    if location_id is not None:
        found = [a for a in found if a.location_id == location_id]
    if resource_ids is not None:
        found = [a for a in found if not resource_ids.isdisjoint(a.resource_ids)]
    return found
