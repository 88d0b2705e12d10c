"""The shipped test doubles: ManualClock never goes backwards, SequentialIds counts."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta, timezone

import pytest

from slotwise import NaiveDatetime, OutOfRange
from slotwise.testing import ManualClock, SequentialIds


class TestManualClock:
    def test_stands_still_until_advanced(self):
        """now() repeats until advance() moves it forward."""
        clock = ManualClock(datetime(2026, 3, 8, 6, 59, tzinfo=UTC))

        assert clock.now() == clock.now()
        assert clock.advance(timedelta(minutes=2)) == datetime(2026, 3, 8, 7, 1, tzinfo=UTC)

    def test_converts_to_utc(self):
        """A start in another offset is kept as the same instant in UTC."""
        clock = ManualClock(datetime(2026, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=2))))

        assert clock.now() == datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
        assert clock.now().tzinfo is UTC

    def test_refuses_to_go_backwards(self):
        """A negative step or an earlier set() is refused and the clock does not move."""
        clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
        with pytest.raises(OutOfRange):
            clock.advance(timedelta(seconds=-1))
        with pytest.raises(OutOfRange):
            clock.set(datetime(2025, 12, 31, tzinfo=UTC))

        assert clock.now() == datetime(2026, 1, 1, tzinfo=UTC)

    def test_refuses_naive_start(self):
        """A naive start is refused: slotwise never guesses a zone."""
        with pytest.raises(NaiveDatetime):
            ManualClock(datetime(2026, 1, 1))


class TestSequentialIds:
    def test_counts_with_prefix(self):
        """Ids are the prefix followed by 1, 2, 3..."""
        ids = SequentialIds("apt-")

        assert [ids.new_id() for _ in range(3)] == ["apt-1", "apt-2", "apt-3"]

    def test_threads_never_share_an_id(self):
        """Eight threads drawing 1,000 ids each get 8,000 distinct ids."""
        ids = SequentialIds()
        drawn: list[str] = []
        lock = threading.Lock()

        def draw() -> None:
            mine = [ids.new_id() for _ in range(1000)]
            with lock:
                drawn.extend(mine)

        threads = [threading.Thread(target=draw) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        assert len(set(drawn)) == 8000
