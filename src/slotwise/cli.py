"""
The ``slotwise`` command line (also ``python -m slotwise``)::

    slotwise serve  [--db URL] [--pool-mode session|transaction] [--schema NAME]
                    [--host 127.0.0.1] [--port 8000] [--workers N] [--threads N]
                    [--log-level info] [--log-format text|json]
                    [--with-worker] [--allow-local-webhooks] [--no-create]
                    [--replica URL ...] [--max-lag SECONDS] [--replica-retry SECONDS]
    slotwise worker [--db URL] [--pool-mode MODE] [--schema NAME] [--concurrency N] [--batch N]
                    [--lease SECONDS] [--allow-local-webhooks] [--no-create]
    slotwise schema status  --db URL [--schema NAME]
    slotwise schema upgrade --db URL [--schema NAME]
    slotwise demo   [--db URL] [--pool-mode MODE] [--schema NAME]
    slotwise companies create --db URL [--schema NAME] --name NAME --timezone ZONE
    slotwise tokens create --db URL [--schema NAME] --company ID [--location ID ...]
                           --label TEXT [--days N]
    slotwise tokens list   --db URL [--schema NAME] --company ID
    slotwise tokens revoke --db URL [--schema NAME] TOKEN_ID

``serve`` runs the HTTP interface (the ``http`` extra) with uvicorn on a SQL database, by default
the SQLite file ``./slotwise.db``; like ``worker`` it creates or upgrades the tables on start
unless ``--no-create``. ``schema status`` prints this slotwise's schema version beside the
tables' (exit status 1 when it cannot run on them); ``schema upgrade`` creates or upgrades the
tables (``docs/sql.md``, "Schema version and upgrades"). ``demo`` creates a small business (Acme
Spa) and prints its ids and a token: into ``--db`` to serve it, or in memory to print a week of
its availability. ``companies create`` creates a company, as ``POST /setup/v1/companies`` does,
and prints its id alone, so a deployment's first company (and then its first token) needs no
token and no Python.

``--db`` takes a SQLAlchemy URL (``sqlite:///slotwise.db``, ``postgresql+psycopg://...``,
``mysql+pymysql://...``; the ``sql`` extra and a driver must be installed); ``--pool-mode
transaction`` runs it behind PgBouncer in transaction pooling mode (``docs/sql.md``); ``serve
--replica URL`` (repeatable) adds a read replica of the database (PostgreSQL or MariaDB) for the
reads that tolerate lag, with ``--max-lag`` and ``--replica-retry`` (``docs/sql.md``, "Read
replicas"); ``--schema`` names the PostgreSQL schema or MariaDB database of the tables when it is
not the URL's (every command that opens the tables has it). Every option of ``serve`` and ``worker``, and ``--db``, ``--pool-mode`` and
``--schema`` everywhere, may be set in the environment instead (``SLOTWISE_DB``,
``SLOTWISE_PORT``, ``SLOTWISE_CREATE=0``, ``SLOTWISE_REPLICAS`` with URLs separated by
spaces...): the command line beats the environment, which beats the default
(``slotwise._settings``). A token is
printed once, when it is created: the database keeps only its SHA-256. A refused command prints
``slotwise: error: ...`` and exits with 2.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, Literal, NoReturn, TextIO

from slotwise._cli_parser import DB_VARIABLE
from slotwise._cli_parser import build_parser as _parser
from slotwise._settings import resolve, variable
from slotwise._version import VERSION
from slotwise.errors import MissingDependency, OutOfRange, SlotwiseError
from slotwise.model import ApiToken, Principal, RoundRobin
from slotwise.scheduler import Scheduler

__all__ = ["main"]


def _scheduler(
    url: str | None,
    *,
    schema: str | None = None,
    pool_mode: str = "session",
    create: bool = True,
    **replicas: Any,
) -> Scheduler:
    """The scheduler on *url*; *replicas* are ``SQLStore``'s replica options that are set."""
    if not url:
        _no_database()
    from slotwise.storage.sql import SQLStore

    mode: Literal["session", "transaction"] = (
        "transaction" if pool_mode == "transaction" else "session"
    )
    chosen = {key: value for key, value in replicas.items() if value is not None}
    return Scheduler(SQLStore(url, schema=schema or None, pool_mode=mode, create=create, **chosen))


