"""
The tables and indexes behind ``MemoryStore``, and their upkeep as records change (lock held).
"""

from __future__ import annotations

import bisect
import enum
import itertools
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

import attrs

from slotwise.errors import OutOfRange, StoreError
from slotwise.model import (
    RECORD_KINDS,
    Allocation,
    ApiToken,
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Block,
    Customer,
    OutboxEvent,
    QueuedReminder,
    Record,
    Service,
)
from slotwise.storage.configuration import CONFIGURATION_KINDS
from slotwise.storage.listing import ListQuery, fold
from slotwise.storage.protocol import R

from ._memory_indexes import CreationList, FeedIndex, LocationIndex, StartIndex

__all__ = ["MemoryTables"]

_Window = Block | Allocation
_NO_PADDING = timedelta(0)
# A list index: (kind, company id, field, value) -> ids in creation order; field None (and value
# None) is the company's whole list.
_ListKey = tuple[type[Any], str, str | None, object]
_EMPTY: list[str] = []
_NO_STARTS = LocationIndex()


_INDEXED_EQUAL: dict[type[Any], tuple[str, ...]] = {
    Appointment: ("service_id", "customer_id", "status"),
    OutboxEvent: ("delivery_status",),
    Block: ("target_id",),
    Allocation: ("target_id",),
}
"""The fields each kind's ``equal`` filters are answered from an index for (besides location)."""
_INDEXED_CONTAINS: dict[type[Any], tuple[str, ...]] = {Appointment: ("resource_ids",)}
_INDEXED_FOLDED: dict[type[Any], tuple[str, ...]] = {Appointment: ("email",), Customer: ("email",)}


_LOCATED: frozenset[type[Any]] = frozenset(
    kind for kind in RECORD_KINDS if "location_id" in attrs.fields_dict(kind)
)
"""The record kinds that have a ``location_id`` (indexed by it)."""


def _value(record: Any, name: str) -> object:
    found = getattr(record, name)
    # ``_value_``: the enum's own attribute (``value`` is a Python-level property).
    return found._value_ if isinstance(found, enum.Enum) else found


