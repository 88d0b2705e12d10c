"""
The tables: one per record kind (the record as a JSON document plus the columns reads filter and
order on), the resource link table of appointments, and the store's bookkeeping.

Every record table has ``seq`` (an auto-increment key giving creation order: an update keeps it,
a delete and a new insert make a new, higher one), ``id`` (unique), ``company_id``, for kinds
that have one a ``location_id``, and ``doc``. Kind-specific columns are derived from the record
on every write, so they can never disagree with the document.

Instants are :class:`Instant` columns: ``timestamptz`` on PostgreSQL, UTC microseconds since the
Unix epoch (a ``BIGINT``) elsewhere, never naive local time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Sequence,
    String,
    Table,
    Text,
    TypeDecorator,
)
from sqlalchemy.dialects import mysql, postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeEngine

from slotwise.model import (
    RECORD_KINDS,
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
    OutboxEvent,
    QueuedReminder,
    Record,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
    Subscription,
)

__all__ = [
    "KEY_LENGTH",
    "RECORD_TABLES",
    "SCHEMA_VERSION",
    "Instant",
    "appointment_resources",
    "configuration_versions",
    "counters",
    "email_key",
    "lookup_key",
    "locks",
    "metadata",
    "outbox_sequence",
    "record_values",
    "schema_version",
    "spans",
]

SCHEMA_VERSION = 8
"""The layout this module creates; stored in ``slotwise_schema_version`` (see docs/sql.md)."""

KEY_LENGTH = 255
"""Longest id (and other key) a SQL store keeps; an index on MariaDB needs a bounded length."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)

# MariaDB: InnoDB, full UTF-8, and a binary collation without trailing-space padding, so ids
# and idempotency keys compare exactly ("K-1" != "k-1", "a" != "a ") and sort as Python sorts.
_TABLE_OPTIONS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_nopad_bin",
}


class Instant(TypeDecorator[datetime]):
    """
    An aware instant: ``timestamptz`` on PostgreSQL, UTC microseconds since 1970 elsewhere.

    Integers compare as instants do on every dialect; text would need one fixed format and
    offset to sort right, and a naive ``DATETIME`` would need a session time zone.
    """

    impl = BigInteger
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        """Use ``timestamp with time zone`` on PostgreSQL, ``BIGINT`` elsewhere."""
        if dialect.name == "postgresql":
            return dialect.type_descriptor(postgresql.TIMESTAMP(timezone=True))
        return dialect.type_descriptor(BigInteger())

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        """Convert an aware datetime to the column's representation."""
        if value is None:
            return None
        utc = value.astimezone(UTC)
        if dialect.name == "postgresql":
            return utc
        return (utc - _EPOCH) // _MICROSECOND

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Convert a column value back to an aware UTC datetime."""
        if value is None:
            return None
        if isinstance(value, datetime):
            return value.astimezone(UTC)
        return _EPOCH + int(value) * _MICROSECOND


def _key() -> TypeEngine[str]:
    # PostgreSQL: the "C" collation compares and sorts by code point, as Python does; the
    # database's default (often en_US) ignores punctuation when sorting ("apt-a" vs "apt0").
    return String(KEY_LENGTH).with_variant(
        postgresql.VARCHAR(KEY_LENGTH, collation="C"), "postgresql"
    )


def _document() -> TypeEngine[str]:
    return Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")


def _sequence_column() -> Column[int]:
    # SQLite only auto-increments an INTEGER PRIMARY KEY (the rowid).
    return Column(
        "seq",
        BigInteger().with_variant(Integer(), "sqlite"),
        primary_key=True,
        autoincrement=True,
    )


metadata = MetaData()
"""Every table a ``SQLStore`` creates, for a host's own migrations (``metadata.create_all(engine)``)."""


def _record_table(
    name: str,
    *extra: Column[Any],
    located: bool = True,
    indexes: dict[str, tuple[str, ...]] | None = None,
) -> Table:
    """Define ``slotwise_<name>``: the common columns, *extra* ones, and ``ix_<table>_<suffix>``."""
    table_name = f"slotwise_{name}"
    columns: list[Column[Any]] = [
        _sequence_column(),
        Column("id", _key(), nullable=False, unique=True),
        Column("company_id", _key(), nullable=False),
    ]
    if located:
        columns.append(Column("location_id", _key(), nullable=True))
    columns += [*extra, Column("doc", _document(), nullable=False)]
    table = Table(table_name, metadata, *columns, **_TABLE_OPTIONS)
    Index(f"ix_{table_name}_company", table.c.company_id, table.c.seq)
    if located:
        Index(f"ix_{table_name}_location", table.c.location_id, table.c.seq)
    for suffix, names in (indexes or {}).items():
        Index(f"ix_{table_name}_{suffix}", *(table.c[name] for name in names))
    return table


def _window_table(name: str) -> Table:
    return _record_table(
        name,
        Column("target_id", _key(), nullable=False),
        Column("start_date", Date(), nullable=False),
        Column("end_date", Date(), nullable=False),
        indexes={"target": ("target_id", "start_date")},
    )


