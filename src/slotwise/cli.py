"""
The ``slotwise`` command line (also ``python -m slotwise``).

So far it manages the HTTP service's API tokens (decision 39) in a shared SQL database::

    slotwise tokens create --db URL --company ID [--location ID ...] --label TEXT [--days N]
    slotwise tokens list   --db URL --company ID
    slotwise tokens revoke --db URL TOKEN_ID

``--db`` takes a SQLAlchemy URL (``sqlite:///slotwise.db``, ``postgresql+psycopg://...``,
``mysql+pymysql://...``; the ``sql`` extra and a driver must be installed); it defaults to the
environment variable ``SLOTWISE_DB``. A token is printed once, when it is created: the database
keeps only its SHA-256. A refused command prints ``slotwise: error: ...`` and exits with 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import timedelta
from typing import TextIO

from slotwise._version import VERSION
from slotwise.errors import SlotwiseError
from slotwise.model import ApiToken, Principal
from slotwise.scheduler import Scheduler

__all__ = ["main"]

_DB_VARIABLE = "SLOTWISE_DB"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slotwise", description="slotwise: appointment scheduling as a library and service."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    tokens = commands.add_parser("tokens", help="issue, list and revoke API tokens")
    actions = tokens.add_subparsers(dest="action", required=True, metavar="ACTION")

    def with_db(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sub.add_argument(
            "--db",
            default=os.environ.get(_DB_VARIABLE),
            help=f"SQLAlchemy database URL (default: ${_DB_VARIABLE})",
        )
        return sub

    create = with_db(actions.add_parser("create", help="issue a token (printed once)"))
    create.add_argument("--company", required=True, help="the company the token acts for")
    create.add_argument(
        "--location",
        action="append",
        dest="locations",
        metavar="ID",
        help="limit the token to this location (repeatable; default: every location)",
    )
    create.add_argument("--label", required=True, help="who uses the token (recorded as user)")
    create.add_argument("--days", type=int, help="expire after this many days (default: never)")
    listing = with_db(actions.add_parser("list", help="list a company's tokens"))
    listing.add_argument("--company", required=True)
    revoke = with_db(actions.add_parser("revoke", help="revoke a token for good"))
    revoke.add_argument("token_id")
    return parser


def _scheduler(url: str | None) -> Scheduler:
    if not url:
        raise SystemExit(f"slotwise: error: give --db URL or set ${_DB_VARIABLE}")
    from slotwise.storage.sql import SQLStore

    return Scheduler(SQLStore(url))


def _row(token: ApiToken) -> str:
    locations = ",".join(sorted(token.location_ids)) if token.location_ids else "*"
    expires = token.expires_at.isoformat() if token.expires_at else "never"
    revoked = token.revoked_at.isoformat() if token.revoked_at else "-"
    return "\t".join(
        (token.id, token.label, locations, token.created_at.isoformat(), expires, revoked)
    )


def _tokens(arguments: argparse.Namespace, out: TextIO) -> None:
    scheduler = _scheduler(arguments.db)
    try:
        _run_tokens(scheduler, arguments, out)
    finally:
        close = getattr(scheduler.store, "close", None)
        if close is not None:
            close()


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
        print("id\tlabel\tlocations\tcreated\texpires\trevoked", file=out)
        for token in tokens.list(arguments.company):
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
    try:
        _tokens(arguments, out or sys.stdout)
    except SlotwiseError as error:
        print(f"slotwise: error: {error}", file=sys.stderr)
        return 2
    return 0
