"""The ``slotwise`` command line: API tokens in a shared SQL database (decision 39)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

# An extra: the run on the lowest declared versions has only the core installed.
pytest.importorskip("sqlalchemy")

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

    def test_listing_an_unknown_company_is_refused(
        self, company: tuple[str, str, list[str]], capsys: pytest.CaptureFixture[str]
    ):
        """tokens list --company TYPO exits 2 naming the company (it printed an empty list)."""
        url, _, _ = company

        status, output = _run("tokens", "list", "--db", url, "--company", "TYPO")

        assert (2, "") == (status, output)
        assert capsys.readouterr().err.startswith("slotwise: error: Company 'TYPO'")

    @pytest.mark.parametrize("days", ["0", "-3", "soon"])
    def test_days_below_one_is_refused_in_words(
        self, company: tuple[str, str, list[str]], capsys: pytest.CaptureFixture[str], days: str
    ):
        """--days 0 (or less, or not a number) stops with a sentence, no Python repr."""
        url, company_id, _ = company

        with pytest.raises(SystemExit) as stopped:
            _run("tokens", "create", "--db", url, "--company", company_id, "--label", "a",
                 "--days", days)  # fmt: skip
        error = capsys.readouterr().err

        assert 2 == stopped.value.code
        assert "argument --days: must be" in error
        assert "datetime" not in error

    def test_a_database_without_the_tables_is_refused(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ):
        """A mistyped --db is refused, naming the fix, and gets no tables (it used to be given
        empty ones, and ``list`` printed no token)."""
        from sqlalchemy import create_engine, inspect

        url = f"sqlite:///{tmp_path / 'typo.db'}"

        status, output = _run("tokens", "list", "--db", url, "--company", "x")
        engine = create_engine(url)
        try:
            tables = inspect(engine).get_table_names()
        finally:
            engine.dispose()

        assert (2, "", []) == (status, output, tables)
        assert "do not exist; run `slotwise schema upgrade`" in capsys.readouterr().err

    @pytest.mark.parametrize(
        "argv",
        [
            ("tokens", "list", "--company", "x"),
            ("schema", "status"),
            ("schema", "upgrade"),
            ("companies", "create", "--name", "Acme", "--timezone", "UTC"),
        ],
    )
    def test_database_is_required(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: tuple[str]
    ):
        """Without --db or SLOTWISE_DB the command stops with a message and status 2 (not 1:
        ``schema status`` exits 1 only when this slotwise cannot run on the tables)."""
        monkeypatch.delenv("SLOTWISE_DB", raising=False)

        with pytest.raises(SystemExit) as stopped:
            _run(*argv)

        assert 2 == stopped.value.code
        assert "slotwise: error: give --db URL or set $SLOTWISE_DB\n" == capsys.readouterr().err


class TestCompanies:
    """``slotwise companies create``: a deployment's first company without Python or a token."""

    def test_the_operator_flow_upgrade_company_token(self, tmp_path: Path):
        """schema upgrade, companies create (prints the id alone), tokens create: the token
        opens the new company, with the name and time zone given."""
        url = f"sqlite:///{tmp_path / 'slotwise.db'}"
        _run("schema", "upgrade", "--db", url)

        status, output = _run(
            "companies", "create", "--db", url, "--name", "Bright Dental",
            "--timezone", "Europe/Brussels",
        )  # fmt: skip
        company_id = output.strip()
        _, issued = _run("tokens", "create", "--db", url, "--company", company_id, "--label", "ops")
        store = SQLStore(url)
        try:
            company = Scheduler(store).for_token(_token_of(issued)).company.get()
        finally:
            store.close()

        assert (0, f"{company_id}\n") == (status, output)
        assert (company_id, "Bright Dental", "Europe/Brussels") == (
            company.id,
            company.name,
            company.timezone,
        )

    @pytest.mark.parametrize(
        ("name", "timezone", "message"),
        [
            (
                "Acme",
                "Mars/Base",
                "timezone must be an IANA time zone name such as 'Europe/London', got 'Mars/Base'",
            ),
            ("  ", "UTC", "name is required"),
        ],
    )
    def test_a_refused_company_exits_2_and_creates_nothing(
        self,
        company: tuple[str, str, list[str]],
        capsys: pytest.CaptureFixture[str],
        name: str,
        timezone: str,
        message: str,
    ):
        """The library's validation applies: a bad time zone or a blank name is refused in
        words, with status 2, and no company is written."""
        from sqlalchemy import text

        url, _, _ = company

        status, output = _run(
            "companies", "create", "--db", url, "--name", name, "--timezone", timezone
        )
        store = SQLStore(url)
        try:
            with store.engine.connect() as conn:
                companies = conn.execute(text("SELECT count(*) FROM slotwise_company")).scalar()
        finally:
            store.close()

        assert (2, "", 1) == (status, output, companies)  # the fixture's company alone
        assert f"slotwise: error: {message}\n" == capsys.readouterr().err

    def test_a_database_without_the_tables_is_refused(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ):
        """Like the token commands, companies create never creates or upgrades tables."""
        from sqlalchemy import create_engine, inspect

        url = f"sqlite:///{tmp_path / 'typo.db'}"

        status, output = _run(
            "companies", "create", "--db", url, "--name", "A", "--timezone", "UTC"
        )
        engine = create_engine(url)
        try:
            tables = inspect(engine).get_table_names()
        finally:
            engine.dispose()

        assert (2, "", []) == (status, output, tables)
        assert "do not exist; run `slotwise schema upgrade`" in capsys.readouterr().err


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


