"""
Read replicas without a server (decision 50): which replica may answer, consistency tokens,
the fallback of stores without replicas, and the options ``SQLStore`` refuses.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from slotwise.errors import InconsistentFields, InvalidFormat, OutOfRange
from slotwise.model import Company
from slotwise.storage.memory import MemoryStore
from slotwise.storage.replicas import (
    consistent_with,
    current_consistency,
    lagging_read,
    token_position,
)
from slotwise.storage.sql import SQLStore
from slotwise.storage.sql._replicas import ReplicaSample, ReplicaSet, skip_reason

HEALTHY = ReplicaSample(
    in_recovery=True, receiving=True, caught_up=True, seconds_behind=120.0, replayed="0/3000100"
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

    def test_a_replica_not_streaming_is_skipped(self):
        """Without a WAL receiver the replica cannot know how far behind it is."""
        assert skip_reason(sample(receiving=False), max_lag=5, after=None) is not None

    def test_a_promoted_replica_is_skipped(self):
        """A server out of recovery follows no primary: never read as a replica."""
        assert skip_reason(sample(in_recovery=False), max_lag=5, after=None) is not None

    def test_a_token_not_yet_replayed_skips_the_replica(self):
        """A client's token past the replayed position sends it elsewhere; one at it does not."""
        ahead = skip_reason(HEALTHY, max_lag=5, after=token_position("0/3000101"))
        at = skip_reason(HEALTHY, max_lag=5, after=token_position("0/3000100"))

        assert (True, None) == (ahead is not None, at)


class TestTokens:
    def test_positions_order_as_wal_positions(self):
        """The high word counts before the low one, in hexadecimal."""
        assert token_position("0/FFFFFFFF") < token_position("1/0") < token_position("1/A")

    @pytest.mark.parametrize("token", ["", "0", "0/", "x/1", "0/123456789", "0/1 "])
    def test_a_malformed_token_is_refused_naming_the_field(self, token):
        """Anything but <hex>/<hex> is InvalidFormat naming the field it came in."""
        with pytest.raises(InvalidFormat) as refused:
            token_position(token, field="Slotwise-Consistency")

        assert "Slotwise-Consistency" == refused.value.field

    def test_consistent_with_keeps_the_newest_position(self):
        """Writes inside the block raise the token; an older position never lowers it."""
        with consistent_with("0/200") as session:
            session.written("0/300")
            session.written("0/250")
            inside = current_consistency()

        assert ("0/300", session, None) == (session.token, inside, current_consistency())

    def test_consistent_with_refuses_a_malformed_token(self):
        """The token a client presents is checked before anything runs."""
        with pytest.raises(InvalidFormat) as refused, consistent_with("nope", field="token"):
            pass

        assert "token" == refused.value.field


def test_lagging_read_on_a_store_without_replicas_is_its_read():
    """MemoryStore has no replicas: lagging_read opens its ordinary read."""
    store = MemoryStore()

    with lagging_read(store) as reader, store.read() as plain:
        kinds = (type(reader), reader.get(Company, "nobody"))

    assert (type(plain), None) == kinds


class TestOptions:
    def test_replicas_on_sqlite_are_refused_naming_the_field(self, tmp_path: Path):
        """Read replicas need PostgreSQL: SQLite refuses them with InconsistentFields."""
        with pytest.raises(InconsistentFields) as refused:
            SQLStore(f"sqlite:///{tmp_path / 's.db'}", replicas=[f"sqlite:///{tmp_path / 'r.db'}"])

        assert "replicas" == refused.value.field

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