def _no_database() -> NoReturn:
    # Status 2, as every refusal: `schema status` exits 1 only when it cannot run on the tables.
    print(f"slotwise: error: give --db URL or set ${DB_VARIABLE}", file=sys.stderr)
    raise SystemExit(2)


def _row(token: ApiToken) -> str:
    locations = ",".join(sorted(token.location_ids)) if token.location_ids else "*"
    expires = token.expires_at.isoformat() if token.expires_at else "never"
    revoked = token.revoked_at.isoformat() if token.revoked_at else "-"
    return "\t".join(
        (token.id, token.label, locations, token.created_at.isoformat(), expires, revoked)
    )


def _serve(arguments: argparse.Namespace, out: TextIO) -> None:
    try:
        import uvicorn

        from slotwise.http import configure_logging
        from slotwise.http._logs import uvicorn_log_config
    except ImportError:
        raise MissingDependency(feature="slotwise serve", extra="http") from None
    if arguments.threads is not None and arguments.threads < 1:
        raise OutOfRange(field="threads", allowed="at least 1", requested=arguments.threads)
    # Workers are separate processes: they build their app from the environment, which gets
    # the settings as resolved here (the command line over the environment over the defaults).
    os.environ[DB_VARIABLE] = arguments.db
    os.environ[variable("--pool-mode")] = arguments.pool_mode
    os.environ[variable("--schema")] = arguments.schema or ""  # "": the URL's
    os.environ[variable("--log-level")] = arguments.log_level
    os.environ[variable("--log-format")] = arguments.log_format
    if arguments.threads is not None:
        os.environ[variable("--threads")] = str(arguments.threads)
    os.environ[variable("--with-worker")] = "1" if arguments.with_worker else "0"
    os.environ[variable("--allow-local-webhooks")] = "1" if arguments.allow_local_webhooks else "0"
    if arguments.max_body_size is not None:
        os.environ[variable("--max-body-size")] = str(arguments.max_body_size)
    os.environ[variable("--create")] = "1" if arguments.create else "0"
    replicas = {
        "replicas": arguments.replicas or (),
        "max_lag": arguments.max_lag,
        "replica_retry": arguments.replica_retry,
    }
    os.environ["SLOTWISE_REPLICAS"] = " ".join(replicas["replicas"])
    for option in ("--max-lag", "--replica-retry"):
        value = getattr(arguments, option[2:].replace("-", "_"))
        os.environ[variable(option)] = "" if value is None else repr(value)  # "": the default
    # fail fast (a replica of another database is refused), schema ready
    _scheduler(  # type: ignore[attr-defined]
        arguments.db,
        schema=arguments.schema,
        pool_mode=arguments.pool_mode,
        create=arguments.create,
        **replicas,
    ).store.close()
    configure_logging(arguments.log_level, format=arguments.log_format)
    shown = _shown_url(arguments.db) + _in_schema(arguments.schema)
    if replicas["replicas"]:
        shown += " with replicas " + ", ".join(map(_shown_url, replicas["replicas"]))
    print(f"slotwise {VERSION} serving {shown}", file=out)
    print(f"  http://{arguments.host}:{arguments.port}/docs", file=out, flush=True)
    # uvicorn's own records (startup, shutdown): its text lines, or JSON like slotwise's.
    log_config = uvicorn_log_config(arguments.log_level, arguments.log_format)
    logs: dict[str, Any] = {} if log_config is None else {"log_config": log_config}
    # uvicorn shuts down gracefully on SIGTERM or SIGINT (requests in flight finish), then raises
    # the signal again to end the process by it; handled here, the process exits 0 instead, as
    # `slotwise worker` does: a requested stop is not a failure (docs/deploy.md).
    if threading.current_thread() is threading.main_thread():  # where signals can be handled
        for stop in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop, _exit_cleanly)
    uvicorn.run(
        "slotwise.http:app_from_environment",
        factory=True,
        host=arguments.host,
        port=arguments.port,
        workers=arguments.workers,
        log_level=arguments.log_level,
        access_log=False,  # slotwise logs each request with its request id
        **logs,
    )


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _worker(arguments: argparse.Namespace, out: TextIO) -> None:
    try:
        from slotwise.http import configure_logging
        from slotwise.webhooks.sender import start_workers
    except ImportError:
        raise MissingDependency(feature="slotwise worker", extra="http") from None
    import socket

    if arguments.deprecated_allow_local:
        print(
            "slotwise: warning: --allow-local is deprecated; use --allow-local-webhooks",
            file=sys.stderr,
        )
    allow_local = arguments.allow_local_webhooks or arguments.deprecated_allow_local
    configure_logging(arguments.log_level)
    scheduler = _scheduler(
        arguments.db,
        schema=arguments.schema,
        pool_mode=arguments.pool_mode,
        create=arguments.create,
    )
    stop = threading.Event()

    def finish(signum: int, frame: object) -> None:
        stop.set()  # rounds in flight finish their sends; unsent claims are released

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    print(
        f"slotwise {VERSION} delivering webhooks from {_shown_url(arguments.db)}"
        f"{_in_schema(arguments.schema)}"
        f" with {arguments.concurrency} thread(s)",
        file=out,
        flush=True,
    )
    threads = start_workers(
        scheduler,
        concurrency=arguments.concurrency,
        stop=stop,
        name=f"{socket.gethostname()}:{os.getpid()}",
        allow_local=allow_local,
        batch=arguments.batch,
        lease=timedelta(seconds=arguments.lease),
    )
    while any(thread.is_alive() for thread in threads):
        for thread in threads:
            thread.join(timeout=0.5)
    scheduler.store.close()  # type: ignore[attr-defined]
    print("slotwise worker stopped", file=out, flush=True)


