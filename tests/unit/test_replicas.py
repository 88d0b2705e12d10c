"""
Read replicas without a server (decision 50): which replica may answer, consistency tokens,
the fallback of stores without replicas, and the options ``SQLStore`` refuses.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
import sqlalchemy

from slotwise.errors import InconsistentFields, InvalidFormat, OutOfRange
from slotwise.model import Company
from slotwise.storage.batched import ReadAgain
from slotwise.storage.memory import MemoryStore
from slotwise.storage.replicas import (
    GTIDPosition,
    WALPosition,
    consistent_with,
    current_consistency,
    lagging_read,
    token_position,
)
from slotwise.storage.sql import SQLStore
from slotwise.storage.sql._dialects import dialect_for
from slotwise.storage.sql._replicas import ReplicaSample, ReplicaSet, open_replicas, skip_reason
from slotwise.storage.sql._replication import slaves_status_sample

HEALTHY = ReplicaSample(
    follows=True, caught_up=True, seconds_behind=120.0, replayed=token_position("0/3000100")
)


def sample(**changes: object) -> ReplicaSample:
    """Return the healthy, caught-up sample with *changes*."""
    return attrs.evolve(HEALTHY, **changes)  # type: ignore[arg-type]


class TestSkipReason:
    def test_a_caught_up_replica_is_used_however_old_its_last_transaction(self):
        """Everything received is replayed: lag 0, even when the last commit is minutes old."""
        assert skip_reason(HEALTHY, max_lag=5, after=None) is None

    def test_a_replica_replaying_within_max_lag_is_used(self):
        """WAL waiting, the last replayed commit 2 s old, max_lag 5 s: used."""
        assert (
            skip_reason(sample(caught_up=False, seconds_behind=2.0), max_lag=5, after=None) is None
        )

    def test_a_replica_further_behind_than_max_lag_is_skipped(self):
        """WAL waiting, the last replayed commit 6 s old, max_lag 5 s: skipped, saying how far."""
        reason = skip_reason(sample(caught_up=False, seconds_behind=6.0), max_lag=5, after=None)

        assert "6.000 s behind" in str(reason)

    def test_a_replica_that_replayed_nothing_yet_is_skipped_while_behind(self):
        """No transaction replayed yet and WAL waiting: its lag is unknown, so it is skipped."""
        reason = skip_reason(sample(caught_up=False, seconds_behind=None), max_lag=5, after=None)

        assert reason is not None

    def test_a_replica_whose_replication_is_stopped_is_skipped(self):
        """Without a WAL receiver (or a MariaDB thread) the replica cannot know how far behind it is."""
        reason = skip_reason(sample(stopped="its SQL thread is not running"), max_lag=5, after=None)

        assert "its SQL thread is not running" == reason

    def test_a_promoted_replica_is_skipped(self):
        """A server out of recovery follows no primary: never read as a replica."""
        assert skip_reason(sample(follows=False), max_lag=5, after=None) is not None

    def test_a_token_not_yet_replayed_skips_the_replica(self):
        """A client's token past the replayed position sends it elsewhere; one at it does not."""
        ahead = skip_reason(HEALTHY, max_lag=5, after=token_position("0/3000101"))
        at = skip_reason(HEALTHY, max_lag=5, after=token_position("0/3000100"))

        assert (True, None) == (ahead is not None, at)

    def test_a_token_of_the_other_database_skips_the_replica_saying_so(self):
        """A MariaDB token on a PostgreSQL replica names nothing it replayed: the primary answers."""
        reason = skip_reason(HEALTHY, max_lag=5, after=token_position("0-1-42"))

        assert "is not a position of this database" in str(reason)

    def test_a_mariadb_replica_that_applied_the_token_is_used(self):
        """A GTID token at or below the replica's gtid_slave_pos in its domain lets it answer."""
        replica = sample(replayed=token_position("0-1-42,1-2-7"))

        reasons = [
            skip_reason(replica, max_lag=5, after=token_position(token))
            for token in ("0-1-42", "1-3-7", "0-1-43", "2-1-1")
        ]

        assert [None, None, True, True] == [reason and True for reason in reasons]


