"""
Rolling upgrades on SQLite, PostgreSQL and MariaDB (docs/sql.md, "Schema version and upgrades").

A later release is simulated in this process: ``SCHEMA_VERSION`` and ``UPGRADES`` extended by
one step 8 -> 9 (a nullable column on ``slotwise_appointment`` and a new table), opened as its
own ``SQLStore`` (its own engine and connections) beside a store of this release that is
already running. With the step additive, the running store keeps booking on the upgraded
tables, is still ready and opens again; with the step breaking, the running store's readiness
fails and it is refused on its next open, naming the versions. ``slotwise schema status`` says
which, each time.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, cast
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Column, MetaData, String, Table, inspect, text, update

from slotwise import Scheduler
from slotwise.cli import main
from slotwise.errors import SlotUnavailable, StoreError
from slotwise.model import Appointment
from slotwise.storage.sql import SCHEMA_VERSION, SQLStore, _versions, schema_status
from slotwise.storage.sql._schema import schema_version
from slotwise.storage.sql._upgrades import UPGRADES, Step, _add_column
from slotwise.testing import ManualClock, SequentialIds

from .servers import MARIADB, POSTGRES, server_store, sqlite_store

NEXT = SCHEMA_VERSION + 1
NOW = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)
NY = ZoneInfo("America/New_York")
DAY = datetime(2026, 1, 6, tzinfo=NY)

_later = MetaData()
_appointment_notes = Table(
    "slotwise_appointment", _later, Column("note", String(64), nullable=True)
)
_notes = Table("slotwise_note", _later, Column("id", String(64), primary_key=True))


def _add_notes(conn: Any, schema: str | None) -> None:
    """The later release's step: a nullable column and a new table (re-runnable, as all steps)."""
    _add_column(conn, _appointment_notes, "note", schema)
    _notes.create(conn, checkfirst=True)


OPENERS = [
    pytest.param(sqlite_store, id="sqlite"),
    pytest.param(lambda: server_store(POSTGRES), id="postgres", marks=pytest.mark.external_service),
    pytest.param(lambda: server_store(MARIADB), id="mariadb", marks=pytest.mark.external_service),
]


@pytest.fixture(params=OPENERS)
def running(request: pytest.FixtureRequest) -> Iterator[SQLStore]:
    """A store of this release on fresh tables; its tables are put back to this release after."""
    opener = cast(Callable[[], AbstractContextManager[SQLStore]], request.param)
    with opener() as store:
        try:
            yield store
        finally:
            _back_to_this_release(store)


def _connection(store: SQLStore) -> Any:
    conn = store.engine.connect()
    if store.schema is not None:
        conn = conn.execution_options(schema_translate_map={None: store.schema})
    return conn


def _back_to_this_release(store: SQLStore) -> None:
    """Undo the later release's step, so the server's schema can serve the next test."""
    with _connection(store) as conn:
        _notes.drop(conn, checkfirst=True)
        columns = inspect(conn).get_columns("slotwise_appointment", schema=store.schema)
        if any(column["name"] == "note" for column in columns):
            preparer = conn.dialect.identifier_preparer
            name = preparer.quote("slotwise_appointment")
            if store.schema is not None:
                name = f"{preparer.quote_schema(store.schema)}.{name}"
            conn.execute(text(f"ALTER TABLE {name} DROP COLUMN note"))
        conn.execute(
            update(schema_version).values(version=SCHEMA_VERSION, compatible_since=SCHEMA_VERSION)
        )
        conn.commit()


@contextmanager
def _later_release(*, breaking: bool) -> Iterator[None]:
    """Run the block as the release after this one: its step 8 -> 9, additive or breaking."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_versions, "SCHEMA_VERSION", NEXT)
        patch.setitem(UPGRADES, SCHEMA_VERSION, Step(_add_notes, breaking=breaking))
        yield


def _reopen(store: SQLStore, **options: Any) -> SQLStore:
    """Open another SQLStore on *store*'s tables with an engine of its own, as another process."""
    url = store.engine.url.render_as_string(hide_password=False)
    return SQLStore(url, schema=store.schema, **options)


def _url(store: SQLStore) -> list[str]:
    """The command line's --db (and --schema) of *store*'s tables."""
    argv = ["--db", store.engine.url.render_as_string(hide_password=False)]
    return argv if store.schema is None else [*argv, "--schema", store.schema]


def _printed(code: int, tables: int, since: int, state: str) -> str:
    """What ``slotwise schema status`` prints for these versions."""
    return "".join(
        f"{name + ':':<18}{value}\n"
        for name, value in (
            ("code", code),
            ("tables", tables),
            ("compatible since", since),
            ("state", state),
        )
    )


def _versions_of(tables: int, since: int) -> str:
    return f"schema version {tables}, compatible since {since}"


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(list(argv), out=out)
    return status, out.getvalue()