def _shown_url(url: str) -> str:
    """Return *url* without a password."""
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


def _in_schema(schema: str | None) -> str:
    """Return the words naming *schema* after a URL (none for the URL's default)."""
    return f" (schema {schema})" if schema else ""


def _demo(arguments: argparse.Namespace, out: TextIO) -> None:
    from datetime import timedelta

    from slotwise.demo import seed

    if arguments.schema and not arguments.db:
        # In memory there are no tables: a schema given without a database names a mistake.
        print("slotwise: error: --schema needs --db URL (or $SLOTWISE_DB)", file=sys.stderr)
        raise SystemExit(2)
    scheduler = (
        _scheduler(arguments.db, schema=arguments.schema, pool_mode=arguments.pool_mode)
        if arguments.db
        else Scheduler()
    )
    business = seed(scheduler)
    print(f"company:  {business.company_id}", file=out)
    print(f"location: {business.location_id}", file=out)
    print(f"massage:  {business.massage_id}", file=out)
    print(f"facial:   {business.facial_id}", file=out)
    print(f"ana:      {business.ana_id}", file=out)
    print(f"ben:      {business.ben_id}", file=out)
    print(f"token:    {business.token}", file=out)
    if arguments.db:
        where = _in_schema(arguments.schema)
        print(f"created in {_shown_url(arguments.db)}{where}; serve it with:", file=out)
        schema = f" --schema {arguments.schema}" if arguments.schema else ""
        print(f"  slotwise serve --db {arguments.db}{schema}", file=out)
        return
    today = scheduler.clock.now().date()
    workspace = scheduler.for_company(business.company_id)
    week = workspace.availability.times(
        business.massage_id, today, today + timedelta(days=6), round_robin=RoundRobin.NONE
    )
    names = {business.ana_id: "Ana", business.ben_id: "Ben"}
    print(f"{week.service_name}, first available {week.first_available_date}:", file=out)
    for slot in week.available_times[:12]:
        print(f"  {slot.start.isoformat()}  {names.get(slot.resource_id or '', '?')}", file=out)


def _tokens(arguments: argparse.Namespace, out: TextIO) -> None:
    # A token needs a company, so the tables must exist: a mistyped --db is refused rather than
    # answered from new, empty tables (and a token command never upgrades tables either).
    with _existing_tables(arguments) as scheduler:
        _run_tokens(scheduler, arguments, out)


