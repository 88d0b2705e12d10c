"""
The tables and indexes behind ``MemoryStore``, and their upkeep as records change (lock held).
"""

from __future__ import annotations

import bisect
import itertools
from collections import defaultdict
from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any

from slotwise.errors import DuplicateRecord, OutOfRange, StoreError
from slotwise.model import (
    RECORD_KINDS,
    Allocation,
    ApiToken,
    Appointment,
    AppointmentStatus,
    Block,
    Customer,
    OutboxEvent,
    QueuedReminder,
    Record,
    Service,
)
from slotwise.storage.configuration import CONFIGURATION_KINDS
from slotwise.storage.listing import ListQuery
from slotwise.storage.protocol import R

from ._memory_indexes import CreationList, FeedIndex, LocationIndex, StartIndex
from ._memory_plans import (
    INDEXED_CONTAINS,
    INDEXED_EQUAL,
    INDEXED_FOLDED,
    PLANS,
    list_keys,
    parent_of,
)

__all__ = ["MemoryTables"]

_Window = Block | Allocation
_NO_PADDING = timedelta(0)
# A list index: (kind, company id, field, value) -> ids in creation order; field None (and value
# None) is the company's whole list.
_ListKey = tuple[type[Any], str, str | None, object]
_EMPTY: list[str] = []
_NO_STARTS = LocationIndex()
_Writes = tuple[
    dict[str, Any],
    dict[str, int],
    bool,
    Callable[[dict[Any, list[str]], dict[Any, list[str]], str, str, Any], None],
    Callable[["MemoryTables", Any, int], None] | None,
]


def _query_keys(kind: type[Any], query: ListQuery) -> tuple[list[tuple[str | None, object]], bool]:
    """
    Return the list indexes that hold every match of *query*, and whether one of them holds
    exactly the matches (so a page is a slice of it).
    """
    keys: list[tuple[str | None, object]] = []
    unindexed = False
    if query.location_id is not None:
        keys.append(("location_id", query.location_id))
    for filters, indexed in (
        (query.equal, INDEXED_EQUAL.get(kind, ())),
        (query.contains, INDEXED_CONTAINS.get(kind, ())),
        (query.folded, INDEXED_FOLDED.get(kind, ())),
    ):
        for name, value in filters.items():
            if name in indexed:
                keys.append((name, value))
            else:
                unindexed = True
    for name, choices in query.one_of.items():
        if name == "location_id" and len(choices) == 1:
            keys.append((name, next(iter(choices))))
        else:
            unindexed = True
    exact = not unindexed and len(keys) <= 1 and query.starting is None
    return keys or [(None, None)], exact


def _check_limit(limit: int) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise OutOfRange(field="limit", allowed="at least 1", requested=limit)


