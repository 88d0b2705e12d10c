"""The ``slotwise`` command line: API tokens in a shared SQL database (decision 39)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from slotwise import NotAuthenticated, Scheduler
from slotwise.cli import main
from slotwise.storage.sql import SQLStore


@pytest.fixture
def company(tmp_path: Path) -> tuple[str, str, list[str]]:
    """A SQLite database with one company and two locations: (url, company id, location ids)."""
    url = f"sqlite:///{tmp_path / 'slotwise.db'}"
    store = SQLStore(url)
    scheduler = Scheduler(store)
    created = scheduler.create_company(name="Acme", timezone="UTC")
    ws = scheduler.for_company(created.id)
    locations = [ws.locations.create(name="One").id, ws.locations.create(name="Two").id]
    store.close()
    return url, created.id, locations


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(list(argv), out=out)
    return status, out.getvalue()


def _token_of(output: str) -> str:
    return next(line.split()[-1] for line in output.splitlines() if line.startswith("token:"))


class TestTokens:
    def test_create_prints_the_token_once_and_it_authenticates(
        self, company: tuple[str, str, list[str]]
    ):
        """create prints the secret; the database authenticates it as the limited principal."""
        url, company_id, locations = company

        status, output = _run(
            "tokens", "create", "--db", url, "--company", company_id,
            "--location", locations[0], "--label", "desk one", "--days", "30",
        )  # fmt: skip
        token = _token_of(output)
        store = SQLStore(url)
        try:
            principal = Scheduler(store).tokens.authenticate(token)
        finally:
            store.close()

        assert 0 == status
        assert (company_id, frozenset({locations[0]}), "desk one") == (
            principal.company_id,
            principal.location_ids,
            principal.user,
        )

    def test_list_shows_tokens_without_their_secret(self, company: tuple[str, str, list[str]]):
        """list prints one row per token (id, label, locations, dates), never the token."""
        url, company_id, _ = company
        _, output = _run("tokens", "create", "--db", url, "--company", company_id, "--label", "a")
        token = _token_of(output)

        status, listing = _run("tokens", "list", "--db", url, "--company", company_id)

        rows = listing.splitlines()
        assert 0 == status
        assert ["id", "label", "locations", "created", "expires", "revoked"] == rows[0].split("\t")
        assert ["a", "*", "never", "-"] == [rows[1].split("\t")[i] for i in (1, 2, 4, 5)]
        assert token not in listing

    def test_revoke_stops_the_token(self, company: tuple[str, str, list[str]]):
        """After revoke, the token no longer authenticates."""
        url, company_id, _ = company
        _, output = _run("tokens", "create", "--db", url, "--company", company_id, "--label", "a")
        token_id = output.splitlines()[0].split()[-1]

        status, _ = _run("tokens", "revoke", "--db", url, token_id)
        store = SQLStore(url)
        try:
            with pytest.raises(NotAuthenticated):
                Scheduler(store).tokens.authenticate(_token_of(output))
        finally:
            store.close()

        assert 0 == status

    def test_refusals_print_an_error_and_exit_2(
        self, company: tuple[str, str, list[str]], capsys: pytest.CaptureFixture[str]
    ):
        """An unknown company is a slotwise error on standard error, exit status 2."""
        url, _, _ = company

        status, _ = _run("tokens", "create", "--db", url, "--company", "nope", "--label", "a")

        assert 2 == status
        assert capsys.readouterr().err.startswith("slotwise: error: Company 'nope'")

    def test_database_is_required(self, monkeypatch: pytest.MonkeyPatch):
        """Without --db or SLOTWISE_DB the command stops with a message."""
        monkeypatch.delenv("SLOTWISE_DB", raising=False)

        with pytest.raises(SystemExit, match="--db"):
            _run("tokens", "list", "--company", "x")


def test_python_m_slotwise_runs_the_command_line():
    """``python -m slotwise --version`` prints the installed version."""
    import slotwise

    run = subprocess.run(
        [sys.executable, "-m", "slotwise", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )

    assert (0, f"slotwise {slotwise.__version__}") == (run.returncode, run.stdout.strip())
