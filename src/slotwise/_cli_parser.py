"""
The ``slotwise`` command line's parser: every command, its options and their defaults (see
:mod:`slotwise.cli` for what each command does). Options also come from the environment
(``slotwise._settings``).
"""

from __future__ import annotations

import argparse

from slotwise._settings import (
    Repeated,
    batch,
    from_environment,
    port,
    positive,
    positive_seconds,
    seconds,
)
from slotwise._version import VERSION

__all__ = ["DB_VARIABLE", "build_parser"]

DB_VARIABLE = "SLOTWISE_DB"
_DEFAULT_DB = "sqlite:///slotwise.db"
_POOL_MODES = ("session", "transaction")  # slotwise.storage.sql.POOL_MODES, without SQLAlchemy


def _pool_mode(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pool-mode",
        default="session",
        choices=_POOL_MODES,
        help="transaction: PostgreSQL behind PgBouncer in transaction pooling mode",
    )


def _schema(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--schema",
        help="the PostgreSQL schema or MariaDB database of the tables (default: the URL's)",
    )


def _with_db(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give *sub* the options of a command on existing tables: --db, --pool-mode, --schema."""
    sub.add_argument("--db", help="SQLAlchemy database URL")
    _pool_mode(sub)
    _schema(sub)
    return sub


def _create(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--create",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="create missing tables and upgrade older ones on start; --no-create: leave that "
        "to `slotwise schema upgrade`",
    )


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of every ``slotwise`` command, with the environment's defaults."""
    parser = argparse.ArgumentParser(
        prog="slotwise", description="slotwise: appointment scheduling as a library and service."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser("serve", help="serve the HTTP interface (the http extra)")
    serve.add_argument(
        "--db", default=_DEFAULT_DB, help=f"SQLAlchemy database URL (default: {_DEFAULT_DB})"
    )
    _pool_mode(serve)
    _schema(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=port, default=8000, help="port to listen on")
    serve.add_argument("--workers", type=positive, default=1, help="worker processes")
    serve.add_argument(
        "--threads",
        type=int,
        help="operations each process runs at once (default: the store's connection pool, "
        "pool_size + max_overflow, 15)",
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument(
        "--log-format",
        default="text",
        choices=["text", "json"],
        help="text lines, or one JSON object a line (default: text)",
    )
    serve.add_argument(
        "--max-body-size", type=positive, help="largest request body in bytes (default: 1 MiB)"
    )
    serve.add_argument(
        "--with-worker",
        action="store_true",
        help="also deliver webhooks from each server process (one worker thread each)",
    )
    serve.add_argument(
        "--allow-local-webhooks",
        action="store_true",
        help="development only: webhook URLs may be http and loopback receivers",
    )
    _create(serve)
    serve.add_argument(
        "--replica",
        action=Repeated,
        dest="replicas",
        type=_url,
        metavar="URL",
        help="a read replica of --db, for reads that tolerate lag (repeatable)",
    )
    serve.add_argument(
        "--max-lag",
        type=seconds,
        metavar="SECONDS",
        help="how far behind a replica may be to answer a read (default: 5)",
    )
    serve.add_argument(
        "--replica-retry",
        type=seconds,
        metavar="SECONDS",
        help="how long a replica that failed is left alone (default: 5)",
    )
    worker = commands.add_parser("worker", help="deliver webhooks and reminders (http extra)")
    worker.add_argument(
        "--db", default=_DEFAULT_DB, help=f"SQLAlchemy database URL (default: {_DEFAULT_DB})"
    )
    _pool_mode(worker)
    _schema(worker)
    worker.add_argument("--concurrency", type=positive, default=1, help="sending threads")
    worker.add_argument(
        "--batch", type=batch, default=50, help="events claimed per round, 1 to 1000 (default 50)"
    )
    worker.add_argument(
        "--lease", type=positive_seconds, default=60.0, help="seconds a claim holds (default 60)"
    )
    worker.add_argument(
        "--allow-local-webhooks",
        action="store_true",
        help="development only: allow http and loopback receivers",
    )
    worker.add_argument(  # the name before decision 47: kept for scripts, with a warning
        "--allow-local",
        action="store_true",
        dest="deprecated_allow_local",
        help="deprecated alias of --allow-local-webhooks",
    )
    worker.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"]
    )
    _create(worker)
    schema = commands.add_parser("schema", help="show or upgrade the tables' schema version")
    steps = schema.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text in (
        ("status", "print this slotwise's schema version beside the tables'"),
        ("upgrade", "create the tables, or run the steps upgrading them to this slotwise"),
    ):
        _with_db(steps.add_parser(name, help=text))
    demo = commands.add_parser("demo", help="create the demo business (Acme Spa)")
    demo.add_argument(
        "--db", help="SQLAlchemy database URL to create it in (default: in memory, printed)"
    )
    _pool_mode(demo)
    _schema(demo)
    companies = commands.add_parser("companies", help="create a company (no token needed)")
    made = companies.add_subparsers(dest="action", required=True, metavar="ACTION")
    company = _with_db(made.add_parser("create", help="create a company and print its id"))
    company.add_argument("--name", required=True, help="the company's name")
    company.add_argument(
        "--timezone", required=True, help="its IANA time zone, such as Europe/London"
    )
    tokens = commands.add_parser("tokens", help="issue, list and revoke API tokens")
    actions = tokens.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = _with_db(actions.add_parser("create", help="issue a token (printed once)"))
    create.add_argument("--company", required=True, help="the company the token acts for")
    create.add_argument(
        "--location",
        action="append",
        dest="locations",
        metavar="ID",
        help="limit the token to this location (repeatable; default: every location)",
    )
    create.add_argument("--label", required=True, help="who uses the token (recorded as user)")
    create.add_argument(
        "--days", type=_days, help="expire after this many days, at least 1 (default: never)"
    )
    listing = _with_db(actions.add_parser("list", help="list a company's tokens"))
    listing.add_argument("--company", required=True)
    revoke = _with_db(actions.add_parser("revoke", help="revoke a token for good"))
    revoke.add_argument("token_id")
    from_environment(
        parser, commands=("serve", "worker"), everywhere=("--db", "--pool-mode", "--schema")
    )
    return parser


def _url(text: str) -> str:
    """Read a database URL of a repeatable option: whitespace separates them in its variable."""
    if not text or any(character.isspace() for character in text):
        raise argparse.ArgumentTypeError(
            f"must be a URL without spaces (write a space as %20), got {text!r}"
        )
    return text


def _days(text: str) -> int:
    """Read ``--days``: a whole number of days, at least 1 (a token must outlive its creation)."""
    try:
        days = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of days, got {text!r}") from None
    if days < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {days}")
    return days