RECORD_TABLES: dict[type[Any], Table] = {
    Company: _record_table("company", located=False),
    Location: _record_table("location", located=False),
    Calendar: _record_table("calendar"),
    Service: _record_table("service"),
    ServiceGroup: _record_table("service_group"),
    Resource: _record_table("resource"),
    ResourceGroup: _record_table("resource_group"),
    Subscription: _record_table("subscription", located=False),
    FieldDefinition: _record_table("field_definition"),
    Block: _window_table("block"),
    Allocation: _window_table("allocation"),
    Customer: _record_table(
        "customer",
        Column("email_key", _key(), nullable=True),
        located=False,
        indexes={"email": ("company_id", "email_key", "seq")},
    ),
    Appointment: _record_table(
        "appointment",
        Column("start_at", Instant(), nullable=False),
        Column("end_at", Instant(), nullable=False),
        Column("customer_id", _key(), nullable=True),
        Column("idempotency_key", _key(), nullable=True),
        # hold_expires_at of an IN appointment, NULL otherwise: the expired-holds feed is a
        # range read of this index and never meets booked or cancelled history.
        Column("hold_until", Instant(), nullable=True),
        # Schema version 5, the list read's filters (NULL only in rows a version 4 upgrade
        # has not reached yet): the service, the status code, the folded e-mail address.
        Column("service_id", _key(), nullable=True),
        Column("status", String(2), nullable=True),
        Column("email_key", _key(), nullable=True),
        indexes={
            "start": ("location_id", "start_at"),
            # The list read (version 5): with the company first, a count is an index-only scan.
            "listing": ("company_id", "location_id", "seq"),
            "service": ("company_id", "location_id", "service_id", "seq"),
            "status": ("company_id", "location_id", "status", "seq"),
            "email": ("company_id", "location_id", "email_key", "seq"),
            "customer": ("customer_id", "seq"),
            "idempotency": ("company_id", "idempotency_key"),
            "hold": ("hold_until", "id"),
            "company_hold": ("company_id", "hold_until", "id"),
            "location_hold": ("location_id", "hold_until", "id"),
        },
    ),
    QueuedReminder: _record_table(
        "queued_reminder",
        Column("appointment_id", _key(), nullable=False),
        # due_at while unsent, NULL once sent: the due feed never meets sent reminders.
        Column("unsent_due", Instant(), nullable=True),
        indexes={
            "appointment": ("appointment_id", "seq"),
            "due": ("unsent_due", "id"),
            "company_due": ("company_id", "unsent_due", "id"),
            "location_due": ("location_id", "unsent_due", "id"),
        },
    ),
    AuditEntry: _record_table(
        "audit_entry",
        Column("appointment_id", _key(), nullable=False),
        indexes={"appointment": ("appointment_id", "seq")},
    ),
    OutboxEvent: _record_table(
        "outbox_event",
        # sequence while undelivered, NULL once delivered: the feed never meets delivered history.
        Column("undelivered", BigInteger(), nullable=True),
        # location_id (schema version 2): NULL for company-wide events (decision 37).
        # Schema version 4, delivery (decision 38): when the next attempt is due (NULL once
        # delivered or failed) and until when a sender's lease holds.
        Column("due", Instant(), nullable=True),
        Column("lease_until", Instant(), nullable=True),
        # Schema version 5, the list read: pending, delivered or failed (decision 38).
        Column("delivery_status", String(16), nullable=True),
        indexes={
            "listing": ("company_id", "delivery_status", "seq"),
            "due": ("due", "undelivered"),
            "undelivered": ("undelivered", "id"),
            "company_undelivered": ("company_id", "undelivered", "id"),
            "location_undelivered": ("location_id", "undelivered", "id"),
        },
    ),
    ApiToken: _record_table(
        "api_token",
        # Schema version 3: tokens of the HTTP service, found by the SHA-256 of the token.
        Column("token_hash", _key(), nullable=False),
        located=False,
        indexes={"hash": ("token_hash",)},
    ),
}
"""The table of each record kind."""

assert set(RECORD_TABLES) == set(RECORD_KINDS), "every record kind needs a table"

appointment_resources = Table(
    "slotwise_appointment_resource",
    metadata,
    Column("appointment_id", _key(), nullable=False),
    Column("resource_id", _key(), nullable=False),
    Column("start_at", Instant(), nullable=False),
    Column("end_at", Instant(), nullable=False),
    PrimaryKeyConstraint("appointment_id", "resource_id"),
    Index("ix_slotwise_appointment_resource_start", "resource_id", "start_at"),
    **_TABLE_OPTIONS,
)
"""One row per (appointment, resource it takes): the per-resource range reads scan its index."""

