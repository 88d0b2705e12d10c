"""
The cyclic garbage collector paused while a query builds its answer.

A query allocates many small container objects (slots, tuples, datetimes) and frees almost none
of them before it returns. CPython starts a collection of the youngest generation every 700 net
new container objects and, every tenth of those, walks the older generation too, so a query that
builds 360,000 slots starts hundreds of collections that walk ever more surviving objects and
find nothing to free: the 100 resources x 365 days workload took 1.19 s with the collector on and
0.66 s with it paused (``benchmarks/workload.py``). The answer holds no reference cycles, so
nothing the query makes waits longer to be freed; cycles made elsewhere meanwhile are collected
at the next collection after the query.

The pause is process-wide (the collector has one switch): the first query in flight turns the
collector off if it was on, the last one to finish turns it back on. A host that switches the
collector itself while a query runs may find it switched back when the query ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

_lock = threading.Lock()
_in_flight = 0
_resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Keep the cyclic collector off while the block (or decorated function) runs."""
    global _in_flight, _resume
    with _lock:
        if _in_flight == 0:
            _resume = gc.isenabled()
            if _resume:
                gc.disable()
        _in_flight += 1
    try:
        yield
    finally:
        with _lock:
            _in_flight -= 1
            if _in_flight == 0 and _resume:
                gc.enable()