class TestTokens:
    def test_wal_positions_order_as_wal_positions(self):
        """The high word counts before the low one, in hexadecimal."""
        low, middle, high = (token_position(t) for t in ("0/FFFFFFFF", "1/0", "1/A"))

        assert (True, True, False) == (high.covers(middle), middle.covers(low), low.covers(high))

    def test_gtid_positions_order_by_sequence_within_each_domain(self):
        """A domain's later sequence covers an earlier one whichever server wrote it."""
        replica = token_position("0-1-42,1-2-7")

        assert GTIDPosition(((0, 1, 42), (1, 2, 7))) == replica
        assert replica.covers(token_position("1-2-7,0-9-41"))
        assert not replica.covers(token_position("0-1-43"))
        assert not replica.covers(token_position("5-1-1"))

    def test_a_token_never_covers_one_of_the_other_database(self):
        """A WAL position and a GTID position are not comparable: neither covers the other."""
        wal, gtid = token_position("0/0"), token_position("0-1-0")

        assert (False, False) == (wal.covers(gtid), gtid.covers(wal))

    @pytest.mark.parametrize("token", ["0/16B3748", "0-1-42", "0-1-42,1-2-7"])
    def test_a_token_prints_as_given(self, token):
        """A position's string is the token it came from (MariaDB's and PostgreSQL's spelling)."""
        assert token == str(token_position(token))

    def test_a_wal_token_parses_to_its_number(self):
        """0/16B3748 is the WAL position 0x16B3748."""
        assert WALPosition(0x16B3748) == token_position("0/16b3748")

    @pytest.mark.parametrize(
        "token",
        [
            "",
            "0",
            "0/",
            "x/1",
            "0/123456789",
            "0/1 ",
            "0-1",
            "0-1-",
            "-1-2",
            "0-1-2,",
            "0-1-2, 1-1-1",
            "0-1-2;1-1-1",
            "0-1-x",
            "0/1-2",
        ],
    )
    def test_a_malformed_token_is_refused_naming_the_field(self, token):
        """Anything but <hex>/<hex> or domain-server-sequence GTIDs is InvalidFormat naming the field."""
        with pytest.raises(InvalidFormat) as refused:
            token_position(token, field="Slotwise-Consistency")

        assert "Slotwise-Consistency" == refused.value.field

    @pytest.mark.parametrize(
        "token", ["4294967296-1-1", "0-4294967296-1", "0-1-18446744073709551616", "0-1-1,0-2-2"]
    )
    def test_a_gtid_past_its_limits_is_refused_naming_them(self, token):
        """Domain and server ids are below 2**32, sequences below 2**64, each domain once."""
        with pytest.raises(InvalidFormat) as refused:
            token_position(token, field="Slotwise-Consistency")

        assert "Slotwise-Consistency" == refused.value.field
        assert "2**32" in str(refused.value) or "named twice" in str(refused.value)

    def test_consistent_with_keeps_the_newest_position(self):
        """Writes inside the block raise the token; an older position never lowers it."""
        with consistent_with("0/200") as session:
            session.written("0/300")
            session.written("0/250")
            inside = current_consistency()

        assert ("0/300", session, None) == (session.token, inside, current_consistency())

    def test_a_gtid_token_keeps_the_newest_of_each_domain(self):
        """Writes in two domains make a token naming both; an older GTID never lowers one."""
        with consistent_with("0-1-10") as session:
            session.written("1-1-3")
            session.written("0-1-9")
            session.written("0-2-11")

        assert "0-2-11,1-1-3" == session.token

    def test_a_token_of_the_other_database_is_replaced_by_a_write(self):
        """A PostgreSQL token meeting a MariaDB store's write is replaced by the write's GTID."""
        with consistent_with("0/200") as session:
            session.written("0-1-5")

        assert "0-1-5" == session.token

    def test_consistent_with_refuses_a_malformed_token(self):
        """The token a client presents is checked before anything runs."""
        with pytest.raises(InvalidFormat) as refused, consistent_with("nope", field="token"):
            pass

        assert "token" == refused.value.field


def test_lagging_read_on_a_store_without_replicas_is_its_read():
    """MemoryStore has no replicas: lagging_read runs the read on its ordinary read."""
    store = MemoryStore()

    kinds = lagging_read(store, lambda reader: (type(reader), reader.get(Company, "nobody")))
    with store.read() as plain:
        plain_kind = type(plain)

    assert (plain_kind, None) == kinds


def test_lagging_read_runs_a_read_again_once_when_it_must_read_again():
    """A store without replicas: ReadAgain from the read runs it once more on a new view."""
    store = MemoryStore()
    attempts: list[int] = []

    def read(reader: object) -> int:
        attempts.append(len(attempts))
        if len(attempts) == 1:
            raise ReadAgain("the view ended early")
        return len(attempts)

    assert 2 == lagging_read(store, read)

    def always(reader: object) -> int:
        raise ReadAgain("again and again")

    with pytest.raises(ReadAgain):
        lagging_read(store, always)


def test_lagging_read_as_a_context_manager_is_deprecated_and_still_reads():
    """The with-form (which cannot be re-run when a replica fails) warns and still opens a read."""
    store = MemoryStore()

    with pytest.warns(DeprecationWarning, match="lagging_read\\(store, read\\)"):
        view = lagging_read(store)
    with view as reader:
        found = reader.get(Company, "nobody")

    assert found is None