class _Shop:
    """A company with one resource and one hour-long service, booked through a Scheduler."""

    def __init__(self, store: SQLStore) -> None:
        self.scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("old-"))
        company = self.scheduler.create_company(name="Acme", timezone="America/New_York")
        self.ws = self.scheduler.for_company(company.id)
        self.ws.locations.create(name="Downtown")
        self.service = self.ws.services.create(name="Cut", duration=60, reason="r")
        self.resource = self.ws.resources.create(name="Ana", reason="r")

    def book(self, hour: int, scheduler: Scheduler | None = None) -> Appointment:
        """Book the resource from *hour* for an hour, through *scheduler* (default: the shop's)."""
        ws = (scheduler or self.scheduler).for_company(self.ws.principal.company_id)
        start = DAY.replace(hour=hour)
        return ws.appointments.create(
            self.service.id,
            start,
            start + timedelta(hours=1),
            resource_id=self.resource.id,
            name="Bo Li",
            email="bo@example.com",
            complete_booking="BK",
        )


def _ready(store: SQLStore) -> tuple[int, dict[str, Any]]:
    """GET /readyz of the HTTP service on *store*: (status, body)."""
    from litestar.testing import TestClient

    from slotwise.http import create_app

    with TestClient(create_app(Scheduler(store))) as client:
        answer = client.get("/readyz")
    return answer.status_code, answer.json()


def test_a_running_store_keeps_booking_after_an_additive_upgrade(running: SQLStore):
    """Tables upgraded to 9, compatible since 8: the running store books, is ready, reopens."""
    shop = _Shop(running)
    shop.book(9)
    for _ in range(6):  # past psycopg's prepare threshold: its statements outlive the DDL
        shop.ws.appointments.list(limit=5)
    with _later_release(breaking=False):
        later = _reopen(running)
        try:
            later_scheduler = Scheduler(later, clock=ManualClock(NOW), ids=SequentialIds("new-"))
            shop.book(11, later_scheduler)
            later_status = _cli("schema", "status", *_url(running))
        finally:
            later.close()

    booked = shop.book(13)
    with pytest.raises(SlotUnavailable):
        shop.book(11)  # the later release's booking holds the resource for this one too
    again = _reopen(running, create=False)
    again.close()
    status = _cli("schema", "status", *_url(running))
    upgrade = _cli("schema", "upgrade", *_url(running))

    checked = running.check()
    ready, body = _ready(running)

    assert (NEXT, SCHEMA_VERSION, "compatible") == (
        checked.tables,
        checked.compatible_since,
        checked.state,
    )
    assert "BK" == booked.status.value
    assert ["old-", "new-", "old-"] == [
        a.id[:4] for a in sorted(shop.ws.appointments.list(limit=10).data, key=lambda a: a.start)
    ]
    assert (0, _printed(NEXT, NEXT, SCHEMA_VERSION, "current")) == later_status
    assert (
        0,
        _printed(
            SCHEMA_VERSION, NEXT, SCHEMA_VERSION, "compatible (newer tables this slotwise runs on)"
        ),
    ) == status
    assert (
        0,
        f"nothing to do: the tables are at {_versions_of(NEXT, SCHEMA_VERSION)}\n",
    ) == upgrade
    assert (
        200,
        {"code": SCHEMA_VERSION, "tables": NEXT, "compatibleSince": SCHEMA_VERSION},
    ) == (ready, body["schema"])


def test_a_breaking_upgrade_fails_readiness_and_the_next_open(running: SQLStore, capsys):
    """Tables upgraded to 9, compatible since 9: readiness 503 STORE, opening refused, status 1."""
    shop = _Shop(running)
    shop.book(9)
    with _later_release(breaking=True):
        _reopen(running).close()

    ready, body = _ready(running)
    with pytest.raises(StoreError) as refused:
        _reopen(running, create=False)
    with pytest.raises(StoreError):
        _reopen(running)  # create=True never downgrades
    status = _cli("schema", "status", *_url(running))
    upgrade = _cli("schema", "upgrade", *_url(running))

    expected = (
        f"are at schema version {NEXT}, which runs slotwise of schema version {NEXT} or later; "
        f"this slotwise knows up to {SCHEMA_VERSION}: upgrade slotwise"
    )
    assert (503, "STORE") == (ready, body["code"])
    assert expected in body["message"]
    assert expected in str(refused.value)
    incompatible = f"incompatible (upgrade slotwise to schema version {NEXT} or later)"
    assert (1, _printed(SCHEMA_VERSION, NEXT, NEXT, incompatible)) == status
    assert (2, "") == upgrade
    assert expected in capsys.readouterr().err
    assert (NEXT, NEXT) == (
        schema_status(running.engine, schema=running.schema).tables,
        schema_status(running.engine, schema=running.schema).compatible_since,
    )
