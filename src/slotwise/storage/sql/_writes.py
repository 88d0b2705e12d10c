"""
The writes of ``SQLStore`` on one connection: its ``Transaction``; every write checks before it changes anything.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import attrs
from sqlalchemy import Connection, Table, Text, bindparam, cast, insert, select

from slotwise._time import ensure_aware
from slotwise.errors import DuplicateRecord, FieldTooLong, NotFound, StoreError
from slotwise.model import Appointment, OutboxEvent, Record, Service
from slotwise.storage.configuration import CONFIGURATION_KINDS

from ._codec import decode, encode
from ._riding import compiled_sql
from ._schema import KEY_LENGTH, RECORD_TABLES, outbox_sequence, record_values, spans
from ._statements import (
    _BUMP_VERSION,
    _CLAIM,
    _KEY_FIELDS,
    _LINK_ROWS,
    _MICROSECOND,
    _UNLINK,
    _VERSIONS,
    _check_limit,
)
from ._unit_base import UnitHost
from ._units import SQLReader

__all__ = ["SQLTransaction"]

_NEXT_SEQUENCE = select(outbox_sequence.next_value())


# An outbox event's columns other than its document and its number (``undelivered``).
_EVENT_COLUMNS = ("id", "company_id", "location_id", "due", "lease_until", "delivery_status")
# Where a document's number goes: OutboxEvent's fields before it (id, company_id, location_id)
# are text or null, whose JSON never holds an unescaped quote, so the first match is the key.
_NUMBER_KEY = '"sequence":'


@functools.cache
def _plain_insert(table: Table) -> Any:
    """An insert that fails on an existing id (a queued insert cannot be asked if it wrote)."""
    return insert(table)


@functools.cache
def _numbered_insert(table: Table) -> Any:
    """
    Insert an undelivered outbox event numbered by the database as the row is written: one
    draw of the sequence, written into ``undelivered`` and spliced into the document between
    ``doc_head`` and ``doc_tail`` (the stored form is the one ``next_sequence()`` gives).
    """
    drawn = select(outbox_sequence.next_value().label("n")).subquery("drawn")
    document = (
        bindparam("doc_head", type_=Text())
        + cast(drawn.c.n, Text())
        + bindparam("doc_tail", type_=Text())
    )
    columns = [bindparam(name, type_=table.c[name].type) for name in _EVENT_COLUMNS]
    return insert(table).from_select(
        [*_EVENT_COLUMNS, "undelivered", "doc"], select(*columns, drawn.c.n, document)
    )


class SQLTransaction(SQLReader):
    """The protocol's writes; every write checks before it changes anything."""

    def __init__(self, store: UnitHost, conn: Connection) -> None:
        super().__init__(store, conn)
        self._drawn: int | None = None
        self._new_spans: list[tuple[tuple[str, str], int]] = []
        self._versioned: set[str] = set()

    def _execute(self, statement: Any, parameters: Any = None) -> Any:
        self._send_queued()  # in order: the queued writes first
        try:
            return self._conn.execute(statement, parameters)
        except Exception as error:
            raise self._failed(error, "writing") from error

    def insert(self, record: Record, /) -> None:
        kind = type(record)
        self._statements(kind)
        values = self._values(record)
        self._configuration_changes(record)
        self._send_queued()
        try:
            inserted = self._store._dialect.insert_record(self._conn, RECORD_TABLES[kind], values)
        except Exception as error:
            raise self._failed(error, "writing") from error
        if not inserted:
            raise DuplicateRecord(kind=kind.__name__, field="id", value=record.id)
        if isinstance(record, Appointment):
            self._link(record, replace=False)
        elif isinstance(record, Service):
            self._bound_padding(record)
        self._known[(kind, record.id)] = record

    def update(self, record: Record, /) -> None:
        kind = type(record)
        statement = self._statements(kind)["update"]
        values = self._values(record)
        values["record_id"] = values.pop("id")
        self._configuration_changes(record)
        self._known.pop((kind, record.id), None)  # a failed update must not leave it stale
        if self._execute(statement, values).rowcount == 0:
            raise NotFound(kind=kind.__name__, record_id=record.id)
        if isinstance(record, Appointment):
            self._link(record, replace=True)
        elif isinstance(record, Service):
            self._bound_padding(record)
        self._known[(kind, record.id)] = record

    def delete(self, kind: type[Record], record_id: str, /) -> None:
        statement = self._statements(kind)["delete"]
        if kind in CONFIGURATION_KINDS:
            deleted = self.get(kind, record_id)
            if deleted is not None:
                self._configuration_changes(deleted)
        self._known.pop((kind, record_id), None)
        if self._execute(statement, {"record_id": record_id}).rowcount == 0:
            raise NotFound(kind=kind.__name__, record_id=record_id)
        if kind is Appointment:
            self._execute(_UNLINK, {"record_id": record_id})

    def insert_new(self, record: Record, /) -> None:
        """
        Insert *record*, whose id was just generated: an optional capability of this store,
        used through :func:`slotwise.storage.batched.insert_new`.

        On PostgreSQL (psycopg 3) the insert is queued and rides with the unit's next
        statement, a read or the ``COMMIT`` (decision 49): an id that exists after all
        raises ``DuplicateRecord`` there and the unit writes nothing. Elsewhere, and for a
        configuration record, this is :meth:`insert`.
        """
        kind = type(record)
        if not self._riding or kind in CONFIGURATION_KINDS:
            self.insert(record)
            return
        self._statements(kind)
        values = self._values(record)
        table = RECORD_TABLES[kind]
        self._queue(_plain_insert(table), values)
        self._queued.records.append((table.name, kind.__name__, record.id))
        if isinstance(record, Appointment):
            self._link(record, replace=False, queue=True)
        self._known[(kind, record.id)] = record

    def insert_numbered(self, numbered: Callable[[int], OutboxEvent], /) -> None:
        """
        Insert the outbox event ``numbered(n)``, *n* its sequence number: an optional capability
        of this store, used through :func:`slotwise.storage.batched.insert_numbered`.

        On PostgreSQL (psycopg 3) the database assigns the number as it writes the row (decision
        49): the insert is queued and rides with the unit's next statement, the ``COMMIT`` for a
        booking, so no round trip draws the number, and a unit that ends before it sends the
        insert takes no number. On MariaDB the insert draws the number itself, now (one
        statement, not two). Elsewhere the number is drawn now (``next_sequence()``) and the
        event inserted with it.
        """
        dialect = self._store._dialect
        if not (self._riding or dialect.numbers_at_insert):
            self.insert_new(numbered(self.next_sequence()))
            return
        event = numbered(1)  # the document to splice the database's number into
        values = self._values(event)
        head, key, rest = values["doc"].partition(_NUMBER_KEY)
        if not key or values["undelivered"] is None or not rest.startswith("1,"):
            raise StoreError(f"an outbox event document of an unknown form: {head[:80]}")
        del values["doc"], values["undelivered"]
        values["doc_head"], values["doc_tail"] = head + key, rest[1:]
        table = RECORD_TABLES[OutboxEvent]
        if self._riding:
            self._queue(_numbered_insert(table), values)
            self._queued.records.append((table.name, OutboxEvent.__name__, event.id))
            return
        try:
            inserted = dialect.insert_numbered(self._conn, _numbered_insert(table), values)
        except Exception as error:
            raise self._failed(error, "writing") from error
        if not inserted:
            raise DuplicateRecord(kind=OutboxEvent.__name__, field="id", value=event.id)

    def _queue(self, statement: Any, values: dict[str, Any]) -> None:
        try:
            self._queued.sql.append(compiled_sql(self._conn, statement, values))
        except Exception as error:
            raise self._failed(error, "writing") from error

    def _configuration_changes(self, record: Record) -> None:
        """
        Raise the configuration version of *record*'s company, once per unit of work, before
        the first configuration write: every unit that changes a company's configuration takes
        its version row first, so two of them never wait for each other in opposite orders.
        """
        if type(record) not in CONFIGURATION_KINDS or record.company_id in self._versioned:
            return
        company_id = record.company_id
        self._send_queued()
        try:
            self._store._dialect.insert_ignoring_duplicates(
                self._conn, _VERSIONS, [{"company_id": company_id, "version": 0}]
            )
        except Exception as error:
            raise self._failed(error, "writing") from error
        self._execute(_BUMP_VERSION, {"company": company_id})
        self._versioned.add(company_id)

    def next_sequence(self) -> int:
        if self._riding:
            # The draw and whatever waits to ride, in one round trip.
            draw = compiled_sql(self._conn, _NEXT_SEQUENCE, {})
            number = int(self._send_queued([draw])[0][0])
        else:
            try:
                number = self._store._dialect.next_sequence(self._conn)
            except Exception as error:
                raise self._failed(error, "drawing a sequence number") from error
        self._drawn = number if self._drawn is None else max(self._drawn, number)
        return number

    def claim_deliveries(
        self, *, owner: str, now: datetime, lease_until: datetime, limit: int
    ) -> list[OutboxEvent]:
        _check_limit(limit)
        ensure_aware(now, field="now")
        ensure_aware(lease_until, field="lease_until")
        rows = self._rows(_CLAIM, {"now": now, "limit": limit})
        claimed = []
        for row in rows:
            event = attrs.evolve(
                decode(OutboxEvent, row[0]), lease_owner=owner, lease_until=lease_until
            )
            self.update(event)
            claimed.append(event)
        return claimed

    def _values(self, record: Record) -> dict[str, Any]:
        """Return the row of *record*, refusing what the columns cannot hold."""
        try:
            document = encode(record)
            document.encode("utf-8")
        except (TypeError, ValueError) as error:
            # A lone surrogate (no UTF-8 database can hold it; the driver would raise), or a
            # value JSON cannot write.
            raise StoreError(
                f"{type(record).__name__} {record.id!r} cannot be stored: {error}"
            ) from error
        values = record_values(record, document)
        for field in _KEY_FIELDS:
            value = values.get(field)
            if isinstance(value, str) and len(value) > KEY_LENGTH:
                raise FieldTooLong(field=field, limit=KEY_LENGTH, requested=len(value))
        if isinstance(record, Appointment):
            for resource_id in record.resource_ids:
                if len(resource_id) > KEY_LENGTH:
                    raise FieldTooLong(
                        field="resource_ids", limit=KEY_LENGTH, requested=len(resource_id)
                    )
        return values

    def _link(self, record: Appointment, *, replace: bool, queue: bool = False) -> None:
        """Write the appointment's resource rows and grow the span bounds it exceeds."""
        if replace:
            self._execute(_UNLINK, {"record_id": record.id})
        resources = sorted(set(record.resource_ids))
        if resources:
            rows: list[dict[str, Any]] = [
                {
                    "appointment_id": record.id,
                    "resource_id": resource_id,
                    "start_at": record.start,
                    "end_at": record.end,
                }
                for resource_id in resources
            ]
            if queue:
                for row in rows:
                    self._queue(_LINK_ROWS, row)
            else:
                self._execute(_LINK_ROWS, rows)
        length = (record.end - record.start) // _MICROSECOND
        self._grow_spans(
            [("location", record.location_id)]
            + [("resource", resource_id) for resource_id in resources],
            length,
            queue=queue,
        )

    def _bound_padding(self, record: Service) -> None:
        """Grow the company's padding bound (a ``padding`` span row) to the service's padding."""
        padding = timedelta(minutes=record.padding) // _MICROSECOND
        self._grow_spans([("padding", record.company_id)], padding)

    def _grow_spans(self, keys: list[tuple[str, str]], length: int, *, queue: bool = False) -> None:
        """Insert a span row of *length* for each key whose stored bound is below it."""
        known = self._store._known_spans
        needed = [key for key in keys if known.get(key, -1) < length]
        if not needed:
            return
        rows = [
            {"scope": scope, "scope_id": scope_id, "length": length}
            for scope, scope_id in sorted(needed)
        ]
        if queue:
            for row in rows:
                self._queue(self._store._dialect.ignoring(spans), row)
        else:
            self._send_queued()
            try:
                self._store._dialect.insert_ignoring_duplicates(self._conn, spans, rows)
            except Exception as error:
                raise self._failed(error, "writing") from error
        self._new_spans += [(key, length) for key in needed]