class TestOptions:
    def test_replicas_on_sqlite_are_refused_naming_the_field(self, tmp_path: Path):
        """Read replicas need PostgreSQL or MariaDB: SQLite refuses them with InconsistentFields."""
        with pytest.raises(InconsistentFields) as refused:
            SQLStore(f"sqlite:///{tmp_path / 's.db'}", replicas=[f"sqlite:///{tmp_path / 'r.db'}"])

        assert "replicas" == refused.value.field

    def test_a_replica_on_another_database_is_refused_naming_the_field(self):
        """A MariaDB replica of a PostgreSQL store is refused before anything connects."""
        stranger = sqlalchemy.create_engine("mysql+pymysql://root@127.0.0.1:1/none")
        try:
            with pytest.raises(InconsistentFields) as refused:
                open_replicas(
                    dialect_for("postgresql", namespace="", lock_timeout=1, idle_timeout=1),
                    [stranger],
                    owned=[],
                    max_lag=5,
                    retry_after=5,
                    lock_timeout=1,
                )
        finally:
            stranger.dispose()

        assert ("replicas", True) == (refused.value.field, "not mysql" in str(refused.value))

    @pytest.mark.parametrize("field", ["max_lag", "replica_retry"])
    def test_negative_seconds_are_refused_naming_the_field(self, tmp_path: Path, field: str):
        """max_lag and replica_retry are at least 0 seconds."""
        with pytest.raises(OutOfRange) as refused:
            SQLStore(f"sqlite:///{tmp_path / 's.db'}", **{field: -1.0})  # type: ignore[arg-type]

        assert field == refused.value.field


class TestReplicaSet:
    def test_an_unreachable_replica_is_left_alone_until_its_retry_time(self):
        """A failed connect marks the replica down; it is not tried again before retry_after."""
        now = [100.0]
        attempts: list[object] = []
        replicas = ReplicaSet([object()], max_lag=5, retry_after=10, monotonic=lambda: now[0])  # type: ignore[list-item]

        def refuse(engine: object) -> object:
            attempts.append(engine)
            raise ConnectionError("connection refused")

        first = replicas.open(refuse, after=None)  # type: ignore[arg-type]
        replicas.open(refuse, after=None)  # type: ignore[arg-type]
        now[0] = 110.0
        replicas.open(refuse, after=None)  # type: ignore[arg-type]

        assert (None, 2) == (first, len(attempts))


def status(**changes: object) -> dict[str, object]:
    """Return one healthy row of MariaDB's SHOW ALL SLAVES STATUS with *changes*."""
    row: dict[str, object] = {
        "Connection_name": "",
        "Slave_IO_Running": "Yes",
        "Slave_SQL_Running": "Yes",
        "Seconds_Behind_Master": 0,
        "Last_IO_Error": "",
        "Last_SQL_Error": "",
        "Gtid_Slave_Pos": "0-1-42",
    }
    return {**row, **changes}


class TestMariaDBStatus:
    def test_a_replica_with_both_threads_idle_is_caught_up_at_its_slave_pos(self):
        """Seconds_Behind_Master 0 with both threads running: caught up, at gtid_slave_pos."""
        assert ReplicaSample(
            follows=True, caught_up=True, seconds_behind=0.0, replayed=token_position("0-1-42")
        ) == slaves_status_sample([status()])

    def test_a_server_without_replication_is_no_replica(self):
        """No SHOW ALL SLAVES STATUS row: the server follows no primary."""
        assert not slaves_status_sample([]).follows

    def test_a_stopped_sql_thread_is_named_with_its_error(self):
        """A stopped SQL thread reports NULL seconds behind: skipped, saying why."""
        stopped = slaves_status_sample(
            [
                status(
                    Slave_SQL_Running="No",
                    Seconds_Behind_Master=None,
                    Last_SQL_Error="Duplicate entry",
                )
            ]
        )

        reason = skip_reason(stopped, max_lag=3600, after=None)

        assert "its SQL thread is not running (Duplicate entry)" == reason

    def test_an_io_thread_still_connecting_is_not_running(self):
        """An IO thread reconnecting to the primary cannot know how far behind the replica is."""
        connecting = slaves_status_sample([status(Slave_IO_Running="Connecting")])

        assert "its IO thread is connecting" == connecting.stopped

    def test_seconds_behind_master_is_the_lag(self):
        """An applying replica 7 s behind is skipped under max_lag 5 and used under 10."""
        behind = slaves_status_sample([status(Seconds_Behind_Master=7)])

        assert (True, None) == (
            skip_reason(behind, max_lag=5, after=None) is not None,
            skip_reason(behind, max_lag=10, after=None),
        )

    def test_with_several_sources_the_default_connection_is_followed(self):
        """Multi-source replication: the unnamed connection is the one CHANGE MASTER TO made."""
        rows = [
            status(Connection_name="other", Slave_SQL_Running="No"),
            status(Seconds_Behind_Master=3),
        ]

        assert (True, None, 3.0) == (
            slaves_status_sample(rows).follows,
            slaves_status_sample(rows).stopped,
            slaves_status_sample(rows).seconds_behind,
        )

    def test_a_replica_that_applied_nothing_has_no_position(self):
        """An empty gtid_slave_pos: nothing replayed, so no token is covered."""
        fresh = slaves_status_sample([status(Gtid_Slave_Pos="")])

        assert skip_reason(fresh, max_lag=5, after=token_position("0-1-1")) is not None