def _companies(arguments: argparse.Namespace, out: TextIO) -> None:
    # The tables must exist, as for the token commands: a company created in new tables of a
    # mistyped --db would be lost to the served database (`slotwise schema upgrade` makes them).
    with _existing_tables(arguments) as scheduler:
        company = scheduler.create_company(name=arguments.name, timezone=arguments.timezone)
    print(company.id, file=out)  # alone: CO=$(slotwise companies create ...)


@contextmanager
def _existing_tables(arguments: argparse.Namespace) -> Iterator[Scheduler]:
    """The scheduler on ``--db``'s tables, which must exist (never created or upgraded)."""
    scheduler = _scheduler(
        arguments.db, schema=arguments.schema, pool_mode=arguments.pool_mode, create=False
    )
    try:
        yield scheduler
    finally:
        close = getattr(scheduler.store, "close", None)
        if close is not None:
            close()


_STATES = {
    "missing": "missing (create them: slotwise schema upgrade)",
    "older": "older (upgrade them: slotwise schema upgrade; upgraded, they run slotwise of "
    "schema version {upgraded} or later)",
    "current": "current",
    "compatible": "compatible (newer tables this slotwise runs on)",
    "incompatible": "incompatible (upgrade slotwise to schema version {since} or later)",
}


def _schema(arguments: argparse.Namespace, out: TextIO) -> int:
    if not arguments.db:
        _no_database()
    from slotwise.storage.sql import SQLStore, schema_status

    status = schema_status(arguments.db, schema=arguments.schema)
    if arguments.action == "status":
        state = _STATES[status.state].format(
            upgraded=status.upgraded_compatible_since, since=status.compatible_since
        )
        print(f"code:             {status.code}", file=out)
        print(f"tables:           {status.tables or 'none'}", file=out)
        print(f"compatible since: {status.compatible_since or '-'}", file=out)
        print(f"state:            {state}", file=out)
        return 0 if status.runs else 1
    mode: Literal["session", "transaction"] = (
        "transaction" if arguments.pool_mode == "transaction" else "session"
    )
    store = SQLStore(arguments.db, schema=arguments.schema, pool_mode=mode)
    try:
        after = store.check()
    finally:
        store.close()
    versions = f"schema version {after.tables}, compatible since {after.compatible_since}"
    if status.tables is None:
        print(f"created the tables at {versions}", file=out)
    elif status.tables < after.code:
        print(f"upgraded the tables from schema version {status.tables} to {versions}", file=out)
    else:
        print(f"nothing to do: the tables are at {versions}", file=out)
    return 0


def _run_tokens(scheduler: Scheduler, arguments: argparse.Namespace, out: TextIO) -> None:
    tokens = scheduler.tokens
    if arguments.action == "create":
        expires = None
        if arguments.days is not None:
            expires = scheduler.clock.now() + timedelta(days=arguments.days)
        locations = frozenset(arguments.locations) if arguments.locations else None
        issued = tokens.create(
            Principal(company_id=arguments.company, location_ids=locations),
            label=arguments.label,
            expires_at=expires,
        )
        print(f"token id: {issued.record.id}", file=out)
        print(f"token:    {issued.token}", file=out)
        print("The token is shown this once; the database keeps only its hash.", file=out)
    elif arguments.action == "list":
        listed = tokens.list(arguments.company)  # an unknown company prints nothing at all
        print("id\tlabel\tlocations\tcreated\texpires\trevoked", file=out)
        for token in listed:
            print(_row(token), file=out)
    else:
        revoked = tokens.revoke(arguments.token_id)
        print(f"revoked {revoked.id} at {revoked.revoked_at}", file=out)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """
    Run the command line with *argv* (default: ``sys.argv[1:]``); return the exit status.

    A slotwise error (an unknown company, a database at another schema version) is printed as
    ``slotwise: error: <message>`` on standard error, with exit status 2.
    """
    arguments = _parser().parse_args(argv)
    commands: dict[str, Callable[[argparse.Namespace, TextIO], int | None]] = {
        "serve": _serve,
        "worker": _worker,
        "schema": _schema,
        "demo": _demo,
        "companies": _companies,
        "tokens": _tokens,
    }
    command = commands[arguments.command]
    try:
        resolve(arguments)
        status = command(arguments, out or sys.stdout)
    except SlotwiseError as error:
        print(f"slotwise: error: {error}", file=sys.stderr)
        return 2
    return status or 0
