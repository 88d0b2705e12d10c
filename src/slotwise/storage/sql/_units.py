"""
The reads and writes of ``SQLStore`` on one connection: its ``Reader`` and ``Transaction``, with
the statements they run, each built once per record table.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

import attrs
from sqlalchemy import (
    Connection,
    Table,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from slotwise._time import ensure_aware
from slotwise.errors import (
    DuplicateRecord,
    FieldTooLong,
    NotFound,
    OutOfRange,
    StoreError,
)
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
    Service,
)
from slotwise.storage.configuration import CONFIGURATION_KINDS
from slotwise.storage.listing import Listed, ListQuery, check_query
from slotwise.storage.protocol import R

from ._batched import WINDOWS, prefetch_statement
from ._codec import decode, encode
from ._dialects import Dialect
from ._lists import list_shape, list_statements
from ._schema import (
    KEY_LENGTH,
    RECORD_TABLES,
    Instant,
    appointment_resources,
    configuration_versions,
    email_key,
    lookup_key,
    record_values,
    spans,
)

__all__ = ["SQLReader", "SQLTransaction", "UnitHost"]


class UnitHost(Protocol):
    """What a unit of work needs of the store that opened it (``SQLStore``)."""

    @property
    def _dialect(self) -> Dialect: ...
    @property
    def _known_spans(self) -> dict[tuple[str, str], int]: ...


_MICROSECOND = timedelta(microseconds=1)
_EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
_KEY_FIELDS = ("id", "company_id", "location_id", "target_id", "customer_id", "appointment_id")


def _check_limit(limit: int) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise OutOfRange(field="limit", allowed="at least 1", requested=limit)


def _minus(instant: datetime, microseconds: int) -> datetime:
    try:
        return instant - microseconds * _MICROSECOND
    except OverflowError:
        return _EARLIEST


def _by_id(table: Table) -> Any:
    return table.c.id == bindparam("record_id")


def _build_statements(kind: type[Any]) -> dict[str, Any]:
    """Statements of one record table, built once and run with parameters (cache-friendly)."""
    table = RECORD_TABLES[kind]
    doc = select(table.c.doc)
    built: dict[str, Any] = {
        "get": doc.where(_by_id(table)),
        "update": update(table).where(_by_id(table)),
        "delete": delete(table).where(_by_id(table)),
    }
    for company in (False, True):
        for location in (False, True) if "location_id" in table.c else (False,):
            statement = doc
            if company:
                statement = statement.where(table.c.company_id == bindparam("company_id"))
            if location:
                statement = statement.where(table.c.location_id == bindparam("location_id"))
            built[f"find{int(company)}{int(location)}"] = statement.order_by(table.c.seq)
    for column in ("appointment_id", "customer_id"):
        if column in table.c:
            built[column] = doc.where(table.c[column] == bindparam(column)).order_by(table.c.seq)
    if "target_id" in table.c:
        built["touching"] = doc.where(
            table.c.target_id.in_(bindparam("targets", expanding=True)),
            table.c.start_date <= bindparam("last"),
            table.c.end_date >= bindparam("first"),
        ).order_by(table.c.seq)
    return built


def _feed(column: Any, company: bool, located: bool, condition: Any) -> Any:
    """
    The statement of a feed: rows meeting *condition*, by *column* then id, up to a limit.

    With *located*, only rows whose ``location_id`` is one of the bound ``location_ids``: the
    filter is part of the read (decision 37), so the limit counts rows the caller may see.
    """
    table = column.table
    statement = select(table.c.doc).where(condition)
    if company:
        statement = statement.where(table.c.company_id == bindparam("company_id"))
    if located:
        statement = statement.where(
            table.c.location_id.in_(bindparam("location_ids", expanding=True))
        )
    return statement.order_by(column, table.c.id).limit(bindparam("limit"))


_STATEMENTS = {kind: _build_statements(kind) for kind in RECORD_TABLES}
_TOKENS = RECORD_TABLES[ApiToken]
_BY_TOKEN_HASH = (
    select(_TOKENS.c.doc)
    .where(_TOKENS.c.token_hash == bindparam("token_hash"))
    .order_by(_TOKENS.c.seq)
)
_APPOINTMENTS = RECORD_TABLES[Appointment]
_REMINDERS = RECORD_TABLES[QueuedReminder]
_EVENTS = RECORD_TABLES[OutboxEvent]
_CUSTOMERS = RECORD_TABLES[Customer]
_LINK = appointment_resources

_LONGEST = (
    select(spans.c.scope_id, func.max(spans.c.length))
    .where(
        spans.c.scope == bindparam("scope"),
        spans.c.scope_id.in_(bindparam("scope_ids", expanding=True)),
    )
    .group_by(spans.c.scope_id)
)
# The resources' longest appointments and the company's largest service padding, together.
_LONGEST_AND_PADDING = (
    select(spans.c.scope, spans.c.scope_id, func.max(spans.c.length))
    .where(
        or_(
            and_(
                spans.c.scope == "resource",
                spans.c.scope_id.in_(bindparam("scope_ids", expanding=True)),
            ),
            and_(spans.c.scope == "padding", spans.c.scope_id == bindparam("company_id")),
        )
    )
    .group_by(spans.c.scope, spans.c.scope_id)
)


@functools.lru_cache(maxsize=64)
def _taking_resources(count: int) -> Any:
    """
    The appointments taking one of *count* resources (``resource_0``..) from ``earliest_0``.. to
    ``end`` and ending after ``start``: built once per count, so a read binds values only.
    """
    ranges = [
        and_(
            _LINK.c.resource_id == bindparam(f"resource_{position}"),
            _LINK.c.start_at >= bindparam(f"earliest_{position}", type_=Instant()),
            _LINK.c.start_at < bindparam("end", type_=Instant()),
        )
        for position in range(count)
    ]
    # A derived table joined on the unique id, not "id IN (subquery)": SQLite would scan the
    # location's whole history and test each id against the list.
    taking = (
        select(_LINK.c.appointment_id)
        .where(or_(*ranges), _LINK.c.end_at > bindparam("start", type_=Instant()))
        .distinct()
        .subquery()
    )
    return (
        select(_APPOINTMENTS.c.doc)
        .join_from(taking, _APPOINTMENTS, _APPOINTMENTS.c.id == taking.c.appointment_id)
        .order_by(_APPOINTMENTS.c.start_at, _APPOINTMENTS.c.id)
    )


_AT_LOCATION = (
    select(_APPOINTMENTS.c.doc)
    .where(
        _APPOINTMENTS.c.location_id == bindparam("location_id"),
        _APPOINTMENTS.c.start_at >= bindparam("earliest", type_=Instant()),
        _APPOINTMENTS.c.start_at < bindparam("end", type_=Instant()),
        _APPOINTMENTS.c.end_at > bindparam("start", type_=Instant()),
    )
    .order_by(_APPOINTMENTS.c.start_at, _APPOINTMENTS.c.id)
)
_BY_KEY = (
    select(_APPOINTMENTS.c.doc)
    .where(
        _APPOINTMENTS.c.company_id == bindparam("company_id"),
        _APPOINTMENTS.c.idempotency_key == bindparam("key"),
    )
    .order_by(_APPOINTMENTS.c.seq)
)
_BY_EMAIL = (
    select(_CUSTOMERS.c.doc)
    .where(
        _CUSTOMERS.c.company_id == bindparam("company_id"),
        _CUSTOMERS.c.email_key == bindparam("key"),
    )
    .order_by(_CUSTOMERS.c.seq)
)
_FEEDS: dict[tuple[str, bool, bool], Any] = {
    (name, company, located): _feed(column, company, located, condition)
    for name, column, condition in (
        (
            "holds",
            _APPOINTMENTS.c.hold_until,
            _APPOINTMENTS.c.hold_until <= bindparam("upto", type_=Instant()),
        ),
        ("events", _EVENTS.c.undelivered, _EVENTS.c.undelivered.is_not(None)),
        (
            "reminders",
            _REMINDERS.c.unsent_due,
            _REMINDERS.c.unsent_due <= bindparam("upto", type_=Instant()),
        ),
    )
    for company in (False, True)
    for located in (False, True)
}
_VERSIONS = configuration_versions
_VERSION = select(_VERSIONS.c.version).where(_VERSIONS.c.company_id == bindparam("company_id"))
_BUMP_VERSION = (
    update(_VERSIONS)
    .where(_VERSIONS.c.company_id == bindparam("company"))
    .values(version=_VERSIONS.c.version + 1)
)
_UNLINK = delete(_LINK).where(_LINK.c.appointment_id == bindparam("record_id"))
_LINK_ROWS = insert(_LINK)


class SQLReader:
    """The protocol's reads, as SQL on one connection."""

    def __init__(self, store: UnitHost, conn: Connection) -> None:
        self._store = store
        self._conn = conn
        self._failure: StoreError | None = None
        # Records this unit of work read by id or wrote: a unit never reads one twice (a
        # booking asks for its company three times). Records are frozen values, so sharing
        # them is safe; the unit's own writes keep the entries current.
        self._known: dict[tuple[type[Any], str], Any] = {}

    def _rows(self, statement: Any, parameters: dict[str, Any] | None = None) -> Sequence[Any]:
        try:
            return self._conn.execute(statement, parameters).all()
        except Exception as error:
            raise self._failed(error, "reading") from error

    def _failed(self, error: Exception, doing: str) -> StoreError:
        failure = self._store._dialect.translate(error, doing)
        if self._failure is None:
            self._failure = failure
        return failure

    def _records(
        self, kind: type[R], statement: Any, parameters: dict[str, Any] | None = None
    ) -> list[R]:
        return [decode(kind, row[0]) for row in self._rows(statement, parameters)]

    def _statements(self, kind: type[Any]) -> dict[str, Any]:
        statements = _STATEMENTS.get(kind)
        if statements is None:
            raise StoreError(f"{kind.__name__} is not a record kind slotwise stores")
        return statements

    def get(self, kind: type[R], record_id: str, /) -> R | None:
        known: R | None = self._known.get((kind, record_id))
        if known is not None and self._failure is None:
            return known  # (after a failure the database answers, and raises again)
        statement = self._statements(kind)["get"]
        found = self._records(kind, statement, {"record_id": record_id})
        if not found:
            return None
        self._known[(kind, record_id)] = found[0]
        return found[0]

    def configuration_version(self, company_id: str) -> int:
        """
        Return *company_id*'s configuration version (decision 49; 0 before its first
        configuration write): one primary-key read, for ``slotwise.storage.configuration``.
        """
        rows = self._rows(_VERSION, {"company_id": company_id})
        return int(rows[0][0]) if rows else 0

    def prefetch(self, wanted: Collection[tuple[type[Any], str]], /) -> None:
        """
        Read the records *wanted* names (kind, id) in one statement, for this unit's ``get()``.

        An optional capability of this store (not part of the protocol): a unit of work that
        knows what it will read asks for it at once, one round trip instead of one per record.
        Records already read, and records that do not exist, cost nothing later either way.
        """
        missing = sorted(
            {
                (kind, record_id)
                for kind, record_id in wanted
                if (kind, record_id) not in self._known
            },
            key=lambda item: (item[0].__name__, item[1]),
        )
        if not missing:
            return
        for kind, _ in missing:
            self._statements(kind)  # refuses a kind that is not a record kind
        statement = prefetch_statement(tuple(kind for kind, _ in missing))
        parameters = {
            f"id_{position}": record_id for position, (_, record_id) in enumerate(missing)
        }
        for position, document in self._rows(statement, parameters):
            kind, record_id = missing[int(position)]
            self._known[(kind, record_id)] = decode(kind, document)

    def find(
        self, kind: type[R], /, *, company_id: str | None, location_id: str | None = None
    ) -> list[R]:
        statements = self._statements(kind)
        if location_id is not None and "find01" not in statements:
            raise StoreError(f"{kind.__name__} records have no location_id to filter on")
        key = f"find{int(company_id is not None)}{int(location_id is not None)}"
        parameters = {"company_id": company_id, "location_id": location_id}
        return self._records(kind, statements[key], parameters)

    def page(self, kind: type[R], query: ListQuery, /) -> Listed[R]:
        self._statements(kind)  # refuses a kind that is not a record kind
        check_query(kind, query)
        shape, parameters, residual = list_shape(kind, query)
        rows, window, count = list_statements(shape)
        first, last = query.offset, query.offset + query.limit
        if any(not choices for choices in query.one_of.values()):
            return Listed([], 0)  # one of no values: nothing matches
        if residual:
            # A filter without a column: match the documents the columns select.
            matching = [r for r in self._records(kind, rows, parameters) if query.matches(r)]
            return Listed(matching[first:last], len(matching))
        total = int(self._rows(count, parameters)[0][0])
        if total <= first:
            return Listed([], total)
        parameters.update(offset=first, limit=query.limit)
        return Listed(self._records(kind, window, parameters), total)

    def blocks_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Block]:
        return self._windows_touching(Block, target_ids, first, last)

    def allocations_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Allocation]:
        return self._windows_touching(Allocation, target_ids, first, last)

    def _windows_touching(
        self, kind: type[R], target_ids: Collection[str], first: date, last: date
    ) -> list[R]:
        targets = sorted(set(target_ids))
        if not targets:
            return []
        parameters = {"targets": targets, "first": first, "last": last}
        return self._records(kind, _STATEMENTS[kind]["touching"], parameters)

    def windows_touching(
        self,
        *,
        block_targets: Collection[str],
        allocation_targets: Collection[str],
        first: date,
        last: date,
    ) -> tuple[list[Block], list[Allocation]]:
        """
        ``blocks_touching`` and ``allocations_touching`` in one statement (one round trip).

        An optional capability of this store, used through ``slotwise.storage.batched``.
        """
        blocks, allocations = sorted(set(block_targets)), sorted(set(allocation_targets))
        if not blocks or not allocations:
            return (
                self._windows_touching(Block, blocks, first, last),
                self._windows_touching(Allocation, allocations, first, last),
            )
        parameters = {
            "block_targets": blocks,
            "allocation_targets": allocations,
            "first": first,
            "last": last,
        }
        rows = sorted(self._rows(WINDOWS, parameters), key=lambda row: (row[0], row[1]))
        return (
            [decode(Block, row[2]) for row in rows if row[0] == 0],
            [decode(Allocation, row[2]) for row in rows if row[0] == 1],
        )

    def appointments_overlapping(
        self,
        *,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        ensure_aware(start, field="start")
        ensure_aware(end, field="end")
        if resource_ids is None:
            scope, scope_ids = "location", [location_id]
        else:
            scope, scope_ids = "resource", sorted(set(resource_ids))
            if not scope_ids:
                return []
        longest = {
            row[0]: int(row[1])
            for row in self._rows(_LONGEST, {"scope": scope, "scope_ids": scope_ids})
        }
        return self._overlapping(location_id, resource_ids, start, end, longest)

    def appointments_occupying(
        self,
        *,
        company_id: str,
        location_id: str,
        resource_ids: Collection[str],
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        """
        The capability ``slotwise.storage.batched.appointments_occupying`` uses: the overlap
        read from ``start`` minus the company's largest service padding (a ``padding`` span
        row, read in the same statement as the resources' longest appointments).
        """
        ensure_aware(start, field="start")
        ensure_aware(end, field="end")
        scope_ids = sorted(set(resource_ids))
        if not scope_ids:
            return []
        longest: dict[str, int] = {}
        padding = 0
        parameters = {"scope_ids": scope_ids, "company_id": company_id}
        for scope, scope_id, length in self._rows(_LONGEST_AND_PADDING, parameters):
            if scope == "padding":
                padding = int(length)
            else:
                longest[scope_id] = int(length)
        earlier = timedelta(microseconds=padding)
        return self._overlapping(location_id, scope_ids, start - earlier, end, longest)

    def _overlapping(
        self,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
        longest: Mapping[str, int],
    ) -> list[Appointment]:
        if not longest:
            return []  # no appointment was ever stored there
        # An appointment overlapping [start, end) starts in [start - longest, end): an index
        # range read whose cost does not grow with the history before it.
        parameters: dict[str, Any] = {"start": start, "end": end}
        if resource_ids is None:
            parameters["location_id"] = location_id
            parameters["earliest"] = _minus(start, longest[location_id])
            return self._records(Appointment, _AT_LOCATION, parameters)
        for position, (resource_id, length) in enumerate(sorted(longest.items())):
            parameters[f"resource_{position}"] = resource_id
            parameters[f"earliest_{position}"] = _minus(start, length)
        # The location is checked here, not in SQL: a location condition on the appointments
        # table lets a planner without fresh statistics (PostgreSQL on a young table guesses
        # 0.5% of rows per location) walk the location's whole history by its index and probe
        # the derived table for each row. Without it the only way in is the link range, then
        # the appointments by id. An appointment whose resource worked at another location
        # then is read and dropped, which is rare and bounded by the range.
        statement = _taking_resources(len(longest))
        return [
            appointment
            for appointment in self._records(Appointment, statement, parameters)
            if appointment.location_id == location_id
        ]

    def appointment_by_idempotency_key(self, company_id: str, key: str) -> Appointment | None:
        parameters = {"company_id": company_id, "key": lookup_key(key)}
        # The column holds a digest of a long key: the record's own key decides.
        for record in self._records(Appointment, _BY_KEY, parameters):
            if record.idempotency_key == key:
                return record
        return None

    def customer_by_email(self, company_id: str, email: str) -> Customer | None:
        folded = email.strip().casefold()
        parameters = {"company_id": company_id, "key": email_key(email)}
        for record in self._records(Customer, _BY_EMAIL, parameters):
            if record.email is not None and record.email.strip().casefold() == folded:
                return record
        return None

    def token_by_hash(self, token_hash: str) -> ApiToken | None:
        found = self._records(ApiToken, _BY_TOKEN_HASH, {"token_hash": token_hash})
        return found[0] if found else None

    def appointments_of_customer(self, customer_id: str) -> list[Appointment]:
        statement = _STATEMENTS[Appointment]["customer_id"]
        return self._records(Appointment, statement, {"customer_id": customer_id})

    def expired_holds(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        now: datetime,
        limit: int,
    ) -> list[Appointment]:
        _check_limit(limit)
        ensure_aware(now, field="now")
        return self._feed(Appointment, "holds", company_id, location_ids, limit, upto=now)

    def undelivered_events(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        limit: int,
    ) -> list[OutboxEvent]:
        _check_limit(limit)
        return self._feed(OutboxEvent, "events", company_id, location_ids, limit)

    def reminders_due(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        before: datetime,
        limit: int,
    ) -> list[QueuedReminder]:
        _check_limit(limit)
        ensure_aware(before, field="before")
        return self._feed(QueuedReminder, "reminders", company_id, location_ids, limit, upto=before)

    def _feed(
        self,
        kind: type[R],
        name: str,
        company_id: str | None,
        location_ids: Collection[str] | None,
        limit: int,
        **upto: Any,
    ) -> list[R]:
        parameters: dict[str, Any] = {"company_id": company_id, "limit": limit, **upto}
        if location_ids is not None:
            places = sorted(set(location_ids))
            if not places:
                return []
            parameters["location_ids"] = places
        statement = _FEEDS[(name, company_id is not None, location_ids is not None)]
        return self._records(kind, statement, parameters)

    def reminders_of(self, appointment_id: str) -> list[QueuedReminder]:
        return self._children(QueuedReminder, appointment_id)

    def audit_of(self, appointment_id: str) -> list[AuditEntry]:
        return self._children(AuditEntry, appointment_id)

    def _children(self, kind: type[R], appointment_id: str) -> list[R]:
        statement = _STATEMENTS[kind]["appointment_id"]
        return self._records(kind, statement, {"appointment_id": appointment_id})


_EVENTS = RECORD_TABLES[OutboxEvent]
_CLAIM = (
    select(_EVENTS.c.doc)
    .where(
        _EVENTS.c.due <= bindparam("now"),
        or_(_EVENTS.c.lease_until.is_(None), _EVENTS.c.lease_until <= bindparam("now")),
    )
    .order_by(_EVENTS.c.due, _EVENTS.c.undelivered)
    .limit(bindparam("limit"))
    # Rows another sender is leasing right now are skipped, not waited for (PostgreSQL,
    # MariaDB); SQLite has one writer at a time, so its claims never overlap.
    .with_for_update(skip_locked=True)
)
"""Events due for delivery and not leased, oldest due first (decision 38)."""


class SQLTransaction(SQLReader):
    """The protocol's writes; every write checks before it changes anything."""

    def __init__(self, store: UnitHost, conn: Connection) -> None:
        super().__init__(store, conn)
        self._drawn: int | None = None
        self._new_spans: list[tuple[tuple[str, str], int]] = []
        self._versioned: set[str] = set()

    def _execute(self, statement: Any, parameters: Any = None) -> Any:
        try:
            return self._conn.execute(statement, parameters)
        except Exception as error:
            raise self._failed(error, "writing") from error

    def insert(self, record: Record, /) -> None:
        kind = type(record)
        self._statements(kind)
        values = self._values(record)
        self._configuration_changes(record)
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

    def _configuration_changes(self, record: Record) -> None:
        """
        Raise the configuration version of *record*'s company, once per unit of work, before
        the first configuration write: every unit that changes a company's configuration takes
        its version row first, so two of them never wait for each other in opposite orders.
        """
        if type(record) not in CONFIGURATION_KINDS or record.company_id in self._versioned:
            return
        company_id = record.company_id
        try:
            self._store._dialect.insert_ignoring_duplicates(
                self._conn, _VERSIONS, [{"company_id": company_id, "version": 0}]
            )
        except Exception as error:
            raise self._failed(error, "writing") from error
        self._execute(_BUMP_VERSION, {"company": company_id})
        self._versioned.add(company_id)

    def next_sequence(self) -> int:
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

    def _link(self, record: Appointment, *, replace: bool) -> None:
        """Write the appointment's resource rows and grow the span bounds it exceeds."""
        if replace:
            self._execute(_UNLINK, {"record_id": record.id})
        resources = sorted(set(record.resource_ids))
        if resources:
            rows = [
                {
                    "appointment_id": record.id,
                    "resource_id": resource_id,
                    "start_at": record.start,
                    "end_at": record.end,
                }
                for resource_id in resources
            ]
            self._execute(_LINK_ROWS, rows)
        length = (record.end - record.start) // _MICROSECOND
        self._grow_spans(
            [("location", record.location_id)]
            + [("resource", resource_id) for resource_id in resources],
            length,
        )

    def _bound_padding(self, record: Service) -> None:
        """Grow the company's padding bound (a ``padding`` span row) to the service's padding."""
        padding = timedelta(minutes=record.padding) // _MICROSECOND
        self._grow_spans([("padding", record.company_id)], padding)

    def _grow_spans(self, keys: list[tuple[str, str]], length: int) -> None:
        """Insert a span row of *length* for each key whose stored bound is below it."""
        known = self._store._known_spans
        needed = [key for key in keys if known.get(key, -1) < length]
        if not needed:
            return
        rows = [
            {"scope": scope, "scope_id": scope_id, "length": length}
            for scope, scope_id in sorted(needed)
        ]
        try:
            self._store._dialect.insert_ignoring_duplicates(self._conn, spans, rows)
        except Exception as error:
            raise self._failed(error, "writing") from error
        self._new_spans += [(key, length) for key in needed]
