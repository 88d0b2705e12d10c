"""SQLStore keeps the store contract on a SQLite file, PostgreSQL and MariaDB."""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, cast

import attrs
import pytest
from sqlalchemy import create_engine, delete, event, inspect, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from slotwise.errors import (
    ConflictError,
    FieldTooLong,
    InvalidFormat,
    NotFound,
    StoreError,
    StoreUnavailable,
)
from slotwise.model import (
    Allocation,
    ApiToken,
    Appointment,
    AppointmentStatus,
    Block,
    Company,
    Customer,
    OutboxEvent,
    Resource,
    Service,
    Trigger,
)
from slotwise.storage.batched import prefetch, windows_touching
from slotwise.storage.listing import ListQuery
from slotwise.storage.memory import MemoryStore
from slotwise.storage.protocol import Store
from slotwise.storage.sql import SCHEMA_VERSION, SQLStore
from slotwise.storage.sql._schema import (
    RECORD_TABLES,
    configuration_versions,
    schema_version,
    spans,
)
from slotwise.storage.sql._upgrades import UPGRADES, event_location
from slotwise.testing import StoreContract
from slotwise.testing.contract._world import RES_1, RES_2, SVC_A1, _bare_world, _window
from slotwise.testing.samples import (
    sample_api_token,
    sample_appointment,
    sample_company,
    sample_customer,
    sample_location,
    sample_outbox_event,
    sample_resource,
    sample_service,
)

from .servers import MARIADB, POSTGRES, server_store, sqlite_store


class _SQLContract(StoreContract):
    """Makes each store in a context that removes its file or schema at dispose time."""

    def _open(self) -> Any:
        raise NotImplementedError

    def make_store(self) -> Store:
        """Return a fresh SQLStore; its file or schema is removed by dispose_store()."""
        stack = ExitStack()
        store: Store = stack.enter_context(self._open())
        self.__dict__.setdefault("_sql_stacks", {})[id(store)] = stack
        return store

    def dispose_store(self, store: Store) -> None:
        """Close the store and remove its file or schema."""
        self.__dict__["_sql_stacks"].pop(id(store)).close()


class TestSQLiteStore(_SQLContract):
    def _open(self) -> Any:
        return sqlite_store()


class TestSQLiteHostEngineStore(_SQLContract):
    """
    The contract on a host's engine: its connections are not in AUTOCOMMIT, so the store sets
    that level per connection (on its own engine every connection has it from the start).
    """

    def _open(self) -> Any:
        return sqlite_store(host_engine=True)


@pytest.mark.external_service
class TestPostgresStore(_SQLContract):
    def _open(self) -> Any:
        return server_store(POSTGRES)


@pytest.mark.external_service
class TestMariaDBStore(_SQLContract):
    def _open(self) -> Any:
        return server_store(MARIADB)


@pytest.mark.external_service
class TestMariaDBURLStore(_SQLContract):
    """The contract on a store's own engine (its reads ride: several statements per query)."""

    def _open(self) -> Any:
        return server_store(MARIADB, by_url=True)


# -- what the contract does not say: SQL specifics ----------------------------------------------


@attrs.frozen
class Backend:
    """Opens SQL stores of one database for the tests below."""

    name: str
    opener: Callable[..., AbstractContextManager[SQLStore]]

    def reopen(self, store: SQLStore, **options: Any) -> SQLStore:
        """Open a second SQLStore on *store*'s tables (another process would do the same)."""
        if self.name == "sqlite":
            return SQLStore(store.engine.url, **options)
        return SQLStore(store.engine, schema=store.schema, **options)


