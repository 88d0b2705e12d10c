"""
The statements ``SQLStore``'s units of work run, each built once per record table.
"""

from __future__ import annotations

import functools
from datetime import timedelta
from typing import Any

from sqlalchemy import (
    Table,
    and_,
    bindparam,
    delete,
    func,
    insert,
    literal_column,
    or_,
    select,
    update,
)

from slotwise.errors import OutOfRange
from slotwise.model import ApiToken, Appointment, Customer, OutboxEvent, QueuedReminder

from ._schema import RECORD_TABLES, Instant, appointment_resources, configuration_versions, spans

__all__: list[str] = []  # private to the SQL store's units of work

_MICROSECOND = timedelta(microseconds=1)
_KEY_FIELDS = ("id", "company_id", "location_id", "target_id", "customer_id", "appointment_id")


def _check_limit(limit: int) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise OutOfRange(field="limit", allowed="at least 1", requested=limit)


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


def _longest(scope: str, scope_id: Any) -> Any:
    """The longest appointment stored for (*scope*, *scope_id*), microseconds; NULL if none."""
    return (
        select(func.max(spans.c.length))
        .where(spans.c.scope == scope, spans.c.scope_id == scope_id)
        .scalar_subquery()
    )


def _before(instant: Any, microseconds: Any, timestamps: bool) -> Any:
    """*instant* minus *microseconds* in SQL: ``timestamptz`` (*timestamps*) or integers."""
    if timestamps:
        return instant - microseconds * literal_column("interval '1 microsecond'")
    return instant - microseconds


@functools.lru_cache(maxsize=64)
def _taking_resources(count: int, timestamps: bool, padded: bool) -> Any:
    """
    The appointments taking one of *count* resources (``resource_0``..) that start in
    ``[from - that resource's longest appointment, end)`` and end after ``from``: built once per
    shape, so a read binds values only. ``from`` is ``start``, or with *padded* ``start`` minus
    the largest service padding of the company ``company_id`` (its ``padding`` span row; none:
    0). *timestamps*: instants are ``timestamptz`` (PostgreSQL), else integer microseconds.

    Each bound is an uncorrelated scalar subquery of ``slotwise_span``: the database computes it
    once, before the range read it bounds, so the read stays an index range read from ``from -
    longest`` (the plan tests in ``test_sql_stores.py``) and the bound costs no round trip of its
    own. A resource with no span row bounds nothing (``>= NULL``): it has no appointments.
    """
    start: Any = bindparam("start", type_=Instant())
    if padded:
        padding = func.coalesce(_longest("padding", bindparam("company_id")), 0)
        start = _before(start, padding, timestamps)
    ranges = [
        and_(
            _LINK.c.resource_id == bindparam(f"resource_{position}"),
            _LINK.c.start_at
            >= _before(start, _longest("resource", bindparam(f"resource_{position}")), timestamps),
            _LINK.c.start_at < bindparam("end", type_=Instant()),
        )
        for position in range(count)
    ]
    # A derived table joined on the unique id, not "id IN (subquery)": SQLite would scan the
    # location's whole history and test each id against the list.
    taking = (
        select(_LINK.c.appointment_id)
        .where(or_(*ranges), _LINK.c.end_at > start)
        .distinct()
        .subquery()
    )
    return (
        select(_APPOINTMENTS.c.doc)
        .join_from(taking, _APPOINTMENTS, _APPOINTMENTS.c.id == taking.c.appointment_id)
        .order_by(_APPOINTMENTS.c.start_at, _APPOINTMENTS.c.id)
    )


# The appointments at ``location_id`` overlapping [start, end), from start minus the location's
# longest appointment (its span row, read in the statement), by (start, id); per whether
# instants are timestamptz (PostgreSQL).
_AT_LOCATION = {
    timestamps: select(_APPOINTMENTS.c.doc)
    .where(
        _APPOINTMENTS.c.location_id == bindparam("location_id"),
        _APPOINTMENTS.c.start_at
        >= _before(
            bindparam("start", type_=Instant()),
            _longest("location", bindparam("location_id")),
            timestamps,
        ),
        _APPOINTMENTS.c.start_at < bindparam("end", type_=Instant()),
        _APPOINTMENTS.c.end_at > bindparam("start", type_=Instant()),
    )
    .order_by(_APPOINTMENTS.c.start_at, _APPOINTMENTS.c.id)
    for timestamps in (False, True)
}
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
