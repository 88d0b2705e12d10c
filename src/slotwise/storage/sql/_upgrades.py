"""
Schema upgrades: one step per version, ``UPGRADES[n]`` moving the tables from *n* to *n* + 1.

``SQLStore`` runs the missing steps when opened with ``create=True`` (see docs/sql.md, "Schema
version and upgrades"), under the schema lock, and records each new version. MariaDB commits DDL
implicitly, so every step checks what is already there and can run again after an interruption.
Each step says whether it breaks the code of the version before it (``Step.breaking``): that
decides which releases may run side by side on the upgraded tables (``_versions.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
from sqlalchemy import Connection, Table, func, insert, inspect, select, text, update
from sqlalchemy.schema import CreateColumn

from slotwise.model import ApiToken, Appointment, OutboxEvent, QueuedReminder, Service

from ._codec import decode, encode
from ._schema import RECORD_TABLES, configuration_versions, record_values, schema_version, spans

__all__ = ["UPGRADES", "Step", "Upgrade", "event_location"]

Upgrade = Callable[[Connection, str | None], None]
"""One step: the connection (schema lock held, schema translation on) and the store's schema."""


@attrs.frozen
class Step:
    """
    One upgrade step and what it does to code of the version before it.

    An additive step (a new table, a new nullable or defaulted column, a new index, rows no
    older code reads) leaves that code able to run: ``breaking=False``. A step after which older
    code would write rows the new code misreads, or fail on the new layout, is ``breaking``:
    the tables then run only code of the step's own version or later.
    """

    run: Upgrade
    breaking: bool

    def __call__(self, conn: Connection, schema: str | None) -> None:
        """Run the step on *conn*."""
        self.run(conn, schema)


_BATCH = 500


def event_location(event: OutboxEvent) -> str | None:
    """
    Return the location an event of schema version 1 was about, read from its payload.

    Appointment and reminder events carry the appointment (and the reminder), resource events
    the resource, each with its ``location_id``; customer events carry none: company-wide.
    """
    for key in ("appointment", "reminder", "resource"):
        data = event.payload.get(key)
        if isinstance(data, Mapping):
            location_id = data.get("location_id")
            if isinstance(location_id, str):
                return location_id
    return None


def _has_column(conn: Connection, table: Table, column: str, schema: str | None) -> bool:
    return any(found["name"] == column for found in inspect(conn).get_columns(table.name, schema))


def _add_column(conn: Connection, table: Table, column: str, schema: str | None) -> None:
    if _has_column(conn, table, column, schema):
        return
    preparer = conn.dialect.identifier_preparer
    name = preparer.quote(table.name)
    if schema is not None:
        name = f"{preparer.quote_schema(schema)}.{name}"
    # The column exactly as create_all would make it (PostgreSQL: the "C" collation).
    definition = CreateColumn(table.c[column]).compile(dialect=conn.dialect)
    conn.execute(text(f"ALTER TABLE {name} ADD COLUMN {definition}"))


def _add_indexes(conn: Connection, table: Table, schema: str | None) -> None:
    inspector = inspect(conn)
    existing = {found["name"] for found in inspector.get_indexes(table.name, schema)}
    columns = {found["name"] for found in inspector.get_columns(table.name, schema)}
    for index in sorted(table.indexes, key=lambda index: str(index.name)):
        # An index on a column of a later version is that version's step's to add.
        if index.name not in existing and {c.name for c in index.columns} <= columns:
            index.create(conn)


def _locate_events(conn: Connection) -> None:
    """Fill ``location_id`` of every version 1 event (column and document), in batches."""
    table = RECORD_TABLES[OutboxEvent]
    after = 0
    while True:
        rows = conn.execute(
            select(table.c.seq, table.c.doc)
            .where(table.c.seq > after, table.c.location_id.is_(None))
            .order_by(table.c.seq)
            .limit(_BATCH)
        ).all()
        for seq, document in rows:
            event = decode(OutboxEvent, document)
            location_id = event_location(event)
            if location_id is not None:
                located = attrs.evolve(event, location_id=location_id)
                conn.execute(
                    update(table)
                    .where(table.c.seq == seq)
                    .values(location_id=location_id, doc=encode(located))
                )
        if len(rows) < _BATCH:
            return
        after = rows[-1][0]


def _version_1_to_2(conn: Connection, schema: str | None) -> None:
    """
    Events carry their location (decision 37); the feeds read by location.

    Adds ``slotwise_outbox_event.location_id`` (filled from each event's payload; customer
    events stay company-wide, ``NULL``) and the location indexes of the three feeds.
    """
    events = RECORD_TABLES[OutboxEvent]
    _add_column(conn, events, "location_id", schema)
    _locate_events(conn)
    for kind in (OutboxEvent, Appointment, QueuedReminder):
        _add_indexes(conn, RECORD_TABLES[kind], schema)