class TestDemo:
    """``slotwise demo``: Acme Spa in memory (printed) or in a database (with a token)."""

    def test_in_memory_prints_the_coming_week(self):
        """Without --db the demo prints its ids, a token and bookable massage times."""
        status, output = _run("demo")

        assert 0 == status
        assert output.count("sw_") == 1
        assert "Deep-tissue massage, first available" in output
        assert " Ana" in output or " Ben" in output

    def test_into_a_database_with_a_working_token(self, tmp_path: Path):
        """With --db the business and its token are stored: the token opens the company."""
        url = f"sqlite:///{tmp_path / 'demo.db'}"
        status, output = _run("demo", "--db", url)
        store = SQLStore(url)
        workspace = Scheduler(store).for_token(_token_of(output))
        names = [service.name for service in workspace.services.list().data]
        store.close()

        assert 0 == status
        assert ["Deep-tissue massage", "Facial"] == names
        assert f"slotwise serve --db {url}" in output


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_answers_over_http(tmp_path: Path):
    """``slotwise serve`` on a SQLite file answers /healthz and a token's request, then stops."""
    import time

    import httpx

    url = f"sqlite:///{tmp_path / 'served.db'}"
    _, output = _run("demo", "--db", url)
    token = _token_of(output)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        health = None
        while health is None and time.monotonic() < deadline and process.poll() is None:
            try:
                health = httpx.get(f"{base}/healthz", timeout=2)
            except httpx.HTTPError:
                time.sleep(0.2)
        services = httpx.get(
            f"{base}/setup/v1/services",
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        refused = httpx.get(f"{base}/setup/v1/services", timeout=10)
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=30)

    assert health is not None
    assert 200 == health.status_code
    assert (200, 2) == (services.status_code, services.json()["total"])
    assert 401 == refused.status_code
    assert b"GET /setup/v1/services 200" in errors  # the access log, with its request id


def test_serve_without_the_http_extra_says_which_extra(monkeypatch, capsys):
    """Without litestar installed, serve fails with MISSING-DEPENDENCY naming the extra."""
    import builtins

    real_import = builtins.__import__

    def no_uvicorn(name, *args, **kwargs):
        if name == "uvicorn":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_uvicorn)
    status, _ = _run("serve", "--db", "sqlite://")

    assert 2 == status
    assert "http" in capsys.readouterr().err


def test_serve_refuses_no_threads(capsys):
    """``serve --threads 0`` exits 2 naming the option, before anything is served."""
    status, _ = _run("serve", "--db", "sqlite://", "--threads", "0")

    assert 2 == status
    assert "threads" in capsys.readouterr().err


def test_serve_with_a_bad_database_url_says_so_without_a_traceback(capsys):
    """``serve --db nonsense`` exits 2 with one line naming the URL's shape, not a traceback."""
    status, _ = _run("serve", "--db", "nonsense")

    err = capsys.readouterr().err
    assert 2 == status
    assert "database URL" in err
    assert "Traceback" not in err


def _status_lines(tables: str, since: str, state: str) -> str:
    """What ``slotwise schema status`` prints for this slotwise (schema version 8)."""
    return (
        f"code:             8\ntables:           {tables}\n"
        f"compatible since: {since}\nstate:            {state}\n"
    )