class MemoryTables:
    """
    Every record in dictionaries, and the indexes the reads use (see ``MemoryStore``).

    Not thread-safe on its own: ``MemoryStore`` holds its lock around every use.
    """

    def __init__(self) -> None:
        self._tables: dict[type[Any], dict[str, Any]] = {kind: {} for kind in RECORD_KINDS}
        # Every record's creation sequence number, kept across updates: it orders child
        # indexes and puts a record whose delete is rolled back back in its place.
        self._created: dict[type[Any], dict[str, int]] = {kind: {} for kind in RECORD_KINDS}
        self._creation = itertools.count()
        # resource id / location id -> its appointments by (start, id)
        self._by_resource: defaultdict[str, StartIndex] = defaultdict(StartIndex)
        self._by_location: defaultdict[str, LocationIndex] = defaultdict(LocationIndex)
        # company id -> the largest padding any of its services has had: an appointment occupies
        # [start, end + its service's padding), so an occupancy read starts this much earlier.
        # It only grows (a padding lowered later leaves a looser bound, never a wrong one).
        self._padding_bound: dict[str, timedelta] = {}
        # (kind, parent id) -> record ids in creation order: blocks and allocations by target,
        # appointments by customer, reminders and audit entries by appointment.
        self._children: defaultdict[tuple[type[Any], str], list[str]] = defaultdict(list)
        self._idempotency: dict[tuple[str, str], str] = {}
        # (company id, folded e-mail) -> {customer id: creation sequence number}
        self._emails: dict[tuple[str, str], dict[str, int]] = {}
        self._tokens: dict[str, str] = {}  # token hash -> token id
        self._holds: FeedIndex[tuple[datetime, str]] = FeedIndex()
        self._undelivered: FeedIndex[tuple[int, str]] = FeedIndex()
        # Events to deliver, every company's, by (due_at, sequence, id): claims read its head.
        self._due: list[tuple[datetime, int, str]] = []
        self._unsent: FeedIndex[tuple[datetime, str]] = FeedIndex()
        self._event_sequence = itertools.count(1)
        # Default dictionaries: a write appends to an index, which is created on its first use.
        self._lists: defaultdict[_ListKey, list[str]] = defaultdict(list)
        # company id -> its configuration version (decision 49): drawn from one counter that a
        # rollback never rewinds, so a version is never reused for other contents.
        self._configuration_versions: dict[str, int] = {}
        self._configuration_counter = itertools.count(1)
        # kind -> what inserting one of its records touches: its table and creation numbers,
        # whether it is configuration, its plan's list_new and its own indexer (or None).
        # The unit of work in progress (the store's lock lets one run at a time): what undoes
        # each of its writes, newest last, as (function, argument) called function(argument);
        # and whether it refuses configuration writes (a cached unit, ``refuse_configuration``).
        self._journal: list[tuple[Callable[[Any], None], Any]] = []
        self._refusing = False
        self._writes: dict[type[Any], _Writes] = {
            kind: (
                self._tables[kind],
                self._created[kind],
                plan.configuration,
                plan.list_new,
                _INDEXERS.get(kind),
            )
            for kind, plan in PLANS.items()
        }

    # -- record access, used by readers and transactions (lock held) -----------------------

    def _table(self, kind: type[Any]) -> dict[str, Any]:
        try:
            return self._tables[kind]
        except KeyError:
            raise StoreError(f"{kind.__name__} is not a record kind slotwise stores") from None

    def _configuration_changed(self, record: Record) -> None:
        if type(record) in CONFIGURATION_KINDS:
            versions = self._configuration_versions
            versions[record.company_id] = next(self._configuration_counter)

    def _add(self, record: Record) -> None:
        """
        Store a new record (``DuplicateRecord`` when its id is taken) and index it by its kind's
        plan: it is the newest record, so it goes at the end of every list (no bisection). Its
        undo goes on the journal of the unit in progress (``MemoryTransaction.insert`` is this
        method: one call per insert, not two).
        """
        kind = record.__class__
        found = self._writes.get(kind)
        if found is None:
            raise StoreError(f"{kind.__name__} is not a record kind slotwise stores")
        table, created, configuration, list_new, index = found
        record_id = record.id
        if record_id in table:
            raise DuplicateRecord(kind=kind.__name__, field="id", value=record_id)
        company_id = record.company_id
        if configuration:
            if self._refusing:
                raise TypeError(f"a cached unit of work writes no {kind.__name__} (configuration)")
            self._configuration_versions[company_id] = next(self._configuration_counter)
        sequence = created[record_id] = next(self._creation)
        table[record_id] = record
        # Journalled before indexing: should an indexer fail, the rollback undoes what it did.
        self._journal.append((self._forget, record))
        list_new(self._lists, self._children, company_id, record_id, record)
        if index is not None:
            index(self, record, sequence)

    def _put(self, record: Record) -> None:
        """Replace a stored record by *record* (same kind and id), moving it between indexes."""
        kind = type(record)
        self._configuration_changed(record)
        old = self._table(kind)[record.id]
        self._unindex(old)
        sequence = self._created[kind][record.id]
        # An update moves the record only between the list indexes whose value changed
        # (all of them when its company changed: every index is per company).
        old_keys, new_keys = set(list_keys(old)), set(list_keys(record))
        if old.company_id == record.company_id:
            old_keys, new_keys = old_keys - new_keys, new_keys - old_keys
        self._relist(old, leave=old_keys)
        self._relist(record, join=new_keys)
        self._tables[kind][record.id] = record
        self._index(record, sequence)

    def _remove(self, kind: type[Any], record_id: str) -> tuple[Any, int]:
        record = self._table(kind).pop(record_id)
        self._configuration_changed(record)
        self._unindex(record)
        self._relist(record, leave=list_keys(record))
        return record, self._created[kind].pop(record_id)

    def _forget(self, record: Record) -> None:
        """Undo :meth:`_add` of *record*."""
        self._remove(type(record), record.id)

    def _relist(
        self,
        record: Record,
        *,
        join: Collection[tuple[str | None, object]] = (),
        leave: Collection[tuple[str | None, object]] = (),
    ) -> None:
        """Move *record* (its creation sequence known) into the lists *join*, out of *leave*."""
        kind, company_id, record_id = type(record), record.company_id, record.id
        created = self._created[kind]
        lists = self._lists
        for name, value in join:
            key = (kind, company_id, name, value)
            entries = lists.get(key)
            if entries is None:
                lists[key] = [record_id]
            else:
                CreationList.join(entries, record_id, created)
        for name, value in leave:
            key = (kind, company_id, name, value)
            entries = lists[key]
            CreationList.leave(entries, record_id, created)
            if not entries:
                del lists[key]

    def _listed(
        self, kind: type[Any], company_id: str, name: str | None, value: object
    ) -> list[str]:
        return self._lists.get((kind, company_id, name, value), _EMPTY)

    def _restore(self, removed: tuple[Record, int]) -> None:
        """Undo :meth:`_remove`, given what it returned: the record back in its creation place."""
        record, sequence = removed
        kind = type(record)
        table = self._table(kind)
        created = self._created[kind]
        created[record.id] = sequence
        table[record.id] = record
        self._configuration_changed(record)
        if any(created[other] > sequence for other in table if other != record.id):
            # Put it back in its creation place (only rollbacks of deletes get here).
            items = sorted(table.items(), key=lambda item: created[item[0]])
            table.clear()
            table.update(items)
        self._relist(record, join=list_keys(record))
        self._index(record, sequence)

    def _index(self, record: Record, sequence: int) -> None:
        """Index *record* (back) in place: its kind's indexes, and its parent's children."""
        index = _INDEXERS.get(type(record))
        if index is not None:
            index(self, record, sequence)
        parent = parent_of(record)
        if parent is not None:
            CreationList.join(self._children[parent], record.id, self._created[type(record)])

    def _index_appointment(self, record: Appointment, sequence: int) -> None:
        start, record_id, span = record.start, record.id, record.end - record.start
        taken = set(record.resource_ids)
        at_location = self._by_location[record.location_id]
        # StartIndex.add and LocationIndex.add_taking, inline: each of the appointment's start
        # indexes (its resources', its location's) in one loop, no call per index.
        for index in [*map(self._by_resource.__getitem__, taken), at_location]:
            starts, ids = index.starts, index.ids
            position = bisect.bisect_right(starts, start)
            # Equal starts are ordered by id (rare: group bookings, a slot booked again).
            while position and starts[position - 1] == start and ids[position - 1] > record_id:
                position -= 1
            starts.insert(position, start)
            ids.insert(position, record_id)
            if span > index.longest:
                index.longest = span
        takers = at_location.takers
        for resource_id in taken or (None,):  # _taken(): each resource once, None for none
            takers[resource_id] = takers.get(resource_id, 0) + 1
        if record.idempotency_key is not None:
            self._idempotency[(record.company_id, record.idempotency_key)] = record_id
        expires = record.hold_expires_at
        if expires is not None and record.status is AppointmentStatus.INITIAL:  # _is_hold()
            self._holds.add(record.company_id, record.location_id, (expires, record_id))

    def _index_service(self, record: Service, sequence: int) -> None:
        padding = timedelta(minutes=record.padding)
        bound = self._padding_bound.get(record.company_id)
        if bound is None or bound < padding:
            self._padding_bound[record.company_id] = padding

    def _index_customer(self, record: Customer, sequence: int) -> None:
        if record.email is not None:
            key = (record.company_id, record.email.strip().casefold())
            self._emails.setdefault(key, {})[record.id] = sequence

    def _index_token(self, record: ApiToken, sequence: int) -> None:
        self._tokens[record.token_hash] = record.id

    def _index_event(self, record: OutboxEvent, sequence: int) -> None:
        if record.delivered_at is None:
            key = (record.company_id, record.location_id)
            entries = self._undelivered._lists.get(key)
            if entries is None:  # the location's first: FeedIndex.add makes its list
                self._undelivered.add(*key, (record.sequence, record.id))
            else:  # FeedIndex.add, inline (every booking's event comes here)
                bisect.insort(entries, (record.sequence, record.id))
        due = record.due_at
        if due is not None:
            bisect.insort(self._due, (due, record.sequence, record.id))

    def _index_reminder(self, record: QueuedReminder, sequence: int) -> None:
        if record.sent_at is None:
            self._unsent.add(record.company_id, record.location_id, (record.due_at, record.id))

    def _unindex(self, record: Record) -> None:
        if isinstance(record, Appointment):
            start, record_id = record.start, record.id
            for resource_id in set(record.resource_ids):
                self._by_resource[resource_id].discard(start, record_id)
            self._by_location[record.location_id].discard_taking(
                start, record_id, record.resource_ids
            )
            key = (record.company_id, record.idempotency_key or "")
            if record.idempotency_key is not None and self._idempotency.get(key) == record.id:
                del self._idempotency[key]
            if _is_hold(record):
                assert record.hold_expires_at is not None
                self._holds.discard(
                    record.company_id, record.location_id, (record.hold_expires_at, record.id)
                )
        elif isinstance(record, Customer):
            if record.email is not None:
                key = (record.company_id, record.email.strip().casefold())
                self._emails[key].pop(record.id, None)
        elif isinstance(record, ApiToken):
            if self._tokens.get(record.token_hash) == record.id:
                del self._tokens[record.token_hash]
        elif isinstance(record, OutboxEvent):
            self._undelivered.discard(
                record.company_id, record.location_id, (record.sequence, record.id)
            )
            due = record.due_at
            if due is not None:
                due_entry = (due, record.sequence, record.id)
                index = bisect.bisect_left(self._due, due_entry)
                if index < len(self._due) and self._due[index] == due_entry:
                    del self._due[index]
        elif isinstance(record, QueuedReminder):
            self._unsent.discard(record.company_id, record.location_id, (record.due_at, record.id))
        parent = parent_of(record)
        if parent is not None:
            children = self._children[parent]
            CreationList.leave(children, record.id, self._created[type(record)])
            if not children:
                del self._children[parent]

    def _starting_at(self, location_id: str, since: datetime, until: datetime) -> list[str]:
        """The ids of *location_id*'s appointments starting in [since, until), by creation."""
        starts = self._by_location.get(location_id, _NO_STARTS)
        low, high = starts.between(since, until)
        return sorted(starts.ids[low:high], key=self._created[Appointment].__getitem__)

    def _children_of(self, kind: type[R], parent_id: str) -> list[R]:
        table = self._table(kind)
        return [table[record_id] for record_id in self._children.get((kind, parent_id), ())]


def _is_hold(record: Appointment) -> bool:
    return record.status is AppointmentStatus.INITIAL and record.hold_expires_at is not None


_INDEXERS: dict[type[Any], Callable[[MemoryTables, Any, int], None]] = {
    Appointment: MemoryTables._index_appointment,
    Service: MemoryTables._index_service,
    Customer: MemoryTables._index_customer,
    ApiToken: MemoryTables._index_token,
    OutboxEvent: MemoryTables._index_event,
    QueuedReminder: MemoryTables._index_reminder,
}
"""The kinds with indexes of their own (besides lists and children), and how a record joins them."""
