"""
How a list call's time grows with the records stored: ``appointments.list(limit=20)`` and two
filtered lists, on every store, as appointments accumulate (issue 13, "Lists in the store").

Usage::

    python benchmarks/lists.py [--stores memory sqlite postgresql mariadb]
                               [--sizes 1000 10000 100000] [--repeat K] [--batch B]

Each store gets ``scenario.py``'s small business (3 resources, 10 bookings each, 5 days) loaded
as ``workload.py`` maps it, then appointments added at its location until it holds each size
(30-minute BK appointments, round robin over the resources; inserted straight into the store,
*B* per unit of work). At each size, timed (``time.perf_counter``, best of K calls, default 20):

``first_page``   ``ws.appointments.list(location_id=..., limit=20)``
``last_page``    the same at the last full page's offset
``status``       ``ws.appointments.list(..., status="BK", resource_id=<one resource>, limit=20)``

Prints one JSON line per store: ``{"store", "runs", "sizes": [{"appointments", "fill_seconds",
"first_page_ms", "last_page_ms", "status_ms"}], "ratio"}`` where ``ratio`` is the first page's
time at the largest size over its time at the smallest. Checked: every call returns 20
records and the total the store holds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from scenario import generate
from sql_stores import STORES, BenchmarkFailed, LoadedWorkload, fresh_target, opened

PAGE = 20


def _best_ms(call: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        began = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - began)
    return best * 1000, result


def run_store(kind: str, sizes: Sequence[int], repeat: int, batch: int) -> dict[str, Any]:
    """Time the three lists on a fresh *kind* store at each size."""
    measured: list[dict[str, Any]] = []
    with fresh_target(kind) as target, opened(target) as store:
        loaded = LoadedWorkload(store, generate(3, 10, 5))
        lists = loaded.workspace.appointments
        base = lists.list(location_id=loaded.location_id, limit=1).total
        for size in sizes:
            began = time.perf_counter()
            loaded.add_history(size - base - loaded.history, batch)
            filled = time.perf_counter() - began
            total = base + loaded.history
            last = (total // PAGE - 1) * PAGE
            figures: dict[str, float] = {}
            for name, call in (
                ("first_page", lambda: lists.list(location_id=loaded.location_id, limit=PAGE)),
                (
                    "last_page",
                    lambda last=last: lists.list(
                        location_id=loaded.location_id, offset=last, limit=PAGE
                    ),
                ),
                (
                    "status",
                    lambda: lists.list(
                        location_id=loaded.location_id,
                        status="BK",
                        resource_id=loaded.resource_ids[0],
                        limit=PAGE,
                    ),
                ),
            ):
                best, page = _best_ms(call, repeat)
                if page.count != PAGE or (name != "status" and page.total != total):
                    raise BenchmarkFailed(
                        f"{kind} {name}: {page.count} records of {page.total}, expected"
                        f" {PAGE} of {total}"
                    )
                figures[f"{name}_ms"] = round(best, 3)
            measured.append({"appointments": total, "fill_seconds": round(filled, 3), **figures})
    return {
        "store": kind,
        "runs": repeat,
        "sizes": measured,
        "ratio": round(measured[-1]["first_page_ms"] / measured[0]["first_page_ms"], 3),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per store; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--stores", nargs="+", choices=STORES, default=list(STORES))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=20, help="calls timed; the best counts")
    parser.add_argument("--batch", type=int, default=10_000, help="inserts per unit of work")
    args = parser.parse_args(argv)
    if args.sizes != sorted(set(args.sizes)) or args.sizes[0] < 100:
        parser.error("--sizes must be increasing, from at least 100")
    if min(args.repeat, args.batch) < 1:
        parser.error("--repeat and --batch must be at least 1")
    try:
        for kind in args.stores:
            print(json.dumps(run_store(kind, args.sizes, args.repeat, args.batch)), flush=True)
    except Exception as error:  # a failed run, an unreachable server: the figures are invalid
        print(f"lists.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