class TestSchemaCommands:
    """``slotwise schema status`` and ``upgrade`` on a SQLite file; ``--no-create`` refusals."""

    def test_status_and_upgrade_from_nothing(self, tmp_path: Path):
        """status: missing (exit 1); upgrade creates; status: current; upgrade again: nothing."""
        url = f"sqlite:///{tmp_path / 'new.db'}"

        before = _run("schema", "status", "--db", url)
        created = _run("schema", "upgrade", "--db", url)
        after = _run("schema", "status", "--db", url)
        again = _run("schema", "upgrade", "--db", url)

        assert [
            (1, _status_lines("none", "-", "missing (create them: slotwise schema upgrade)")),
            (0, "created the tables at schema version 8, compatible since 8\n"),
            (0, _status_lines("8", "8", "current")),
            (0, "nothing to do: the tables are at schema version 8, compatible since 8\n"),
        ] == [before, created, after, again]

    def test_upgrade_from_7_says_what_it_did(self, tmp_path: Path):
        """Tables at 7: status says older and what the upgrade leaves; upgrade runs the step."""
        from sqlalchemy import text

        url = f"sqlite:///{tmp_path / 'old.db'}"
        SQLStore(url).close()
        store = SQLStore(url)
        with store.engine.begin() as conn:
            conn.execute(text("ALTER TABLE slotwise_schema_version DROP COLUMN compatible_since"))
            conn.execute(text("UPDATE slotwise_schema_version SET version = 7"))
        store.close()

        older = _run("schema", "status", "--db", url)
        upgraded = _run("schema", "upgrade", "--db", url)

        state = (
            "older (upgrade them: slotwise schema upgrade; upgraded, they run slotwise of "
            "schema version 8 or later)"
        )
        assert (1, _status_lines("7", "7", state)) == older
        assert (
            0,
            "upgraded the tables from schema version 7 to schema version 8, compatible since 8\n",
        ) == upgraded

    def test_serve_with_no_create_refuses_missing_tables(self, tmp_path, monkeypatch, capsys):
        """serve --no-create on a database without tables exits 2 before serving, naming the fix."""
        # serve hands its settings to its server processes in os.environ: set (empty, which
        # reads as unset) through monkeypatch, so that they are removed again afterwards.
        for name in ("DB", "POOL_MODE", "LOG_LEVEL", "LOG_FORMAT", "THREADS", "WITH_WORKER"):
            monkeypatch.setenv(f"SLOTWISE_{name}", "")
        for name in ("ALLOW_LOCAL_WEBHOOKS", "MAX_BODY_SIZE", "CREATE", "SCHEMA"):
            monkeypatch.setenv(f"SLOTWISE_{name}", "")
        url = f"sqlite:///{tmp_path / 'none.db'}"

        status, _ = _run("serve", "--db", url, "--no-create")

        assert 2 == status
        assert "do not exist; run `slotwise schema upgrade`" in capsys.readouterr().err

    def test_the_served_app_reads_slotwise_create(self, tmp_path, monkeypatch):
        """Each server process's app (app_from_environment) honours SLOTWISE_CREATE=0."""
        pytest.importorskip("litestar")
        from slotwise.errors import StoreError
        from slotwise.http import app_from_environment

        monkeypatch.setenv("SLOTWISE_DB", f"sqlite:///{tmp_path / 'none.db'}")
        monkeypatch.setenv("SLOTWISE_CREATE", "0")
        monkeypatch.setenv("SLOTWISE_LOG_LEVEL", "")

        with pytest.raises(StoreError, match="do not exist"):
            app_from_environment()

    def test_the_served_app_reads_slotwise_schema(self, tmp_path, monkeypatch):
        """Each server process's app opens the store in $SLOTWISE_SCHEMA (serve --schema sets
        it): on SQLite, which has none, the store refuses it."""
        pytest.importorskip("litestar")
        from slotwise.errors import StoreError
        from slotwise.http import app_from_environment

        monkeypatch.setenv("SLOTWISE_DB", f"sqlite:///{tmp_path / 'any.db'}")
        monkeypatch.setenv("SLOTWISE_SCHEMA", "bookings")
        monkeypatch.setenv("SLOTWISE_LOG_LEVEL", "")

        with pytest.raises(StoreError, match="SQLite has no schemas"):
            app_from_environment()


class TestSchemaOption:
    """``--schema`` on demo and tokens reaches the store (PostgreSQL: tests/http/test_served.py)."""

    @pytest.mark.parametrize(
        "argv",
        [
            ("demo",),
            ("tokens", "list", "--company", "x"),
            ("tokens", "revoke", "t1"),
        ],
    )
    def test_a_schema_on_sqlite_is_refused_by_the_store(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
    ):
        """SQLite has no schemas: the store refuses --schema, so the option was handed to it."""
        url = f"sqlite:///{tmp_path / 'slotwise.db'}"

        status, _ = _run(*argv, "--db", url, "--schema", "bookings")

        assert 2 == status
        assert "SQLite has no schemas" in capsys.readouterr().err

    def test_demo_in_memory_refuses_a_schema(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ):
        """demo --schema without a database stops (exit 2) instead of ignoring the schema."""
        monkeypatch.delenv("SLOTWISE_DB", raising=False)

        with pytest.raises(SystemExit) as stopped:
            _run("demo", "--schema", "bookings")

        assert 2 == stopped.value.code
        assert "slotwise: error: --schema needs --db URL (or $SLOTWISE_DB)\n" == (
            capsys.readouterr().err
        )
