"""Operations run off the event loop, as many at once as the store has connections (issue 21)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

pytest.importorskip("litestar")
sqlalchemy = pytest.importorskip("sqlalchemy")

from slotwise import OutOfRange, Scheduler  # noqa: E402 -- after the extras are known
from slotwise.http import create_app  # noqa: E402
from slotwise.http._errors import REQUEST_ID  # noqa: E402
from slotwise.http._threads import DEFAULT_THREADS, Offload, threads_for  # noqa: E402
from slotwise.storage.memory import MemoryStore  # noqa: E402
from slotwise.storage.sql import SQLStore  # noqa: E402


class TestMaxConnections:
    def test_a_url_gets_the_default_queue_pool(self, tmp_path: Path):
        """A store made from a URL opens at most 5 + 10 connections (SQLAlchemy's defaults)."""
        store = SQLStore(f"sqlite:///{tmp_path / 'a.db'}")

        assert 15 == store.max_connections
        store.close()

    def test_an_engine_of_the_host_keeps_its_pool_size(self, tmp_path: Path):
        """A host's engine with pool_size 2 and max_overflow 1 allows 3 connections."""
        engine = sqlalchemy.create_engine(
            f"sqlite:///{tmp_path / 'b.db'}", pool_size=2, max_overflow=1
        )

        assert 3 == SQLStore(engine).max_connections
        engine.dispose()

    @pytest.mark.parametrize(
        ("options", "expected"),
        [
            ({"poolclass": sqlalchemy.pool.NullPool}, None),
            ({"poolclass": sqlalchemy.pool.StaticPool}, 1),
            ({"pool_size": 3, "max_overflow": -1}, None),
        ],
        ids=["null-pool", "static-pool", "unbounded-overflow"],
    )
    def test_other_pools(self, tmp_path: Path, options, expected):
        """A NullPool or an unbounded overflow has no limit; a StaticPool one connection."""
        engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'c.db'}", **options)

        assert expected == SQLStore(engine).max_connections
        engine.dispose()


class TestThreadsFor:
    def test_follows_the_store_pool(self, tmp_path: Path):
        """The thread count is the store's max_connections; a store without one gets 40."""
        engine = sqlalchemy.create_engine(
            f"sqlite:///{tmp_path / 'd.db'}", pool_size=2, max_overflow=2
        )

        assert 4 == threads_for(SQLStore(engine))
        assert DEFAULT_THREADS == threads_for(MemoryStore()) == 40
        engine.dispose()

    def test_create_app_sizes_its_threads_from_the_store(self, tmp_path: Path):
        """create_app runs as many operations at once as the store's pool allows, or as told."""
        engine = sqlalchemy.create_engine(
            f"sqlite:///{tmp_path / 'e.db'}", pool_size=3, max_overflow=0
        )
        scheduler = Scheduler(SQLStore(engine))

        assert 3 == _threads_of(create_app(scheduler))
        assert 7 == _threads_of(create_app(scheduler, threads=7))
        engine.dispose()

    @pytest.mark.parametrize("threads", [0, -1])
    def test_no_thread_is_refused(self, threads):
        """threads below 1 is OutOfRange naming the field."""
        with pytest.raises(OutOfRange) as refused:
            create_app(Scheduler(), threads=threads)

        assert "threads" == refused.value.field


def _threads_of(app) -> int:
    """The thread count of the app's handlers (read from a route handler's closure)."""
    handler = app.route_handler_method_map["/healthz"]["GET"]
    cells = [cell.cell_contents for cell in handler.fn.__closure__ or ()]
    (offload,) = [cell for cell in cells if isinstance(cell, Offload)]
    return offload.threads


class TestOffload:
    def test_calls_run_on_another_thread_with_the_request_id(self):
        """A call runs off the loop's thread and sees the request id of its caller."""
        offload = Offload(2)

        def where() -> tuple[int, str]:
            return threading.get_ident(), REQUEST_ID.get()

        async def main() -> tuple[int, tuple[int, str]]:
            REQUEST_ID.set("abc-1")
            return threading.get_ident(), await offload.run(where)

        loop_thread, (call_thread, request_id) = asyncio.run(main())

        assert loop_thread != call_thread
        assert "abc-1" == request_id

    def test_at_most_threads_calls_run_at_once(self):
        """With 2 threads a third call waits until one of two blocked calls returns."""
        offload = Offload(2)
        release = threading.Event()
        running: list[int] = []
        peak: list[int] = []
        lock = threading.Lock()

        def blocked() -> None:
            with lock:
                running.append(1)
                peak.append(len(running))
            release.wait(timeout=30)
            with lock:
                running.pop()

        async def main() -> None:
            calls = [asyncio.ensure_future(offload.run(blocked)) for _ in range(3)]
            while len(peak) < 2:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)  # a third call, were it running, would have started
            third_waited = len(peak) == 2
            release.set()
            await asyncio.gather(*calls)
            assert third_waited

        asyncio.run(main())

        assert 2 == max(peak)
        assert 3 == len(peak)

    def test_an_error_of_the_call_reaches_its_caller(self):
        """An exception raised on the worker thread is raised where the call was awaited."""
        offload = Offload(1)

        def fails() -> None:
            raise LookupError("gone")

        async def main() -> None:
            await offload.run(fails)

        with pytest.raises(LookupError, match="gone"):
            asyncio.run(main())

    def test_a_call_cancelled_while_waiting_never_runs(self):
        """With one thread busy, a call whose request is cancelled before a thread frees skips."""
        offload = Offload(1)
        release = threading.Event()
        ran: list[str] = []

        def blocked() -> None:
            release.wait(timeout=30)

        async def main() -> None:
            first = asyncio.ensure_future(offload.run(blocked))
            second = asyncio.ensure_future(offload.run(ran.append, "second"))
            await asyncio.sleep(0.05)
            second.cancel()
            release.set()
            await first
            await asyncio.to_thread(offload._executor.shutdown, wait=True)

        asyncio.run(main())

        assert [] == ran
