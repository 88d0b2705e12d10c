"""
Operations run off the event loop, on worker threads, as many at once as the store can serve.

Every operation is synchronous (a store read or unit of work, the availability calculator). Run
on the event loop, one slow request -- a long availability range, a unit of work waiting for a
PostgreSQL lock -- would stall every other request of its process. :class:`Offload` runs each on
a worker thread instead, at most :attr:`Offload.threads` at once (the others wait for a thread
without blocking the loop).

On asyncio (uvicorn's loop) the threads are a :class:`~concurrent.futures.ThreadPoolExecutor`
of that many threads: the hop to a thread and back is the request's largest fixed cost after the
server's own. Each call is submitted to the executor with the asyncio future its request awaits,
and the thread settles that future itself (one ``call_soon_threadsafe``): half the CPU of
``loop.run_in_executor``, which chains the executor's future to an asyncio one and copies its
state back under the executor future's lock, and a sixth of anyio's ``to_thread.run_sync`` (no
cancel scope, no capacity limiter to take and release: the pool's size is the limit;
docs/performance.md). A call still waiting for a thread when its request is cancelled never
runs, as with anyio's limiter. On another event loop library anyio's threads serve, limited the
same.

The number follows the store (:func:`threads_for`; docs/semantics.md, "Operations run off the
event loop"): a store that declares ``max_connections`` (:class:`~slotwise.storage.sql.SQLStore`:
its pool's ``pool_size + max_overflow``, 5 + 10 by default) gets that many threads, since each
operation holds at most one connection at a time and a thread beyond the pool would only wait
for a connection (and fail after the pool's timeout); a store without a limit gets
:data:`DEFAULT_THREADS`.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, TypeVar

import anyio
import anyio.lowlevel
import anyio.to_thread

from slotwise.errors import OutOfRange

__all__ = ["DEFAULT_THREADS", "Offload", "threads_for"]

DEFAULT_THREADS: Final = 40
"""Threads for a store without a connection limit (anyio's default for a process's loop)."""

_T = TypeVar("_T")


def threads_for(store: object) -> int:
    """
    Return how many operations on *store* run at once: its ``max_connections`` when it declares
    one (an ``int``), else :data:`DEFAULT_THREADS`.
    """
    connections = getattr(store, "max_connections", None)
    if isinstance(connections, int) and connections >= 1:
        return connections
    return DEFAULT_THREADS


class Offload:
    """
    Run synchronous calls on worker threads, at most *threads* at once.

    The calling context (the request id of the log lines) goes with each call to its thread.
    """

    def __init__(self, threads: int) -> None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise OutOfRange(field="threads", allowed="at least 1", requested=threads)
        self.threads = threads
        # Threads start when first needed and stay for the process's life (daemon-like: the
        # interpreter's exit waits only for calls already running).
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="slotwise-operation")
        # One limiter per event loop: a limiter belongs to the loop it is used on, and an app
        # may be served by more than one loop in its life (tests run one loop per request).
        self._limiter: anyio.lowlevel.RunVar[anyio.CapacityLimiter] = anyio.lowlevel.RunVar(
            f"slotwise_threads_{id(self)}"
        )

    def _current_limiter(self) -> anyio.CapacityLimiter:
        try:
            return self._limiter.get()
        except LookupError:
            limiter = anyio.CapacityLimiter(self.threads)
            self._limiter.set(limiter)
            return limiter

    async def run(self, call: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
        """Return ``call(*args, **kwargs)``, run on a worker thread."""
        context = contextvars.copy_context()
        bound = functools.partial(context.run, call, *args, **kwargs)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): anyio's worker threads
            return await anyio.to_thread.run_sync(bound, limiter=self._current_limiter())
        # The executor's own future is not chained to an asyncio one (``run_in_executor``):
        # the thread settles an asyncio future itself, one ``call_soon_threadsafe`` a call.
        # Half the CPU of a hop (docs/performance.md, "The served API").
        answer: asyncio.Future[_T] = loop.create_future()
        self._executor.submit(_settle_with, loop, answer, bound)
        return await answer


def _settle_with(
    loop: asyncio.AbstractEventLoop, answer: asyncio.Future[_T], call: Callable[[], _T]
) -> None:
    """Run *call* on this worker thread and give its result or error to *answer* on *loop*."""
    # A request cancelled while its call waited for a thread: the call never runs.
    if answer.cancelled():
        return
    settle: Callable[[asyncio.Future[Any], Any], None]
    try:
        value: Any = call()
        settle = _succeed
    except BaseException as error:  # given to the awaiting request, as run_in_executor does
        value, settle = error, _fail
    if loop.is_closed():  # the server stopped while the call ran: nobody awaits it
        return
    loop.call_soon_threadsafe(settle, answer, value)


def _succeed(answer: asyncio.Future[_T], result: _T) -> None:
    if not answer.cancelled():
        answer.set_result(result)


def _fail(answer: asyncio.Future[Any], error: BaseException) -> None:
    if not answer.cancelled():
        answer.set_exception(error)