_PLANS: dict[type[Any], tuple[bool, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    kind: (
        kind in _LOCATED,
        _INDEXED_EQUAL.get(kind, ()),
        _INDEXED_CONTAINS.get(kind, ()),
        _INDEXED_FOLDED.get(kind, ()),
    )
    for kind in RECORD_KINDS
}
"""Each kind's list indexes (located, equal, contains, folded), looked up once per record."""


def _list_keys(record: Any) -> list[tuple[str | None, object]]:
    """Return the (field, value) list indexes *record* belongs to, once each (``ListQuery``)."""
    located, equal, contains, folded = _PLANS[type(record)]
    keys: list[tuple[str | None, object]] = [(None, None)]
    if located:
        keys.append(("location_id", record.location_id))
    for name in equal:
        keys.append((name, _value(record, name)))
    for name in contains:
        members = getattr(record, name)
        # Only a record naming a member twice repeats a key (every other key has its own name).
        keys.extend((name, member) for member in dict.fromkeys(members))
    for name in folded:
        text = getattr(record, name)
        if text is not None:
            keys.append((name, fold(text)))
    return keys


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
        (query.equal, _INDEXED_EQUAL.get(kind, ())),
        (query.contains, _INDEXED_CONTAINS.get(kind, ())),
        (query.folded, _INDEXED_FOLDED.get(kind, ())),
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
        self._by_resource: dict[str, StartIndex] = {}
        self._by_location: dict[str, LocationIndex] = {}
        # company id -> the largest padding any of its services has had: an appointment occupies
        # [start, end + its service's padding), so an occupancy read starts this much earlier.
        # It only grows (a padding lowered later leaves a looser bound, never a wrong one).
        self._padding_bound: dict[str, timedelta] = {}
        # (kind, parent id) -> record ids in creation order: blocks and allocations by target,
        # appointments by customer, reminders and audit entries by appointment.
        self._children: dict[tuple[type[Any], str], list[str]] = {}
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
        self._lists: dict[_ListKey, list[str]] = {}
        # company id -> its configuration version (decision 49): drawn from one counter that a
        # rollback never rewinds, so a version is never reused for other contents.
        self._configuration_versions: dict[str, int] = {}
        self._configuration_counter = itertools.count(1)

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

    def _put(self, record: Record) -> None:
        kind = type(record)
        self._configuration_changed(record)
        table = self._table(kind)
        old = table.get(record.id)
        if old is not None:
            self._unindex(old)
            sequence = self._created[kind][record.id]
            # An update moves the record only between the list indexes whose value changed
            # (all of them when its company changed: every index is per company).
            old_keys, new_keys = set(_list_keys(old)), set(_list_keys(record))
            if old.company_id == record.company_id:
                old_keys, new_keys = old_keys - new_keys, new_keys - old_keys
            self._relist(old, leave=old_keys)
            self._relist(record, join=new_keys)
        else:
            sequence = self._created[kind][record.id] = next(self._creation)
            self._list_new(record)
        table[record.id] = record
        self._index(record, sequence)

    def _remove(self, kind: type[Any], record_id: str) -> tuple[Any, int]:
        record = self._table(kind).pop(record_id)
        self._configuration_changed(record)
        self._unindex(record)
        self._relist(record, leave=_list_keys(record))
        return record, self._created[kind].pop(record_id)

    def _list_new(self, record: Record) -> None:
        """Append a new record to its lists: the newest of each (no bisection)."""
        kind, company_id, record_id = type(record), record.company_id, record.id
        lists = self._lists
        for name, value in _list_keys(record):
            key = (kind, company_id, name, value)
            entries = lists.get(key)
            if entries is None:
                lists[key] = [record_id]
            else:
                entries.append(record_id)

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

    def _restore(self, record: Record, sequence: int) -> None:
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
        self._relist(record, join=_list_keys(record))
        self._index(record, sequence)

    def _index(self, record: Record, sequence: int) -> None:
        if isinstance(record, Appointment):
            start, record_id, span = record.start, record.id, record.end - record.start
            for resource_id in set(record.resource_ids):
                starts = self._by_resource.get(resource_id)
                if starts is None:
                    starts = self._by_resource[resource_id] = StartIndex()
                starts.add(start, record_id, span)
            at_location = self._by_location.get(record.location_id)
            if at_location is None:
                at_location = self._by_location[record.location_id] = LocationIndex()
            at_location.add_taking(start, record_id, span, record.resource_ids)
            if record.idempotency_key is not None:
                self._idempotency[(record.company_id, record.idempotency_key)] = record.id
            if _is_hold(record):
                assert record.hold_expires_at is not None
                self._holds.add(
                    record.company_id, record.location_id, (record.hold_expires_at, record.id)
                )
        elif isinstance(record, Service):
            padding = timedelta(minutes=record.padding)
            bound = self._padding_bound.get(record.company_id)
            if bound is None or bound < padding:
                self._padding_bound[record.company_id] = padding
        elif isinstance(record, Customer):
            if record.email is not None:
                key = (record.company_id, record.email.strip().casefold())
                self._emails.setdefault(key, {})[record.id] = sequence
        elif isinstance(record, ApiToken):
            self._tokens[record.token_hash] = record.id
        elif isinstance(record, OutboxEvent):
            if record.delivered_at is None:
                self._undelivered.add(
                    record.company_id, record.location_id, (record.sequence, record.id)
                )
            due = record.due_at
            if due is not None:
                bisect.insort(self._due, (due, record.sequence, record.id))
        elif isinstance(record, QueuedReminder) and record.sent_at is None:
            self._unsent.add(record.company_id, record.location_id, (record.due_at, record.id))
        parent = _parent(record)
        if parent is not None:
            children = self._children.get(parent)
            if children is None:
                self._children[parent] = [record.id]
            else:
                CreationList.join(children, record.id, self._created[type(record)])

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
        parent = _parent(record)
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


def _parent(record: Record) -> tuple[type[Any], str] | None:
    """Return the (kind, parent id) index a record belongs to, if any."""
    if isinstance(record, Block | Allocation):
        return (type(record), record.target_id)
    if isinstance(record, Appointment):
        return (Appointment, record.customer_id) if record.customer_id is not None else None
    if isinstance(record, QueuedReminder | AuditEntry):
        return (type(record), record.appointment_id)
    return None
