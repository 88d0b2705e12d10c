"""
SQLStore behind a real PgBouncer in transaction pooling mode (decision 50, docs/sql.md "Behind
a connection pooler"): the whole store contract through it, and what breaks without
``pool_mode="transaction"``. The multi-process booking race through it is the ``pgbouncer``
case of ``tests/contract/test_sql_processes.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from slotwise.errors import InvalidChoice, StoreError, StoreUnavailable
from slotwise.model import Company
from slotwise.storage.sql import SQLStore
from slotwise.testing.samples import sample_company

from . import test_sql_stores
from .pooler import PGBOUNCER_SERVER, own_pgbouncer
from .servers import POSTGRES, server_engine, server_store, unique_name


@pytest.mark.external_service
class TestPgBouncerStore(test_sql_stores._SQLContract):
    def _open(self) -> Any:
        return server_store(PGBOUNCER_SERVER)


def _units(store: SQLStore, count: int) -> None:
    """
    Run *count* units of work reading the company, each committed.

    Not reads: a read ends in ROLLBACK, after which psycopg forgets what it counted and prepared.
    """
    for _ in range(count):
        with store.transaction() as tx:
            assert sample_company(id="co") == tx.get(Company, "co")


@pytest.mark.external_service
class TestPreparedStatements:
    def test_two_clients_prepare_the_same_name_on_one_server_connection(self):
        """
        Without pool_mode="transaction", psycopg prepares a statement on its 6th run; a second
        client through the same PgBouncer prepares its own under the same name on the same
        server connection: StoreError "prepared statement ... already exists", with a hint.
        With pool_mode="transaction" the same sequence runs through.
        """
        schema = unique_name()
        with own_pgbouncer() as bouncer:
            outcomes: dict[str, str] = {}
            for mode in ("session", "transaction"):
                first = SQLStore(bouncer.url, schema=schema, pool_mode=mode)
                second = SQLStore(bouncer.url, schema=schema, pool_mode=mode)
                try:
                    with first.transaction() as tx:
                        if tx.get(Company, "co") is None:
                            tx.insert(sample_company(id="co"))
                    # One client at a time: PgBouncer reuses its one server connection.
                    _units(first, 10)
                    try:
                        _units(second, 10)
                    except StoreError as error:
                        outcomes[mode] = error.message
                    else:
                        outcomes[mode] = "ok"
                finally:
                    first.close()
                    second.close()
            POSTGRES.drop(server_engine(POSTGRES), schema)

        assert "prepared statement" in outcomes["session"], outcomes
        assert "already exists" in outcomes["session"], outcomes
        assert 'pool_mode="transaction"' in outcomes["session"], outcomes
        assert "ok" == outcomes["transaction"]

    def test_a_host_engine_gets_prepared_statements_turned_off(self):
        """A host's own Engines (psycopg's default prepare_threshold 5) with pool_mode="transaction"."""
        schema = unique_name()
        with own_pgbouncer() as bouncer:
            engines = [create_engine(bouncer.url) for _ in "ab"]
            stores = [
                SQLStore(engine, schema=schema, pool_mode="transaction") for engine in engines
            ]
            try:
                with stores[0].transaction() as tx:
                    tx.insert(sample_company(id="co"))
                for store in stores:
                    _units(store, 10)
                with engines[0].connect() as conn:
                    threshold = conn.connection.driver_connection.prepare_threshold  # type: ignore[union-attr]
            finally:
                for store, engine in zip(stores, engines, strict=True):
                    store.close()
                    engine.dispose()
            POSTGRES.drop(server_engine(POSTGRES), schema)

        assert threshold is None


class TestPoolModeChoice:
    def test_an_unknown_pool_mode_is_refused_naming_the_field(self, tmp_path: Path):
        """pool_mode="statement" raises InvalidChoice naming pool_mode and the allowed modes."""
        with pytest.raises(InvalidChoice) as caught:
            SQLStore(f"sqlite:///{tmp_path / 'a.db'}", pool_mode="statement")  # type: ignore[arg-type]

        assert ("pool_mode", ("session", "transaction"), "statement") == (
            caught.value.field,
            caught.value.allowed,
            caught.value.requested,
        )

    def test_transaction_pooling_is_postgresql_only(self, tmp_path: Path):
        """pool_mode="transaction" on SQLite raises InvalidChoice: only "session" is allowed."""
        with pytest.raises(InvalidChoice) as caught:
            SQLStore(f"sqlite:///{tmp_path / 'a.db'}", pool_mode="transaction")

        assert ("pool_mode", ("session",)) == (caught.value.field, caught.value.allowed)


@pytest.mark.external_service
class TestStatementPooling:
    @pytest.mark.parametrize("mode", ["session", "transaction"])
    def test_a_statement_mode_pooler_is_named_not_called_unreachable(self, mode: str):
        """PgBouncer in statement pooling mode refuses every transaction block: the store says
        so and what to set, not "could not reach the database" (the pooler was reached)."""
        with (
            own_pgbouncer(pool_mode="statement") as bouncer,
            pytest.raises(StoreUnavailable) as refused,
        ):
            SQLStore(bouncer.url, schema=unique_name(), pool_mode=mode)
        message = str(refused.value)

        assert (
            "PostgreSQL store opening the schema failed: the connection pooler refuses "
            "transactions (PgBouncer in statement pooling mode, which slotwise does not support: "
            "set pool_mode = transaction or session in pgbouncer.ini): "
        ) in message
        assert "could not reach" not in message

    @pytest.mark.parametrize(
        ("driver_error", "worded"),
        [
            ("Long transactions not allowed", True),  # older PgBouncers' words
            ("transaction blocks not allowed in statement pooling mode", True),
            ('prepared statement "_pg3_0" does not exist', False),
            (None, False),
        ],
    )
    def test_both_pgbouncer_wordings_are_recognised(self, driver_error: str | None, worded: bool):
        """Older PgBouncers say "Long transactions not allowed": worded alike; others are not."""
        from slotwise.storage.sql._operating import statement_pooling

        refusal = statement_pooling(driver_error)

        assert worded == (refusal is not None)
        if refusal is not None:
            assert refusal.startswith("the connection pooler refuses transactions")
            assert refusal.endswith(f": {driver_error}")
