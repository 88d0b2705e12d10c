"""
The HTTP service under load: requests per second and latency, against the direct Python call.

(Not ``http.py``: a script of that name would shadow the standard library's ``http`` package.)

Usage::

    python benchmarks/http_service.py [--stores sqlite postgresql] [--seconds 10] [--connections 16]
                              [--load wrk|python] [--endpoints availability services ...]

For each store a fresh database is made (a SQLite file in a temporary directory; a PostgreSQL
database ``slotwise_http_bench_<pid>`` at ``SLOTWISE_TEST_POSTGRES_URL``'s server, so that runs side
by side never share one, dropped first),
a business is set up through the public API with the system clock (a location open around the
clock with a 30-minute service, 20 resources and a 120-day book-ahead for bookings; a second
location open 09:00-17:00 on weekdays with a 60-minute massage, 19 more services and one
resource for availability), and ``slotwise serve`` is started on 127.0.0.1 with one worker. A
load generator in another process then drives, each for ``--seconds``:

``availability``  ``GET /consumer/v1/availability/{massage}/{today}/{today+6}?resourceId=...``:
                  one service, one resource, one week.
``services``      ``GET /setup/v1/services?locationId={uptown}``: the list of the 20 services.
``hold_book``     ``POST /consumer/v1/appointments`` (a hold) then ``PUT .../{id}/book``: each
                  pair takes the next free half hour of the next resource; one connection,
                  since each book needs its hold's id. Figures count pairs.
``list``          ``GET /consumer/v1/appointments?locationId=...&limit=20`` over every booking
                  made by then.

The load generator is ``wrk`` (Debian's package) when it is installed, else a Python client
(threads of ``httpx.Client``), which is itself slower: figures name the generator used.

Each figure is one JSON line: ``{"figure": "http", "store", "endpoint", "load",
"connections", "seconds", "requests", "per_second", "p50_ms", "p99_ms", "errors",
"direct_ms", "direct_median_ms", "served_ms", "time_ratio", "throughput_ratio",
"time_ratio_median", "http_share"}``. ``direct_ms`` and ``direct_median_ms`` are the same
operation called in this process on the same database through the same public API
(``scheduler.for_token(token)``, the configuration and token caches on as in the server): the
best and the median of about a second of calls. ``served_ms`` = 1000 / per_second is the
server's time per request (one worker, always busy: it means that only with ``--workers 1``).
``time_ratio`` = served_ms / direct_ms (issue 23: the list of services, target at most 3) and
``throughput_ratio`` = its inverse, served requests per second over the direct call's best
rate on one thread (issue 23: availability at 16 connections, target at least 0.75): against
the best call, as issue 23 measured; ``time_ratio_median`` is the same against the median call,
which a busy machine's interruptions move less than the served figure. ``http_share`` =
1 - direct_ms / served_ms, the part of a request's time the HTTP layer adds.

On a shared machine the wall-clock figures follow the other processes' load; the CPU figures
do not: ``served_cpu_ms`` is the CPU time (user + system, from ``/proc``) the server process
spent per request during the run, ``direct_cpu_ms`` the calling thread's CPU time per direct
call (the mean), and ``cpu_ratio`` = served_cpu_ms / direct_cpu_ms: the time ratio a core of
its own would show (the database's own CPU is in neither). Meaningful with ``--workers 1``.
Speed is never asserted (STYLE rule 35).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import httpx

from slotwise import (
    BookingWindow,
    BusinessHours,
    LocationSettings,
    Principal,
    Scheduler,
)
from slotwise.storage.sql import SQLStore

RESOURCES = 20
SERVICES = 20
"""Services listed at the availability location (the massage and 19 more)."""
SLOT = timedelta(minutes=30)
POSTGRES = os.environ.get(
    "SLOTWISE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@attrs.frozen
class Business:
    """What the load needs: ids, the token and the first bookable half hour."""

    url: str
    token: str
    location_id: str
    service_id: str
    resource_ids: tuple[str, ...]
    massage_id: str
    ana_id: str
    uptown_id: str
    first_slot: datetime
    today: str
    week_end: str

    def slot(self, number: int) -> tuple[str, datetime]:
        """Return (resource id, start) of booking *number*: resources first, then time."""
        start = self.first_slot + (number // RESOURCES) * SLOT
        return self.resource_ids[number % RESOURCES], start


def seed(url: str) -> Business:
    """Set up the business in the database at *url*; return its ids and a token."""
    scheduler = Scheduler(SQLStore(url))
    company = scheduler.create_company(name="Bench", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    always = ws.locations.create(
        name="Always open",
        business_hours=BusinessHours.always(),
        settings=LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=120)
        ),
    )
    service = ws.services.create(
        name="Cut", duration=30, booking_interval=30, reason="bench", location_id=always.id
    )
    resources = tuple(
        ws.resources.create(name=f"R{n}", reason="bench", location_id=always.id).id
        for n in range(RESOURCES)
    )
    uptown = ws.locations.create(name="Uptown")
    massage = ws.services.create(name="Massage", duration=60, reason="bench", location_id=uptown.id)
    ana = ws.resources.create(name="Ana", reason="bench", location_id=uptown.id)
    for number in range(1, SERVICES):
        ws.services.create(
            name=f"Treatment {number}", duration=30, reason="bench", location_id=uptown.id
        )
    now = scheduler.clock.now()
    today = now.astimezone(ZoneInfo("America/New_York")).date()
    token = scheduler.tokens.create(Principal(company_id=company.id), label="bench").token
    scheduler.store.close()  # type: ignore[attr-defined]
    first = (now + timedelta(days=1)).replace(hour=5, minute=0, second=0, microsecond=0)
    return Business(
        url=url,
        token=token,
        location_id=always.id,
        service_id=service.id,
        resource_ids=resources,
        massage_id=massage.id,
        ana_id=ana.id,
        uptown_id=uptown.id,
        first_slot=first,
        today=str(today),
        week_end=str(today + timedelta(days=6)),
    )


# -- databases --------------------------------------------------------------------------------


@contextlib.contextmanager
def database(kind: str) -> Iterator[str]:
    """Yield the URL of a fresh database of *kind*, dropped afterwards."""
    if kind == "sqlite":
        directory = tempfile.mkdtemp(prefix="slotwise-http-bench-")
        try:
            yield f"sqlite:///{directory}/bench.db"
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return
    import sqlalchemy

    admin = sqlalchemy.create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
    name = f"slotwise_http_bench_{os.getpid()}"  # concurrent runs must not drop each other's
    with admin.connect() as connection:
        connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    try:
        yield POSTGRES.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.dispose()


# -- the server -------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@attrs.frozen
class Served:
    """A running ``slotwise serve``: its base URL and its process id."""

    base: str
    pid: int


def _cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system) process *pid* has used so far (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def server(url: str, workers: int = 1) -> Iterator[Served]:
    """Run ``slotwise serve`` on *url*'s database; yield it; stop it afterwards."""
    port = _free_port()
    command = [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", str(port)]
    command += ["--workers", str(workers)]
    process = subprocess.Popen(
        [*command, "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"slotwise serve did not start: {process.stderr.read()!r}")  # type: ignore[union-attr]
            time.sleep(0.1)
        yield Served(base=base, pid=process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)


# -- load -------------------------------------------------------------------------------------


@attrs.frozen
class Load:
    """What a load generator measured."""

    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _wrk(base: str, path: str, business: Business, seconds: float, connections: int,
         script: str | None = None) -> Load:  # fmt: skip
    command = [
        "wrk", f"-t{min(connections, 2)}", f"-c{connections}", f"-d{max(1, round(seconds))}s",
        "--latency", "-H", f"Authorization: Bearer {business.token}",
    ]  # fmt: skip
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
        lua.write(script or "")
    if script:
        command += ["-s", lua.name]
    try:
        output = subprocess.run(
            [*command, base + path], capture_output=True, text=True, check=True
        ).stdout
    finally:
        os.unlink(lua.name)
    requests = int(re.search(r"(\d+) requests in ([\d.]+)(\w+)", output).group(1))  # type: ignore[union-attr]
    latency = dict(re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", output, re.M))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return Load(
        requests=requests,
        seconds=seconds,
        p50_ms=_ms(latency["50"]),
        p99_ms=_ms(latency["99"]),
        errors=int(errors.group(1)) if errors else 0,
    )


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
    return float(value) * _UNITS[unit]


def _python_load(base: str, business: Business, seconds: float, connections: int,
                 send: Any) -> Load:  # fmt: skip
    """
    Drive *send(client, number)* from *connections* threads for *seconds*, each sending at
    least one request (a loaded machine may take the whole run to open a client).
    """
    latencies: list[float] = []
    errors = [0]
    counter = iter(range(10**9))
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        headers = {"Authorization": f"Bearer {business.token}"}
        with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
            while True:
                with lock:
                    number = next(counter)
                started = time.perf_counter()
                ok = send(client, number)
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    latencies.append(elapsed)
                    errors[0] += 0 if ok else 1
                if time.monotonic() >= stop:
                    break

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies.sort()
    return Load(
        requests=len(latencies),
        seconds=seconds,
        p50_ms=latencies[len(latencies) // 2] if latencies else 0.0,
        p99_ms=latencies[int(len(latencies) * 0.99)] if latencies else 0.0,
        errors=errors[0],
    )


_HOLD_BOOK_LUA = """
local resources = {%(resources)s}
local first = %(first)d
local offset = %(offset)d
local headers = {["Content-Type"] = "application/json",
                 ["Authorization"] = "Bearer %(token)s"}
local counter = -1
local pending = nil
local function iso(t) return os.date("!%%Y-%%m-%%dT%%H:%%M:%%SZ", t) end
request = function()
  if pending then
    local id = pending
    pending = nil
    return wrk.format("PUT", "/consumer/v1/appointments/" .. id .. "/book", headers,
                      '{"name": "Bench Customer", "email": "bench@example.com"}')
  end
  counter = counter + 1
  local number = offset + counter
  local start = first + math.floor(number / #resources) * 1800
  local body = string.format(
    '{"serviceId": "%(service)s", "locationId": "%(location)s", "resourceId": "%%s", ' ..
    '"startDateTime": "%%s", "endDateTime": "%%s"}',
    resources[(number %% #resources) + 1], iso(start), iso(start + 1800))
  return wrk.format("POST", "/consumer/v1/appointments", headers, body)
end
response = function(status, headers, body)
  if status == 201 then pending = body:match('"id":"([^"]+)"') end
end
"""


# -- the figures ------------------------------------------------------------------------------


@attrs.frozen
class Direct:
    """The direct call's times: the best and the median call of about a second of calls."""

    best_ms: float
    median_ms: float
    cpu_ms: float
    """The mean CPU time of the calling thread per call."""


def _timed(call: Any, seconds: float = 1.0, least: int = 30) -> Direct:
    """Call *call* (warmed once) for about *seconds* and at least *least* times."""
    call()
    times: list[float] = []
    stop = time.perf_counter() + seconds
    cpu = time.thread_time()
    while len(times) < least or time.perf_counter() < stop:
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    cpu_ms = (time.thread_time() - cpu) * 1000 / len(times)
    times.sort()
    return Direct(best_ms=times[0], median_ms=times[len(times) // 2], cpu_ms=cpu_ms)


ENDPOINTS = ("availability", "services", "hold_book", "list")


def measure(
    kind: str,
    seconds: float,
    connections: int,
    load: str,
    workers: int = 1,
    endpoints: Sequence[str] = ENDPOINTS,
) -> list[dict[str, Any]]:
    """Return the figures of store *kind*, one per endpoint of *endpoints*."""
    figures: list[dict[str, Any]] = []
    with database(kind) as url:
        business = seed(url)
        direct = _direct(business)
        offset = direct.pop("offset")
        with server(url, workers) as served:
            base = served.base
            availability_path = (
                f"/consumer/v1/availability/{business.massage_id}/{business.today}/"
                f"{business.week_end}?resourceId={business.ana_id}&locationId={business.uptown_id}"
            )
            services_path = f"/setup/v1/services?locationId={business.uptown_id}"
            list_path = f"/consumer/v1/appointments?locationId={business.location_id}&limit=20"
            runs = {
                "availability": lambda: _get(
                    base, availability_path, business, seconds, connections, load
                ),
                "services": lambda: _get(base, services_path, business, seconds, connections, load),
                "hold_book": lambda: _hold_book(base, business, seconds, offset, load),
                "list": lambda: _get(base, list_path, business, seconds, connections, load),
            }
            measured_runs: dict[str, tuple[Load, float]] = {}
            for endpoint in endpoints:
                cpu = _cpu_seconds(served.pid)
                measured = runs[endpoint]()
                measured_runs[endpoint] = (measured, _cpu_seconds(served.pid) - cpu)
        # The list reads every booking made by the load: time the direct call on as many.
        direct["list"] = _direct_list(business)
        for endpoint, (measured, cpu) in measured_runs.items():
            per_second = measured.requests / measured.seconds
            answered = measured.requests / 2 if endpoint == "hold_book" and load == "wrk" else 0
            served_cpu_ms = 1000 * cpu / max(answered or measured.requests, 1)
            if endpoint == "hold_book" and load == "wrk":
                per_second /= 2  # wrk counts the hold and the book: report pairs
            served_ms = 1000 / per_second if per_second else float("inf")
            timed: Direct = direct[endpoint]
            figures.append(
                {
                    "figure": "http",
                    "store": kind,
                    "endpoint": endpoint,
                    "load": load,
                    "workers": workers,
                    "connections": 1 if endpoint == "hold_book" else connections,
                    "seconds": seconds,
                    "requests": measured.requests,
                    "per_second": round(per_second, 1),
                    "p50_ms": round(measured.p50_ms, 3),
                    "p99_ms": round(measured.p99_ms, 3),
                    "errors": measured.errors,
                    "direct_ms": round(timed.best_ms, 3),
                    "direct_median_ms": round(timed.median_ms, 3),
                    "served_ms": round(served_ms, 3),
                    "time_ratio": round(served_ms / timed.best_ms, 2),
                    "throughput_ratio": round(timed.best_ms / served_ms, 3),
                    "time_ratio_median": round(served_ms / timed.median_ms, 2),
                    "http_share": round(1 - timed.best_ms / served_ms, 3),
                    "served_cpu_ms": round(served_cpu_ms, 3),
                    "direct_cpu_ms": round(timed.cpu_ms, 3),
                    "cpu_ratio": round(served_cpu_ms / timed.cpu_ms, 2),
                }
            )
    return figures


def _get(base: str, path: str, business: Business, seconds: float, connections: int,
         load: str) -> Load:  # fmt: skip
    if load == "wrk":
        return _wrk(base, path, business, seconds, connections)

    def send(client: httpx.Client, _: int) -> bool:
        return client.get(path).status_code == 200

    return _python_load(base, business, seconds, connections, send)


def _hold_book(base: str, business: Business, seconds: float, offset: int, load: str) -> Load:
    if load == "wrk":
        script = _HOLD_BOOK_LUA % {
            "resources": ", ".join(f'"{r}"' for r in business.resource_ids),
            "first": int(business.first_slot.timestamp()),
            "offset": offset,
            "token": business.token,
            "service": business.service_id,
            "location": business.location_id,
        }
        return _wrk(base, "/", business, seconds, 1, script)

    def send(client: httpx.Client, number: int) -> bool:
        resource, start = business.slot(offset + number)
        held = client.post(
            "/consumer/v1/appointments",
            json={
                "serviceId": business.service_id,
                "locationId": business.location_id,
                "resourceId": resource,
                "startDateTime": start.isoformat(),
                "endDateTime": (start + SLOT).isoformat(),
            },
        )
        if held.status_code != 201:
            return False
        booked = client.put(
            f"/consumer/v1/appointments/{held.json()['id']}/book",
            json={"name": "Bench Customer", "email": "bench@example.com"},
        )
        return booked.status_code == 200

    return _python_load(base, business, seconds, 1, send)


def _direct(business: Business) -> dict[str, Any]:
    """Time each operation called in this process on the same database."""
    scheduler = Scheduler(SQLStore(business.url))
    ws = scheduler.for_token(business.token)
    start, end = business.today, business.week_end
    availability = _timed(
        lambda: ws.availability.times(
            business.massage_id,
            start,
            end,
            resource_id=business.ana_id,
            location_id=business.uptown_id,
        )
    )
    services = _timed(lambda: ws.services.list(location_id=business.uptown_id))
    numbers = iter(range(10**9))

    def pair() -> None:
        resource, when = business.slot(next(numbers))
        held = ws.appointments.create(
            business.service_id,
            when,
            when + SLOT,
            location_id=business.location_id,
            resource_id=resource,
        )
        ws.appointments.book(held.id, name="Bench Customer", email="bench@example.com")

    hold_book = _timed(pair, seconds=0.0, least=40)
    offset = next(numbers)
    scheduler.store.close()  # type: ignore[attr-defined]
    return {
        "availability": availability,
        "services": services,
        "hold_book": hold_book,
        "offset": offset,
    }


def _direct_list(business: Business) -> Direct:
    scheduler = Scheduler(SQLStore(business.url))
    ws = scheduler.for_token(business.token)
    timed = _timed(lambda: ws.appointments.list(location_id=business.location_id, limit=20))
    scheduler.store.close()  # type: ignore[attr-defined]
    return timed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print one JSON line per figure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=1, help="slotwise serve --workers")
    parser.add_argument(
        "--load", choices=["wrk", "python"], default="wrk" if shutil.which("wrk") else "python"
    )
    parser.add_argument("--endpoints", nargs="+", choices=ENDPOINTS, default=list(ENDPOINTS))
    arguments = parser.parse_args(argv)
    for kind in arguments.stores:
        for figure in measure(
            kind,
            arguments.seconds,
            arguments.connections,
            arguments.load,
            arguments.workers,
            arguments.endpoints,
        ):
            print(json.dumps(figure), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
