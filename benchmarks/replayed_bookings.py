"""
A PostgreSQL booking beside its own round trips replayed on a bare connection: how much of a
booking's time is the database's and how much the client's.

Usage::

    python benchmarks/replayed_bookings.py [--bookings N]

Books N bookings with ``sql_stores.py``'s business and process (one process, one
``SQLStore``, a warm-up booking first), recording the SQL text of every round trip each booking
sends (``slotwise.storage.sql._riding.send_all``: the simple-protocol queries, values bound on
the client). Then sets the same business up again in a new schema and replays those texts in
order on one bare psycopg connection in autocommit (the texts hold their own ``BEGIN`` and
``COMMIT``): the same statements, round trips, locks, rows and commits, with no slotwise,
SQLAlchemy or binding work on the client. Prints one JSON line::

    {"figure": "replayed_bookings", "bookings", "round_trips", "store_ms", "store_cpu_ms",
     "store_per_second", "bare_ms", "bare_cpu_ms", "bare_per_second"}

``*_ms`` is wall time and ``*_cpu_ms`` this process's CPU time per booking. ``bare_per_second``
is what the booking rate could reach if the client cost nothing: divided by ``pgbench``'s rate
(``scale.py`` does), the floor of issue 23's "PostgreSQL bookings / pgbench" row on this machine.
Exits with status 1 when a booking or a replayed statement fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sql_stores


@contextmanager
def _recording_round_trips(trips: list[list[str]]) -> Iterator[None]:
    """
    Inside: the store's ``send_all`` also appends each query it sends to ``trips[-1]`` (in every
    store module that imported it); put back on the way out.
    """
    from slotwise.storage.sql import _riding

    original = _riding.send_all

    def recording(conn: Any, statements: list[str]) -> list[list[Any] | None]:
        if trips:
            trips[-1].append("; ".join(statements))
        return original(conn, statements)

    patched = [
        module
        for module in list(sys.modules.values())
        if getattr(module, "__name__", "").startswith("slotwise.storage.sql")
        and getattr(module, "send_all", None) is original
    ]
    for module in patched:
        module.send_all = recording  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in patched:
            module.send_all = original  # type: ignore[attr-defined]


def run(bookings: int) -> dict[str, Any]:
    """Book *bookings* through the store, then replay their round trips bare; both timed."""
    import psycopg
    from sqlalchemy import make_url

    trips: list[list[str]] = []
    with (
        _recording_round_trips(trips),
        sql_stores.fresh_target("postgresql") as target,
        sql_stores.opened(target) as store,
    ):
        business = sql_stores.set_up_business(store, bookings)
        ws = sql_stores._workspace(store, business, 0)
        business.warm_up(ws, 0, 1)
        began, cpu = time.perf_counter(), time.process_time()
        for number in range(bookings):
            trips.append([])
            business.book(ws, number, 0, 1)
        store_seconds = time.perf_counter() - began
        store_cpu = time.process_time() - cpu
        recorded_schema = target.schema
    assert recorded_schema is not None
    with sql_stores.fresh_target("postgresql") as target, sql_stores.opened(target) as store:
        business = sql_stores.set_up_business(store, bookings)
        business.warm_up(sql_stores._workspace(store, business, 0), 0, 1)
        assert target.schema is not None
        assert target.url is not None
        texts = [[text.replace(recorded_schema, target.schema) for text in each] for each in trips]
        url = make_url(target.url)
        with psycopg.connect(
            host=url.host,
            port=url.port,
            user=url.username,
            password=url.password,
            dbname=url.database,
            autocommit=True,
        ) as conn:
            cursor = conn.cursor()
            began, cpu = time.perf_counter(), time.process_time()
            for each in texts:
                for text in each:
                    cursor.execute(text.encode())
                    while True:
                        if cursor.description is not None:
                            cursor.fetchall()
                        if not cursor.nextset():
                            break
            bare_seconds = time.perf_counter() - began
            bare_cpu = time.process_time() - cpu
        if sql_stores.booked(store) != bookings + 1:  # the warm-up booking and the replayed
            raise sql_stores.BenchmarkFailed("the replay did not book what the store booked")
    return {
        "figure": "replayed_bookings",
        "bookings": bookings,
        "round_trips": round(sum(map(len, trips)) / bookings, 2),
        "store_ms": round(store_seconds / bookings * 1000, 3),
        "store_cpu_ms": round(store_cpu / bookings * 1000, 3),
        "store_per_second": round(bookings / store_seconds, 1),
        "bare_ms": round(bare_seconds / bookings * 1000, 3),
        "bare_cpu_ms": round(bare_cpu / bookings * 1000, 3),
        "bare_per_second": round(bookings / bare_seconds, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figure as one JSON line; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=1_000, help="bookings timed")
    args = parser.parse_args(argv)
    if args.bookings < 1:
        parser.error("--bookings must be at least 1")
    try:
        print(json.dumps(run(args.bookings)), flush=True)
    except Exception as error:  # an unreachable server, a failed booking or replay
        print(f"replayed_bookings.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