BACKENDS = [
    pytest.param(Backend("sqlite", sqlite_store), id="sqlite"),
    pytest.param(
        Backend("postgres", functools.partial(server_store, POSTGRES)),
        id="postgres",
        marks=pytest.mark.external_service,
    ),
    pytest.param(
        Backend("mariadb", functools.partial(server_store, MARIADB)),
        id="mariadb",
        marks=pytest.mark.external_service,
    ),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each SQL database in turn."""
    return cast(Backend, request.param)


@pytest.fixture
def sql_store(backend: Backend) -> Iterator[SQLStore]:
    """A fresh SQLStore of each SQL database."""
    with backend.opener() as store:
        yield store


def _raw(store: SQLStore, sql: str, **params: Any) -> list[Any]:
    """Run *sql* on the store's tables, outside slotwise, and return the rows."""
    with store.engine.connect() as conn:
        if store.schema is not None:
            conn.execution_options(schema_translate_map={None: store.schema})
            quoted = conn.dialect.identifier_preparer.quote_schema(store.schema)
            sql = sql.replace("slotwise_", f"{quoted}.slotwise_")
        result = conn.execute(text(sql), params)
        rows = list(result.all()) if result.returns_rows else []
        conn.commit()
    return rows


@contextmanager
def _schema_connection(store: SQLStore) -> Iterator[Any]:
    """A connection to the store's database with its schema translated in, outside slotwise."""
    with store.engine.connect() as conn:
        if store.schema is not None:
            conn = conn.execution_options(schema_translate_map={None: store.schema})
        yield conn


def _table_name(conn: Any, store: SQLStore, table: Any) -> str:
    """Return *table*'s quoted name for raw SQL, with the store's schema when it has one."""
    preparer = conn.dialect.identifier_preparer
    name: str = preparer.quote(table.name)
    if store.schema is not None:
        name = f"{preparer.quote_schema(store.schema)}.{name}"
    return name


START = datetime(2026, 3, 10, 10, 0, 0, 123456, tzinfo=UTC)


class _Abort(Exception):
    """Raised to roll a unit of work back."""


def _world(*records: Any) -> list[Any]:
    """A company, its location, service and resource, then *records*."""
    where = {"company_id": "co", "location_id": "loc"}
    return [
        sample_company(id="co"),
        sample_location(id="loc", company_id="co", primary_calendar_id=None),
        sample_service(id="svc", **where),
        sample_resource(id="res", **where),
        *records,
    ]


def _appointment(record_id: str, **changes: Any) -> Appointment:
    """A booked appointment of the world above, 10:00:00.123456-11:00 UTC by default."""
    fields: dict[str, Any] = {
        "id": record_id,
        "company_id": "co",
        "location_id": "loc",
        "service_id": "svc",
        "resource_ids": ("res",),
        "start": START,
        "end": START + timedelta(hours=1),
        **changes,
    }
    return sample_appointment(**fields)


def _insert(store: Store, *records: Any) -> None:
    """Insert *records* in one unit of work."""
    with store.transaction() as tx:
        for record in records:
            tx.insert(record)


class TestSchema:
    def test_new_tables_record_the_schema_version(self, backend: Backend, sql_store: SQLStore):
        """A created schema records SCHEMA_VERSION; reopening it with create=False works."""
        _insert(sql_store, *_world())

        again = backend.reopen(sql_store, create=False)
        try:
            with again.read() as reader:
                company = reader.get(Company, "co")
        finally:
            again.close()

        assert [(SCHEMA_VERSION,)] == _raw(sql_store, "SELECT version FROM slotwise_schema_version")
        assert company == sample_company(id="co")

    def test_a_newer_incompatible_schema_version_is_refused(
        self, backend: Backend, sql_store: SQLStore
    ):
        """Tables of a later slotwise no longer running this one: StoreError names the versions."""
        _raw(
            sql_store,
            "UPDATE slotwise_schema_version SET version = :v, compatible_since = :v",
            v=SCHEMA_VERSION + 1,
        )

        with pytest.raises(StoreError, match=f"version {SCHEMA_VERSION + 1}.* upgrade slotwise"):
            backend.reopen(sql_store)
        _raw(
            sql_store,
            "UPDATE slotwise_schema_version SET version = :v, compatible_since = :v",
            v=SCHEMA_VERSION,
        )

    def test_missing_tables_without_create_are_refused(self, tmp_path: Path):
        """create=False on a database without slotwise tables raises StoreError, creating nothing."""
        url = f"sqlite:///{tmp_path / 'empty.db'}"

        with pytest.raises(StoreError, match="create=True"):
            SQLStore(url, create=False)

        engine = create_engine(url)
        try:
            assert [] == inspect(engine).get_table_names()
        finally:
            engine.dispose()

    @pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
    def test_in_memory_sqlite_is_refused(self, url: str):
        """An in-memory SQLite database (one per pooled connection) is refused with StoreError."""
        with pytest.raises(StoreError, match="file"):
            SQLStore(url)

    @pytest.mark.parametrize(
        ("url", "shown"),
        [
            ("nonsense", "'nonsense'"),
            ("oracle://scott:tiger@db/orcl", "'oracle://...'"),
            ("postgresql+asyncpg://app:s3cret@db/app", "'postgresql+asyncpg://...'"),
            ("s3cret-pasted-where-a-url-belongs", "text of 33 characters"),
        ],
    )
    def test_a_url_that_is_no_database_url_is_invalid_format(self, url: str, shown: str):
        """A text that is no usable database URL raises InvalidFormat naming url, never its secret."""
        with pytest.raises(InvalidFormat) as caught:
            SQLStore(url)

        assert "url" == caught.value.field
        assert shown in str(caught.value)
        assert "s3cret" not in str(caught.value)

    @pytest.mark.parametrize(
        ("url", "module", "extra"),
        [
            ("postgresql+psycopg://app@db/app", "psycopg", "slotwise[postgres]"),
            ("mysql+pymysql://app@db/app", "pymysql", "slotwise[mariadb]"),
            ("mariadb+pymysql://app@db/app", "pymysql", "slotwise[mariadb]"),
        ],
    )
    def test_a_missing_driver_names_the_extra_that_installs_it(
        self, url: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch
    ):
        """Without the database's driver, InvalidFormat names the extra that installs it (not
        the sql extra, which has only SQLite's)."""
        monkeypatch.setitem(sys.modules, module, None)  # import psycopg: ImportError

        with pytest.raises(InvalidFormat) as caught:
            SQLStore(url)

        assert f"pip install '{extra}'" in str(caught.value)

    def test_a_replica_url_that_is_no_database_url_names_replicas(self):
        """A replica URL that is no database URL raises InvalidFormat naming replicas."""
        with pytest.raises(InvalidFormat) as caught, server_store(POSTGRES, replicas=["nonsense"]):
            pass

        assert "replicas" == caught.value.field

    def test_missing_sqlalchemy_raises_missing_dependency(self):
        """Without SQLAlchemy, importing slotwise.storage.sql names the extra to install."""
        code = (
            "import sys\n"
            "sys.modules['sqlalchemy'] = None\n"
            "try:\n"
            "    import slotwise.storage.sql\n"
            "except ImportError as error:\n"
            "    print(type(error).__name__, error.extra)\n"
        )
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

        assert "MissingDependency sql" == run.stdout.strip(), run.stderr

    @pytest.mark.external_service
    def test_mariadb_messages_quote_the_url_as_given(self):
        """The store adds PyMySQL's client_flag to its engine's URL; its repr and the messages
        quoting it show the operator's URL (its own query kept) without it."""
        from .servers import server_engine, unique_name

        given = server_engine(MARIADB).url.update_query_dict({"charset": "utf8mb4"})
        shown = given.render_as_string(hide_password=True)

        with pytest.raises(StoreError) as refused:  # tables missing: the message quotes repr
            SQLStore(
                given.render_as_string(hide_password=False), schema=unique_name(), create=False
            )
        with server_store(MARIADB, by_url=True) as store:
            described = repr(store)

        assert f"the slotwise tables in SQLStore({shown!r}, schema=" in str(refused.value)
        assert "client_flag" not in str(refused.value) + described
        assert described.startswith(f"SQLStore({server_engine(MARIADB).url.render_as_string()!r}")

    def test_a_schema_on_sqlite_is_refused(self, tmp_path: Path):
        """SQLite has no schemas: schema= raises StoreError."""
        with pytest.raises(StoreError, match="schemas"):
            SQLStore(f"sqlite:///{tmp_path / 'x.db'}", schema="other")


_DELIVERY_INDEX = "ix_slotwise_outbox_event_due"


def _explain_overlap_read(url: str) -> tuple[list[Appointment], list[tuple[Any, ...]]]:
    """
    Read hour 100 of "res" among 300 hourly appointments on the server at *url*; return what
    the per-resource overlap read found and its plan's rows (EXPLAIN of the statement sent).
    """
    appointments = [
        _appointment(
            f"apt-{n:03}",
            start=START + n * timedelta(hours=1),
            end=START + n * timedelta(hours=1) + timedelta(minutes=30),
        )
        for n in range(300)
    ]
    statements: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        if "slotwise_appointment_resource" in statement:
            statements.append((statement, parameters))

    with server_store(url) as store:
        _insert(store, *_world(*appointments))
        event.listen(store.engine, "before_cursor_execute", capture)
        with store.read() as reader:
            found = reader.appointments_overlapping(
                location_id="loc",
                resource_ids=["res"],
                start=START + timedelta(hours=100),
                end=START + timedelta(hours=101),
            )
        event.remove(store.engine, "before_cursor_execute", capture)
        [(statement, parameters)] = statements
        with store.engine.connect() as conn:
            explained = conn.exec_driver_sql("EXPLAIN " + statement, parameters)
            rows = [tuple(row) for row in explained]
    return list(found), rows


def _drop_delivery_state(conn: Any, store: SQLStore) -> None:
    """Remove what schema version 4 added: the outbox's delivery columns and their index."""
    events = RECORD_TABLES[OutboxEvent]
    for index in events.indexes:
        if index.name == _DELIVERY_INDEX:
            index.drop(conn)
    name = _table_name(conn, store, events)
    for column in ("due", "lease_until"):
        conn.execute(text(f"ALTER TABLE {name} DROP COLUMN {column}"))


_LIST_COLUMNS = ("service_id", "status", "email_key")
_LIST_INDEXES = (
    "ix_slotwise_appointment_listing",
    "ix_slotwise_appointment_service",
    "ix_slotwise_appointment_status",
    "ix_slotwise_appointment_email",
    "ix_slotwise_outbox_event_listing",
)


def _drop_padding_bounds(conn: Any) -> None:
    """Remove what schema version 6 added: the companies' padding span rows."""
    conn.execute(delete(spans).where(spans.c.scope == "padding"))


def _drop_list_columns(conn: Any, store: SQLStore) -> None:
    """Remove what schema version 5 added: the appointment and event columns of the list read."""
    for kind, columns in ((Appointment, _LIST_COLUMNS), (OutboxEvent, ("delivery_status",))):
        table = RECORD_TABLES[kind]
        for index in table.indexes:
            if index.name in _LIST_INDEXES:
                index.drop(conn)
        name = _table_name(conn, store, table)
        for column in columns:
            conn.execute(text(f"ALTER TABLE {name} DROP COLUMN {column}"))


class TestUpgradeFrom1:
    """Schema version 2 (events carry their location): the step from version 1."""

    NEW_INDEXES = (
        "ix_slotwise_outbox_event_location",
        "ix_slotwise_outbox_event_location_undelivered",
        "ix_slotwise_appointment_location_hold",
        "ix_slotwise_queued_reminder_location_due",
    )

    @staticmethod
    def _events() -> list[OutboxEvent]:
        """Version 1 events of each kind: appointment, resource, reminder and customer."""
        payloads: dict[str, tuple[Trigger, dict[str, Any]]] = {
            "ev-apt": (Trigger.BOOKING_CONFIRMATION, {"appointment": {"location_id": "loc-1"}}),
            "ev-res": (Trigger.RESOURCE_CREATED, {"resource": {"location_id": "loc-2"}}),
            "ev-rem": (
                Trigger.EMAIL_REMINDER,
                {"appointment": None, "reminder": {"location_id": "loc-2"}},
            ),
            "ev-cus": (Trigger.CUSTOMER_CREATED, {"customer": {"id": "cus"}}),
        }
        return [
            sample_outbox_event(
                id=event_id,
                company_id="co",
                entity_id="e",
                sequence=number,
                trigger=trigger,
                payload=payload,
                delivered_at=None,
            )
            for number, (event_id, (trigger, payload)) in enumerate(payloads.items(), start=1)
        ]

    def _make_version_1(self, store: SQLStore) -> None:
        """Turn *store*'s tables into the version 1 layout, documents included."""
        events = RECORD_TABLES[OutboxEvent]
        with _schema_connection(store) as conn:
            configuration_versions.drop(conn, checkfirst=True)  # schema version 7
            _drop_padding_bounds(conn)  # schema version 6
            _drop_list_columns(conn, store)  # schema version 5
            _drop_delivery_state(conn, store)  # schema version 4
            for table in RECORD_TABLES.values():
                for index in table.indexes:
                    if index.name in self.NEW_INDEXES:
                        index.drop(conn)
            name = _table_name(conn, store, events)
            for row in conn.execute(select(events.c.id, events.c.doc)).all():
                document = json.loads(row.doc)
                del document["location_id"]
                conn.execute(
                    update(events).where(events.c.id == row.id).values(doc=json.dumps(document))
                )
            conn.execute(text(f"ALTER TABLE {name} DROP COLUMN location_id"))
            RECORD_TABLES[ApiToken].drop(conn)  # schema version 3
            conn.execute(update(schema_version).values(version=1))
            conn.commit()

    def _locations(self, store: SQLStore) -> dict[str, str | None]:
        """Return each event's location_id column."""
        rows = _raw(store, "SELECT id, location_id FROM slotwise_outbox_event")
        return {row[0]: row[1] for row in rows}

    def test_version_1_is_upgraded_to_2(self, backend: Backend, sql_store: SQLStore):
        """create=True adds the column, fills it from each payload, adds the indexes (then 3)."""
        _insert(sql_store, sample_company(id="co"), *self._events())
        self._make_version_1(sql_store)
        with pytest.raises(StoreError, match="version 1"):
            backend.reopen(sql_store, create=False)

        upgraded = backend.reopen(sql_store)
        try:
            with upgraded.read() as reader:
                at_2 = reader.undelivered_events(company_id="co", location_ids=["loc-2"], limit=10)
                everything = reader.undelivered_events(company_id="co", limit=10)
        finally:
            upgraded.close()

        assert [(SCHEMA_VERSION,)] == _raw(sql_store, "SELECT version FROM slotwise_schema_version")
        expected = {"ev-apt": "loc-1", "ev-res": "loc-2", "ev-rem": "loc-2", "ev-cus": None}
        assert expected == self._locations(sql_store)
        assert ["ev-res", "ev-rem"] == [event.id for event in at_2]
        assert expected == {event.id: event.location_id for event in everything}
        with sql_store.engine.connect() as conn:
            inspector = inspect(conn)
            found = {
                index["name"]
                for table in ("slotwise_outbox_event", "slotwise_appointment")
                for index in inspector.get_indexes(table, schema=sql_store.schema)
            } | {
                index["name"]
                for index in inspector.get_indexes(
                    "slotwise_queued_reminder", schema=sql_store.schema
                )
            }
        assert set(self.NEW_INDEXES) <= found

    def test_the_step_can_run_again(self, backend: Backend, sql_store: SQLStore):
        """Interrupted after its DDL (MariaDB commits DDL at once), the step runs again cleanly."""
        _insert(sql_store, sample_company(id="co"), *self._events())
        self._make_version_1(sql_store)
        backend.reopen(sql_store).close()

        with _schema_connection(sql_store) as conn:
            UPGRADES[1](conn, sql_store.schema)
            conn.commit()

        expected = {"ev-apt": "loc-1", "ev-res": "loc-2", "ev-rem": "loc-2", "ev-cus": None}
        assert expected == self._locations(sql_store)

    def test_event_location_reads_each_payload_kind(self):
        """event_location() finds the appointment's, reminder's or resource's location, else None."""
        found = {event.id: event_location(event) for event in self._events()}

        assert {"ev-apt": "loc-1", "ev-res": "loc-2", "ev-rem": "loc-2", "ev-cus": None} == found


class TestUpgradeFrom2:
    """Schema version 3 (API tokens, decision 39): the step from version 2."""

    @staticmethod
    def _make_version_2(store: SQLStore) -> None:
        with _schema_connection(store) as conn:
            configuration_versions.drop(conn, checkfirst=True)  # schema version 7
            _drop_padding_bounds(conn)  # schema version 6
            _drop_list_columns(conn, store)  # schema version 5
            _drop_delivery_state(conn, store)  # schema version 4
            RECORD_TABLES[ApiToken].drop(conn)
            conn.execute(update(schema_version).values(version=2))
            conn.commit()

    def test_version_2_is_upgraded_to_3(self, backend: Backend, sql_store: SQLStore):
        """create=True adds the token table and its index; tokens then round-trip."""
        self._make_version_2(sql_store)
        with pytest.raises(StoreError, match="version 2"):
            backend.reopen(sql_store, create=False)

        upgraded = backend.reopen(sql_store)
        token = sample_api_token(id="tok", company_id="co")
        try:
            _insert(upgraded, sample_company(id="co"), token)
            with upgraded.read() as reader:
                found = reader.token_by_hash(token.token_hash)
        finally:
            upgraded.close()

        assert token == found
        assert [(SCHEMA_VERSION,)] == _raw(sql_store, "SELECT version FROM slotwise_schema_version")

    def test_the_step_can_run_again(self, backend: Backend, sql_store: SQLStore):
        """Run twice, the step finds the table there and changes nothing."""
        self._make_version_2(sql_store)
        backend.reopen(sql_store).close()

        with _schema_connection(sql_store) as conn:
            UPGRADES[2](conn, sql_store.schema)
            conn.commit()

        assert [] == _raw(sql_store, "SELECT id FROM slotwise_api_token")


class TestUpgradeFrom3:
    """Schema version 4 (delivery state, decision 38): the step from version 3."""

    @staticmethod
    def _make_version_3(store: SQLStore) -> None:
        with _schema_connection(store) as conn:
            configuration_versions.drop(conn, checkfirst=True)  # schema version 7
            _drop_padding_bounds(conn)  # schema version 6
            _drop_list_columns(conn, store)  # schema version 5
            _drop_delivery_state(conn, store)
            conn.execute(update(schema_version).values(version=3))
            conn.commit()

    @staticmethod
    def _events() -> list[OutboxEvent]:
        return [
            sample_outbox_event(
                id=f"ev-{n}", company_id="co", entity_id="e", sequence=n, delivered_at=delivered
            )
            for n, delivered in ((1, None), (2, START), (3, None))
        ]

    def test_version_3_is_upgraded_to_4(self, backend: Backend, sql_store: SQLStore):
        """create=True adds the columns and index; undelivered events are due at once."""
        _insert(sql_store, sample_company(id="co"), *self._events())
        self._make_version_3(sql_store)
        with pytest.raises(StoreError, match="version 3"):
            backend.reopen(sql_store, create=False)

        upgraded = backend.reopen(sql_store)
        try:
            with upgraded.transaction() as tx:
                claimed = tx.claim_deliveries(
                    owner="w", now=START, lease_until=START + timedelta(minutes=1), limit=10
                )
        finally:
            upgraded.close()

        assert ["ev-1", "ev-3"] == [event.id for event in claimed]
        assert [(SCHEMA_VERSION,)] == _raw(sql_store, "SELECT version FROM slotwise_schema_version")
        with sql_store.engine.connect() as conn:
            indexes = inspect(conn).get_indexes("slotwise_outbox_event", schema=sql_store.schema)
        assert _DELIVERY_INDEX in {index["name"] for index in indexes}

    def test_the_step_can_run_again(self, backend: Backend, sql_store: SQLStore):
        """Run twice, the step finds the columns there and changes nothing."""
        _insert(sql_store, sample_company(id="co"), *self._events())
        self._make_version_3(sql_store)
        backend.reopen(sql_store).close()

        with _schema_connection(sql_store) as conn:
            UPGRADES[3](conn, sql_store.schema)
            conn.commit()

        rows = _raw(sql_store, "SELECT id FROM slotwise_outbox_event WHERE due IS NOT NULL")
        assert {("ev-1",), ("ev-3",)} == set(rows)


class TestUpgradeFrom4:
    """Schema version 5 (the list read's appointment columns): the step from version 4."""

    @staticmethod
    def _make_version_4(store: SQLStore) -> None:
        with _schema_connection(store) as conn:
            configuration_versions.drop(conn, checkfirst=True)  # schema version 7
            _drop_padding_bounds(conn)  # schema version 6
            _drop_list_columns(conn, store)
            conn.execute(update(schema_version).values(version=4))
            conn.commit()

    @staticmethod
    def _appointments() -> list[Appointment]:
        return [
            _appointment(f"apt-{n}", status=status, email=email)
            for n, (status, email) in enumerate(
                (
                    (AppointmentStatus.BOOKED, "Ann@Example.com"),
                    (AppointmentStatus.CANCELLED, None),
                    (AppointmentStatus.BOOKED, "bob@example.com"),
                )
            )
        ]

    @staticmethod
    def _events() -> list[OutboxEvent]:
        return [
            sample_outbox_event(
                id=f"ev-{n}", company_id="co", entity_id="e", sequence=n, delivered_at=delivered
            )
            for n, delivered in ((1, None), (2, START))
        ]

    def test_version_4_is_upgraded_to_5(self, backend: Backend, sql_store: SQLStore):
        """create=True adds the columns, fills them from the documents, adds the indexes."""
        _insert(sql_store, *_world(*self._appointments(), *self._events()))
        self._make_version_4(sql_store)
        with pytest.raises(StoreError, match="version 4"):
            backend.reopen(sql_store, create=False)

        upgraded = backend.reopen(sql_store)
        try:
            with upgraded.read() as reader:
                booked = reader.page(
                    Appointment, ListQuery(company_id="co", equal={"status": "BK"})
                )
                ann = reader.page(
                    Appointment, ListQuery(company_id="co", folded={"email": "ann@example.com"})
                )
        finally:
            upgraded.close()

        assert ["apt-0", "apt-2"] == [a.id for a in booked.records]
        assert ["apt-0"] == [a.id for a in ann.records]
        assert [(SCHEMA_VERSION,)] == _raw(sql_store, "SELECT version FROM slotwise_schema_version")
        rows = _raw(sql_store, "SELECT id, status, email_key FROM slotwise_appointment ORDER BY id")
        assert [
            ("apt-0", "BK", "ann@example.com"),
            ("apt-1", "CN", None),
            ("apt-2", "BK", "bob@example.com"),
        ] == [tuple(row) for row in rows]
        statuses = _raw(sql_store, "SELECT id, delivery_status FROM slotwise_outbox_event")
        assert {("ev-1", "pending"), ("ev-2", "delivered")} == {tuple(row) for row in statuses}
        with sql_store.engine.connect() as conn:
            inspector = inspect(conn)
            indexes = {
                index["name"]
                for table in ("slotwise_appointment", "slotwise_outbox_event")
                for index in inspector.get_indexes(table, schema=sql_store.schema)
            }
        assert set(_LIST_INDEXES) <= indexes

    def test_the_step_can_run_again(self, backend: Backend, sql_store: SQLStore):
        """Run twice, the step finds the columns filled and changes nothing."""
        _insert(sql_store, *_world(*self._appointments()))
        self._make_version_4(sql_store)
        backend.reopen(sql_store).close()

        with _schema_connection(sql_store) as conn:
            UPGRADES[4](conn, sql_store.schema)
            conn.commit()

        rows = _raw(sql_store, "SELECT id, service_id FROM slotwise_appointment ORDER BY id")
        assert 3 == len(rows)
        assert all(row[1] is not None for row in rows)


class TestUpgradeFrom5:
    """Schema version 6 (the companies' padding bounds): the step from version 5."""

    @staticmethod
    def _make_version_5(store: SQLStore) -> None:
        with _schema_connection(store) as conn:
            _drop_padding_bounds(conn)
            conn.execute(update(schema_version).values(version=5))
            conn.commit()

    @staticmethod
    def _services() -> list[Service]:
        where = {"company_id": "co", "location_id": "loc"}
        return [
            sample_service(id="svc-30", padding=30, **where),
            sample_service(id="svc-90", padding=90, **where),
        ]

    @staticmethod
    def _bounds(store: SQLStore) -> list[tuple[str, int]]:
        rows = _raw(
            store,
            "SELECT scope_id, MAX(length) FROM slotwise_span WHERE scope = 'padding' "
            "GROUP BY scope_id ORDER BY scope_id",
        )
        return [(row[0], int(row[1])) for row in rows]

    def test_version_5_is_upgraded_to_6(self, backend: Backend, sql_store: SQLStore):
        """create=True stores each company's largest service padding; the booking read uses it."""
        _insert(sql_store, *_world(*self._services()))
        assert [("co", 90 * 60 * 10**6)] == self._bounds(sql_store)
        self._make_version_5(sql_store)
        assert [] == self._bounds(sql_store)
        with pytest.raises(StoreError, match="version 5"):
            backend.reopen(sql_store, create=False)

        backend.reopen(sql_store).close()

        assert [("co", 90 * 60 * 10**6)] == self._bounds(sql_store)
        assert [(SCHEMA_VERSION,)] == _raw(sql_store, "SELECT version FROM slotwise_schema_version")

    def test_the_step_can_run_again(self, backend: Backend, sql_store: SQLStore):
        """Run twice, the step finds the bound stored and inserts nothing more."""
        _insert(sql_store, *_world(*self._services()))
        self._make_version_5(sql_store)
        backend.reopen(sql_store).close()

        with _schema_connection(sql_store) as conn:
            UPGRADES[5](conn, sql_store.schema)
            conn.commit()

        rows = _raw(sql_store, "SELECT length FROM slotwise_span WHERE scope = 'padding'")
        assert [(90 * 60 * 10**6,)] == [tuple(row) for row in rows]


class TestUpgradeFrom6:
    """Schema version 7 (the companies' configuration versions): the step from version 6."""

    @staticmethod
    def _make_version_6(store: SQLStore) -> None:
        with _schema_connection(store) as conn:
            configuration_versions.drop(conn)
            conn.execute(update(schema_version).values(version=6))
            conn.commit()

    def test_version_6_is_upgraded_to_7(self, backend: Backend, sql_store: SQLStore):
        """create=True adds the version table; companies read version 0 until their next change."""
        _insert(sql_store, *_world())
        self._make_version_6(sql_store)
        with pytest.raises(StoreError, match="version 6"):
            backend.reopen(sql_store, create=False)

        store = backend.reopen(sql_store)
        try:
            with store.read() as reader:
                before = reader.configuration_version("co")
            service = sample_service(id="svc-new", company_id="co", location_id="loc")
            _insert(store, service)
            with store.read() as reader:
                after = reader.configuration_version("co")
        finally:
            store.close()

        assert (0, 1) == (before, after)
        assert [(SCHEMA_VERSION,)] == _raw(sql_store, "SELECT version FROM slotwise_schema_version")

    def test_the_step_can_run_again(self, backend: Backend, sql_store: SQLStore):
        """Run twice, the step finds the table there and changes nothing."""
        self._make_version_6(sql_store)
        backend.reopen(sql_store).close()

        with _schema_connection(sql_store) as conn:
            UPGRADES[6](conn, sql_store.schema)
            conn.commit()

        assert [] == _raw(sql_store, "SELECT company_id FROM slotwise_configuration_version")


class TestUpgradeFrom7:
    """Schema version 8 (rolling upgrades): the step from version 7 adds compatible_since."""

    @staticmethod
    def _make_version_7(store: SQLStore) -> None:
        with _schema_connection(store) as conn:
            name = _table_name(conn, store, schema_version)
            conn.execute(text(f"ALTER TABLE {name} DROP COLUMN compatible_since"))
            conn.execute(text(f"UPDATE {name} SET version = 7"))
            conn.commit()

    def test_version_7_is_upgraded_to_8(self, backend: Backend, sql_store: SQLStore):
        """create=False refuses tables at 7; create=True adds the column: 8, compatible since 8."""
        _insert(sql_store, *_world())
        self._make_version_7(sql_store)
        with pytest.raises(StoreError, match="version 7, this slotwise needs 8"):
            backend.reopen(sql_store, create=False)

        backend.reopen(sql_store).close()
        again = backend.reopen(sql_store, create=False)
        try:
            with again.read() as reader:
                company = reader.get(Company, "co")
        finally:
            again.close()

        assert company == sample_company(id="co")
        assert [(8, 8)] == [
            tuple(row)
            for row in _raw(
                sql_store, "SELECT version, compatible_since FROM slotwise_schema_version"
            )
        ]

    def test_the_step_can_run_again(self, backend: Backend, sql_store: SQLStore):
        """Interrupted after its DDL (MariaDB commits it), the step runs again and adds nothing."""
        self._make_version_7(sql_store)
        with _schema_connection(sql_store) as conn:
            UPGRADES[7](conn, sql_store.schema)
            conn.commit()

        backend.reopen(sql_store).close()

        assert [(8, 8)] == [
            tuple(row)
            for row in _raw(
                sql_store, "SELECT version, compatible_since FROM slotwise_schema_version"
            )
        ]


class TestReadsOncePerUnit:
    """A unit of work reads a record by id at most once; its own writes keep what it read current."""

    @staticmethod
    def _selects(store: SQLStore) -> list[str]:
        """Start recording the SELECT statements *store* runs; return the list they go to."""
        seen: list[str] = []

        def record(conn: Any, cursor: Any, statement: str, *_args: Any) -> None:
            if statement.lstrip().upper().startswith("SELECT") and "slotwise_company" in statement:
                seen.append(statement)

        event.listen(store.engine, "before_cursor_execute", record)
        return seen

    def test_a_second_get_reads_nothing(self, sql_store: SQLStore):
        """get() twice in one unit: one SELECT; a new unit reads again."""
        _insert(sql_store, sample_company(id="co"))
        seen = self._selects(sql_store)

        with sql_store.transaction() as tx:
            first = tx.get(Company, "co")
            second = tx.get(Company, "co")
        with sql_store.read() as reader:
            third = reader.get(Company, "co")

        assert first == second == third
        assert 2 == len(seen)

    def test_writes_keep_what_the_unit_read_current(self, sql_store: SQLStore):
        """After update the unit reads the new record, after delete none, after insert the new one."""
        company = sample_company(id="co")
        _insert(sql_store, company)
        renamed = attrs.evolve(company, name="Renamed")

        with sql_store.transaction() as tx:
            tx.get(Company, "co")
            tx.update(renamed)
            after_update = tx.get(Company, "co")
            tx.delete(Company, "co")
            after_delete = tx.get(Company, "co")
            tx.insert(company)
            after_insert = tx.get(Company, "co")

        assert (renamed, None, company) == (after_update, after_delete, after_insert)

    def test_a_failed_update_leaves_no_stale_record(self, sql_store: SQLStore):
        """An update of a record that is gone raises NotFound; the unit then reads None."""
        company = sample_company(id="co")
        _insert(sql_store, company)

        with sql_store.transaction() as tx:
            tx.get(Company, "co")
            tx.delete(Company, "co")
            with pytest.raises(NotFound):
                tx.update(attrs.evolve(company, name="Renamed"))
            found = tx.get(Company, "co")

        assert found is None


class TestSQLiteIsolation:
    """The store runs SQLite in AUTOCOMMIT, and a host's engine keeps its own level."""

    @pytest.mark.parametrize("host_engine", [False, True])
    def test_a_returned_connection_keeps_the_engines_level(self, host_engine: bool):
        """After a read and a unit of work, a connection of the engine has the engine's level."""
        with sqlite_store(host_engine=host_engine) as store:
            with store.engine.connect() as conn:
                before = conn.connection.driver_connection.isolation_level  # type: ignore[union-attr]
            _insert(store, sample_company(id="co"))
            with store.read() as reader:
                assert reader.get(Company, "co") is not None
                during = reader._conn.connection.driver_connection.isolation_level  # type: ignore[union-attr]
            with store.engine.connect() as conn:
                after = conn.connection.driver_connection.isolation_level  # type: ignore[union-attr]

        # sqlite3: None is autocommit (the store's own engine), "" its legacy default (a host's).
        assert (before, during, after) == (
            (None, None, None) if not host_engine else ("", None, "")
        )

    @pytest.mark.parametrize("host_engine", [False, True])
    def test_only_a_hosts_engine_is_set_per_connection(self, host_engine: bool):
        """The store's own engine is never set to a level at checkout; a host's is, each time."""
        with sqlite_store(host_engine=host_engine) as store:
            dialect = store.engine.dialect
            calls: list[Any] = []
            setting = dialect.set_isolation_level

            def counted(dbapi_connection: Any, level: Any) -> None:
                calls.append(level)
                setting(dbapi_connection, level)

            dialect.set_isolation_level = counted  # type: ignore[method-assign]
            _insert(store, sample_company(id="co"))
            with store.read() as reader:
                reader.get(Company, "co")

        assert (calls == []) is not host_engine


class TestPrefetch:
    """SQLStore.prefetch: several records by id in one statement, then get() reads nothing."""

    def test_one_statement_reads_them_all(self, sql_store: SQLStore):
        """Three records of three kinds: one SELECT; the gets after it run none; misses read None."""
        _insert(sql_store, *_world())
        statements: list[str] = []

        def record(conn: Any, cursor: Any, statement: str, *_args: Any) -> None:
            # Not the unit's BEGIN and locks (on PostgreSQL they ride with its first read).
            if not statement.startswith("BEGIN") and "set_config('lock_timeout'" not in statement:
                statements.append(statement)

        with sql_store.transaction() as tx:
            event.listen(sql_store.engine, "before_cursor_execute", record)
            prefetch(
                tx,
                [(Company, "co"), (Service, "svc"), (Resource, "res"), (Customer, "nobody")],
            )
            read = [tx.get(Company, "co"), tx.get(Service, "svc"), tx.get(Resource, "res")]
            prefetched = len(statements)
            missing = tx.get(Customer, "nobody")
            event.remove(sql_store.engine, "before_cursor_execute", record)

        assert 1 == prefetched
        assert ["co", "svc", "res"] == [found.id for found in read if found is not None]
        assert missing is None

    def test_prefetch_on_a_memory_store_does_nothing(self):
        """Stores without the capability are left alone: prefetch() is a no-op for them."""
        store = MemoryStore()
        with store.transaction() as tx:
            prefetch(tx, [(Company, "co"), (Service, None)])
            assert tx.get(Company, "co") is None


class TestWindowsTouching:
    """SQLStore.windows_touching: blocks and allocations in one statement, as the two reads give them."""

    def test_agrees_with_the_two_reads(self, sql_store: SQLStore):
        """Same records, same creation order, deleted blocks included, other targets left out."""
        day = date(2026, 3, 10)
        records = [
            *_bare_world(),
            _window(Block, "b-1", RES_1, day, day),
            _window(Allocation, "a-1", RES_1, day, day + timedelta(days=2)),
            _window(Block, "b-2", SVC_A1, day - timedelta(days=3), day),
            _window(Block, "b-gone", RES_1, day, day, deleted=True),
            _window(Block, "b-other", RES_2, day, day),
            _window(Allocation, "a-early", RES_1, day - timedelta(days=9), day - timedelta(days=8)),
            _window(Allocation, "a-2", SVC_A1, day, day),
        ]
        _insert(sql_store, *records)
        blocks_at, allocations_at = [RES_1, SVC_A1], [RES_1, SVC_A1]

        with sql_store.read() as reader:
            together = windows_touching(
                reader,
                block_targets=blocks_at,
                allocation_targets=allocations_at,
                first=day,
                last=day + timedelta(days=1),
            )
            apart = (
                reader.blocks_touching(
                    target_ids=blocks_at, first=day, last=day + timedelta(days=1)
                ),
                reader.allocations_touching(
                    target_ids=allocations_at, first=day, last=day + timedelta(days=1)
                ),
            )

        assert apart == together
        assert (["b-1", "b-2", "b-gone"], ["a-1", "a-2"]) == (
            [b.id for b in together[0]],
            [a.id for a in together[1]],
        )

    def test_a_memory_store_answers_with_the_two_reads(self):
        """Stores without the capability get the protocol's two reads."""
        day = date(2026, 3, 10)
        store = MemoryStore()
        _insert(store, *_bare_world(), _window(Block, "b-1", RES_1, day, day))

        with store.read() as reader:
            blocks, allocations = windows_touching(
                reader, block_targets=[RES_1], allocation_targets=[RES_1], first=day, last=day
            )

        assert (["b-1"], []) == ([b.id for b in blocks], allocations)


class TestStoredValues:
    def test_instants_are_stored_in_utc(self, backend: Backend, sql_store: SQLStore):
        """start/end columns hold UTC (timestamptz or epoch microseconds), the document +00:00."""
        plus_two = timezone(timedelta(hours=2))
        local = START.astimezone(plus_two)
        _insert(
            sql_store, *_world(_appointment("apt", start=local, end=local + timedelta(hours=1)))
        )

        [(stored, document)] = _raw(sql_store, "SELECT start_at, doc FROM slotwise_appointment")

        if backend.name == "postgres":
            assert START == stored
            assert timedelta(0) == stored.utcoffset()
        else:
            assert (START - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1) == stored
        assert '"start":"2026-03-10T10:00:00.123456+00:00"' in document

    def test_id_of_255_characters_is_kept_and_256_refused(self, sql_store: SQLStore):
        """Ids up to 255 characters round-trip; 256 raise FieldTooLong, and the unit goes on."""
        longest = sample_customer(id="c" * 255, company_id="co")
        too_long = sample_customer(id="c" * 256, company_id="co")

        with sql_store.transaction() as tx:
            tx.insert(sample_company(id="co"))
            tx.insert(longest)
            with pytest.raises(FieldTooLong) as caught:
                tx.insert(too_long)
        with sql_store.read() as reader:
            found = reader.find(Customer, company_id="co")

        assert ("id", 255, 256) == (caught.value.field, caught.value.limit, caught.value.requested)
        assert [longest] == found

    def test_long_idempotency_keys_are_compared_exactly(self, sql_store: SQLStore):
        """Keys longer than the index column (stored as digests) still find exactly their record."""
        key = "k" * 1000
        _insert(
            sql_store,
            *_world(
                _appointment("apt-1", idempotency_key=key),
                _appointment("apt-2", idempotency_key=key[:-1] + "K"),
            ),
        )

        with sql_store.read() as reader:
            found = [
                getattr(reader.appointment_by_idempotency_key("co", k), "id", None)
                for k in (key, key[:-1] + "K", key[:-1])
            ]

        assert ["apt-1", "apt-2", None] == found

    def test_location_filter_on_a_kind_without_location_is_refused(self, sql_store: SQLStore):
        """find(Company, location_id=...) raises StoreError: companies have no location."""
        with pytest.raises(StoreError, match="location_id"), sql_store.read() as reader:
            reader.find(Company, company_id=None, location_id="loc")


class TestLocksAndErrors:
    def test_a_lock_held_past_lock_timeout_raises_conflict_error(
        self, backend: Backend, sql_store: SQLStore
    ):
        """A unit of work kept from its lock beyond lock_timeout x lock_attempts gets ConflictError."""
        _insert(sql_store, sample_company(id="co"))
        impatient = backend.reopen(sql_store, lock_timeout=0.2, lock_attempts=2)
        holding, release = threading.Event(), threading.Event()

        def hold() -> None:
            with sql_store.transaction(locks=["resource:1"]) as tx:
                tx.insert(sample_customer(id="holder", company_id="co"))
                holding.set()
                release.wait(timeout=30)

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert holding.wait(timeout=30)
            with (
                pytest.raises(ConflictError) as caught,
                impatient.transaction(locks=["resource:1"]) as tx,
            ):
                tx.insert(sample_customer(id="waiter", company_id="co"))
        finally:
            release.set()
            holder.join()
            impatient.close()
        with sql_store.read() as reader:
            found = [customer.id for customer in reader.find(Customer, company_id="co")]

        assert isinstance(caught.value.__cause__, SQLAlchemyError)
        assert ["holder"] == found

    def test_sqlite_database_is_locked_never_reaches_the_caller(self, tmp_path: Path):
        """Another process holding SQLite's write lock makes a unit of work raise ConflictError."""
        path = tmp_path / "locked.db"
        store = SQLStore(f"sqlite:///{path}", lock_timeout=0.1, lock_attempts=2)
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            with pytest.raises(ConflictError, match="locked"), store.transaction() as tx:
                tx.insert(sample_company(id="co"))
            other.execute("ROLLBACK")
            _insert(store, sample_company(id="co"))
        finally:
            other.close()
            store.close()

    @pytest.mark.external_service
    def test_a_failed_statement_rolls_back_the_whole_unit(self):
        """After a driver error the caller swallowed, the unit of work raises and commits nothing."""
        with server_store(POSTGRES) as store:
            _insert(store, sample_company(id="co"))

            caught: list[StoreError] = []

            def unit() -> None:
                with store.transaction() as tx:
                    tx.insert(sample_customer(id="kept-back", company_id="co"))
                    # PostgreSQL text cannot hold NUL: the insert fails and aborts the transaction.
                    try:
                        tx.insert(sample_customer(id="nul\x00", company_id="co"))
                    except StoreError as error:
                        caught.append(error)
                    tx.insert(sample_customer(id="after", company_id="co"))

            with pytest.raises(StoreError, match="nothing was written") as outcome:
                unit()
            with store.read() as reader:
                found = reader.find(Customer, company_id="co")

        assert isinstance(caught[0].__cause__, SQLAlchemyError)
        assert caught[0] is outcome.value.__cause__
        assert [] == found

    def test_text_no_database_can_hold_is_refused_before_writing(self, sql_store: SQLStore):
        """A lone surrogate raises StoreError before any statement; the unit of work goes on."""
        with sql_store.transaction() as tx:
            tx.insert(sample_company(id="co"))
            with pytest.raises(StoreError, match="surrogates"):
                tx.insert(sample_customer(id="cus", company_id="co", notes="\ud800"))
            tx.insert(sample_customer(id="cus", company_id="co"))
        with sql_store.read() as reader:
            found = [customer.id for customer in reader.find(Customer, company_id="co")]

        assert ["cus"] == found

    @pytest.mark.parametrize(
        "url",
        [
            "postgresql+psycopg://postgres@127.0.0.1:1/test",
            "mysql+pymysql://root@127.0.0.1:1/test",
        ],
    )
    def test_an_unreachable_server_raises_store_unavailable(self, url: str):
        """A server that refuses connections raises StoreUnavailable caused by the driver error."""
        with pytest.raises(StoreUnavailable) as caught:
            SQLStore(url)

        assert isinstance(caught.value.__cause__, SQLAlchemyError)


class TestOverlapReads:
    def test_a_rolled_back_long_appointment_does_not_hide_a_later_one(self, sql_store: SQLStore):
        """A 4-day appointment written again after a rollback is found from inside its range."""
        long = _appointment("apt-long", end=START + timedelta(days=4))
        _insert(sql_store, *_world())

        def aborted() -> None:
            with sql_store.transaction() as tx:
                tx.insert(long)
                raise _Abort

        with pytest.raises(_Abort):
            aborted()
        _insert(sql_store, long)
        inside = START + timedelta(days=3)
        with sql_store.read() as reader:
            found = [
                [
                    a.id
                    for a in reader.appointments_overlapping(
                        location_id="loc",
                        resource_ids=ids,
                        start=inside,
                        end=inside + timedelta(hours=1),
                    )
                ]
                for ids in (["res"], None)
            ]

        assert [["apt-long"], ["apt-long"]] == found

    @pytest.mark.external_service
    def test_postgres_reads_the_link_range_on_a_table_without_statistics(self):
        """
        On a table never analyzed, PostgreSQL still enters the per-resource read by the link
        range and fetches appointments by id: with a location condition on the appointments it
        walked the location's whole history instead (0.8 ms at 1,000 appointments, growing).
        """
        found, rows = _explain_overlap_read(POSTGRES)
        plan = "\n".join(str(row[0]) for row in rows)

        assert ["apt-100"] == [a.id for a in found]
        assert "ix_slotwise_appointment_resource_start" in plan, plan
        assert re.search(r"Index Scan using slotwise_appointment_(id_key|pkey)", plan), plan
        for location_index in ("_start ", "_listing", "_service", "_status", "_email"):
            assert f"ix_slotwise_appointment{location_index}" not in plan + " ", plan
        assert not re.search(r"Seq Scan on slotwise_appointment\b(?!_)", plan), plan

    @pytest.mark.external_service
    def test_mariadb_reads_the_link_range_from_the_span_bound(self):
        """
        MariaDB computes each resource's longest appointment (a scalar subquery of the same
        statement) before planning, and reads the link index as a range from that bound:
        a handful of rows, not the resource's whole history.
        """
        found, plan = _explain_overlap_read(MARIADB)

        assert ["apt-100"] == [a.id for a in found]
        [link] = [row for row in plan if row[2] == "slotwise_appointment_resource"]
        assert ("range", "ix_slotwise_appointment_resource_start") == (link[3], link[5]), plan
        assert int(link[8]) < 10, plan  # the range from the bound, not the 300 rows of "res"
        [by_id] = [row for row in plan if row[2] == "slotwise_appointment"]
        assert by_id[3] == "eq_ref", plan

    def test_per_resource_overlap_read_is_an_index_range_search(self, tmp_path: Path):
        """SQLite plans the per-resource read as a (resource, start) range search, then by id."""
        store = SQLStore(f"sqlite:///{tmp_path / 'plan.db'}")
        statements: list[tuple[str, Any]] = []

        def capture(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
            if "slotwise_appointment_resource" in statement:
                statements.append((statement, parameters))

        try:
            _insert(store, *_world(_appointment("apt")))
            event.listen(store.engine, "before_cursor_execute", capture)
            with store.read() as reader:
                found = reader.appointments_overlapping(
                    location_id="loc", resource_ids=["res"], start=START, end=START
                )
            event.remove(store.engine, "before_cursor_execute", capture)
            [(statement, parameters)] = statements
            with store.engine.connect() as conn:
                plan = " ".join(
                    str(row[-1])
                    for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
                )
        finally:
            store.close()

        assert [] == found
        assert re.search(
            r"SEARCH slotwise_appointment_resource USING INDEX "
            r"ix_slotwise_appointment_resource_start \(resource_id=\? AND start_at>\? AND start_at<\?\)",
            plan,
        ), plan
        # The appointments themselves are fetched by id, never scanned by location.
        assert re.search(r"SEARCH slotwise_appointment USING \w*\s*INDEX \w+ \(id=\?\)", plan), plan
        assert "SCAN slotwise_appointment " not in plan + " ", plan