def _version_2_to_3(conn: Connection, schema: str | None) -> None:
    """API tokens of the HTTP service (decision 39): the table ``slotwise_api_token``."""
    RECORD_TABLES[ApiToken].create(conn, checkfirst=True)
    _add_indexes(conn, RECORD_TABLES[ApiToken], schema)


def _version_3_to_4(conn: Connection, schema: str | None) -> None:
    """
    Delivery state of events (decision 38): ``due`` and ``lease_until`` on the outbox.

    Events not yet delivered become due at once (their documents have no delivery state yet,
    so they read as never attempted).
    """
    events = RECORD_TABLES[OutboxEvent]
    for column in ("due", "lease_until"):
        _add_column(conn, events, column, schema)
    conn.execute(
        update(events)
        .where(events.c.undelivered.is_not(None), events.c.due.is_(None))
        .values(due=_EPOCH)
    )
    _add_indexes(conn, events, schema)


def _fill_from_documents(conn: Connection, kind: type[Any], columns: tuple[str, ...]) -> None:
    """
    Fill *columns* of every row of *kind* whose first of them is NULL, from its document.

    The values are what every write derives (``record_values``), so an upgraded row holds what
    the same record written now would.
    """
    table = RECORD_TABLES[kind]
    after = 0
    while True:
        rows = conn.execute(
            select(table.c.seq, table.c.doc)
            .where(table.c.seq > after, table.c[columns[0]].is_(None))
            .order_by(table.c.seq)
            .limit(_BATCH)
        ).all()
        for seq, document in rows:
            derived = record_values(decode(kind, document), document)
            values = {column: derived[column] for column in columns}
            conn.execute(update(table).where(table.c.seq == seq).values(**values))
        if len(rows) < _BATCH:
            return
        after = rows[-1][0]


def _version_4_to_5(conn: Connection, schema: str | None) -> None:
    """
    The list read filters in SQL: appointments by ``service_id``, ``status`` and ``email_key``,
    outbox events by ``delivery_status``.

    The columns are filled from each record's document, in batches, then indexed.
    """
    for kind, columns in (
        (Appointment, ("status", "service_id", "email_key")),
        (OutboxEvent, ("delivery_status",)),
    ):
        table = RECORD_TABLES[kind]
        for column in columns:
            _add_column(conn, table, column, schema)
        _fill_from_documents(conn, kind, columns)
        _add_indexes(conn, table, schema)


def _version_5_to_6(conn: Connection, schema: str | None) -> None:
    """
    The booking check reads back only as far as a company's largest service padding: a
    ``padding`` span row per company, from its services' documents.
    """
    table = RECORD_TABLES[Service]
    largest: dict[str, int] = {}
    after = 0
    while True:
        rows = conn.execute(
            select(table.c.seq, table.c.doc)
            .where(table.c.seq > after)
            .order_by(table.c.seq)
            .limit(_BATCH)
        ).all()
        for _, document in rows:
            service = decode(Service, document)
            padding = timedelta(minutes=service.padding) // timedelta(microseconds=1)
            largest[service.company_id] = max(padding, largest.get(service.company_id, 0))
        if len(rows) < _BATCH:
            break
        after = rows[-1][0]
    for company_id, padding in sorted(largest.items()):
        stored = conn.execute(
            select(func.max(spans.c.length)).where(
                spans.c.scope == "padding", spans.c.scope_id == company_id
            )
        ).scalar()
        if stored is None or int(stored) < padding:
            conn.execute(insert(spans).values(scope="padding", scope_id=company_id, length=padding))


def _version_6_to_7(conn: Connection, schema: str | None) -> None:
    """
    Configuration read once per change (decision 49): the per-company configuration version
    table. Companies start without a row (version 0); their next configuration write adds it.
    """
    configuration_versions.create(conn, checkfirst=True)


def _version_7_to_8(conn: Connection, schema: str | None) -> None:
    """
    Rolling upgrades: ``slotwise_schema_version.compatible_since``, the oldest version whose
    code runs on the tables (the upgrade loop fills it in after the step).
    """
    _add_column(conn, schema_version, "compatible_since", schema)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# Why each step breaks older code, or not:
# 1 -> 2: older code writes events without location_id, which the location feeds miss.
# 2 -> 3: a new table only.
# 3 -> 4: older code writes undelivered events without `due`: the worker never claims them.
# 4 -> 5: older code writes appointments and events without the list columns.
# 5 -> 6: older code writes services without raising the padding span.
# 6 -> 7: older code writes configuration without raising its version (decision 49).
# 7 -> 8: a new nullable column only (code at 7 still refuses the tables: it predates the rule).
UPGRADES: dict[int, Step] = {
    1: Step(_version_1_to_2, breaking=True),
    2: Step(_version_2_to_3, breaking=False),
    3: Step(_version_3_to_4, breaking=True),
    4: Step(_version_4_to_5, breaking=True),
    5: Step(_version_5_to_6, breaking=True),
    6: Step(_version_6_to_7, breaking=True),
    7: Step(_version_7_to_8, breaking=False),
}
"""``UPGRADES[n]`` moves a schema from version *n* to *n* + 1."""