spans = Table(
    "slotwise_span",
    metadata,
    Column("scope", String(16), nullable=False),
    Column("scope_id", _key(), nullable=False),
    Column("length", BigInteger(), nullable=False),
    PrimaryKeyConstraint("scope", "scope_id", "length"),
    **_TABLE_OPTIONS,
)
"""
Appointment lengths (microseconds) seen per resource and per location, and (schema version 6)
the largest service padding seen per company (scope ``padding``); only ever inserted.

An appointment overlapping ``[start, end)`` starts in ``[start - longest, end)``, so the range
reads scan the ``start`` index from ``start - longest`` instead of from the beginning of
history; an appointment whose occupied time (end plus its service's padding) meets ``[start,
end)`` ends after ``start - padding``. Rows are insert-only (a new row only when a length
exceeds what was stored), so concurrent bookings never update, and never wait for, a shared row.
"""

configuration_versions = Table(
    "slotwise_configuration_version",
    metadata,
    Column("company_id", _key(), primary_key=True),
    Column("version", BigInteger(), nullable=False),
    **_TABLE_OPTIONS,
)
"""
(Schema version 7) one row per company: its configuration version (decision 49), raised by every
unit of work that writes one of its configuration records (``CONFIGURATION_KINDS``), so a
process's cached configuration is checked by one primary-key read. No row reads as version 0.
"""

locks = Table(
    "slotwise_lock",
    metadata,
    Column("name", _key(), primary_key=True),
    **_TABLE_OPTIONS,
)
"""One row per lock name (MariaDB): ``SELECT ... FOR UPDATE`` on it is the lock."""

counters = Table(
    "slotwise_counter",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", BigInteger(), nullable=False),
    **_TABLE_OPTIONS,
)
"""Named counters (SQLite's outbox sequence, which has no SEQUENCE objects)."""

schema_version = Table(
    "slotwise_schema_version",
    metadata,
    Column("version", Integer(), primary_key=True, autoincrement=False),
    # Since version 8: the oldest layout version whose code can still run on these tables
    # (rolling upgrades; NULL reads as ``version``: only code of that version).
    Column("compatible_since", Integer(), nullable=True),
    **_TABLE_OPTIONS,
)
"""One row: the :data:`SCHEMA_VERSION` the tables were created with or upgraded to, and the
oldest version whose code runs on them (``_versions.py``)."""

outbox_sequence = Sequence("slotwise_outbox_sequence", start=1, metadata=metadata)
"""``next_sequence()`` on PostgreSQL and MariaDB: never rolled back, never reused."""


def lookup_key(value: str) -> str:
    """
    Return the indexed form of an unbounded text key (idempotency key, folded e-mail).

    Keys up to :data:`KEY_LENGTH` characters are stored as they are; longer ones as a digest.
    Readers compare the record's own field afterwards, so a digest never decides equality.
    """
    if len(value) <= KEY_LENGTH:
        return value
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


def email_key(email: str) -> str:
    """Return the indexed form of an e-mail address: stripped, case-folded (protocol rule)."""
    return lookup_key(email.strip().casefold())


def _appointment_values(record: Appointment) -> dict[str, Any]:
    held = record.status is AppointmentStatus.INITIAL and record.hold_expires_at is not None
    return {
        "location_id": record.location_id,
        "start_at": record.start,
        "end_at": record.end,
        "customer_id": record.customer_id,
        "idempotency_key": (
            None if record.idempotency_key is None else lookup_key(record.idempotency_key)
        ),
        "hold_until": record.hold_expires_at if held else None,
        "service_id": record.service_id,
        "status": record.status.value,
        "email_key": None if record.email is None else email_key(record.email),
    }


_EXTRA_VALUES: dict[type[Any], Callable[[Any], dict[str, Any]]] = {
    Block: lambda record: {
        "target_id": record.target_id,
        "start_date": record.start_date,
        "end_date": record.end_date,
    },
    Allocation: lambda record: {
        "target_id": record.target_id,
        "start_date": record.start_date,
        "end_date": record.end_date,
    },
    Customer: lambda record: {
        "email_key": None if record.email is None else email_key(record.email)
    },
    Appointment: _appointment_values,
    QueuedReminder: lambda record: {
        "appointment_id": record.appointment_id,
        "unsent_due": record.due_at if record.sent_at is None else None,
    },
    AuditEntry: lambda record: {"appointment_id": record.appointment_id},
    OutboxEvent: lambda record: {
        "undelivered": record.sequence if record.delivered_at is None else None,
        "due": record.due_at,
        "lease_until": record.lease_until,
        "delivery_status": record.delivery_status,
    },
    ApiToken: lambda record: {"token_hash": record.token_hash},
}


def record_values(record: Record, document: str) -> dict[str, Any]:
    """Return the column values of *record*'s row (all but ``seq``)."""
    kind = type(record)
    table = RECORD_TABLES[kind]
    values: dict[str, Any] = {"id": record.id, "company_id": record.company_id, "doc": document}
    if "location_id" in table.c:
        values["location_id"] = getattr(record, "location_id", None)
    extra = _EXTRA_VALUES.get(kind)
    if extra is not None:
        values.update(extra(record))
    return values
