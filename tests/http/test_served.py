"""
``slotwise serve`` as its users meet it (issue 21): a real process and an HTTP client.

``/docs`` works offline (its page refers only to assets the server answers itself), every
request writes one access line with its route's path template (text or JSON), and a request
waiting on the database does not hold up the others of its process.
"""

from __future__ import annotations

import json
import re
import threading
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

# An extra: the run on the lowest declared versions installs every runtime extra, but a host
# running the suite without the http and sql extras skips this module.
pytest.importorskip("litestar")
pytest.importorskip("sqlalchemy")

from ._served import served


class _Assets(HTMLParser):
    """Collect every URL an HTML page loads (``src`` and ``href``)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in ("src", "href") and value]


_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


@pytest.fixture(scope="module")
def docs_server(tmp_path_factory: pytest.TempPathFactory):
    """One server for the /docs tests (a page and its assets change nothing)."""
    with served(f"sqlite:///{tmp_path_factory.mktemp('docs') / 'docs.db'}") as server:
        yield server


class TestDocsOffline:
    def test_docs_page_loads_only_local_assets(self, docs_server):
        """/docs names no external URL; each asset it loads answers 200 with its content type."""
        server = docs_server
        page = httpx.get(f"{server.base}/docs", timeout=60)
        parser = _Assets()
        parser.feed(page.text)
        assets = {url: httpx.get(server.base + url, timeout=30) for url in parser.urls}
        unknown = httpx.get(f"{server.base}/docs/assets/..%2Fcore.py", timeout=30)

        assert 200 == page.status_code
        assert [] == re.findall(r"(?:https?:)?//[\w.-]+\.\w+", page.text)
        assert {"/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"} <= set(assets)
        assert all(url.startswith("/docs/assets/") for url in assets)
        for url, answer in assets.items():
            expected = _TYPES[Path(url).suffix]
            assert (200, expected) == (
                answer.status_code,
                answer.headers["content-type"][: len(expected)],
            )
            assert answer.content  # a real file, not an empty answer
        assert 404 == unknown.status_code

    def test_the_served_swagger_ui_renders_openapi_3_1(self, docs_server):
        """The page embeds an OpenAPI 3.1 document and the served Swagger UI is 5 or later."""
        base = docs_server.base
        page = httpx.get(f"{base}/docs", timeout=60).text
        bundle = httpx.get(f"{base}/docs/assets/swagger-ui-bundle.js", timeout=30).text
        version = re.search(r'PACKAGE_VERSION:"(\d+)\.', bundle)

        assert '"openapi":"3.1' in page.replace(" ", "")
        # Swagger UI 4 answers a 3.1 document with "Unable to render this definition".
        assert version is not None
        assert int(version.group(1)) >= 5


class TestAccessLog:
    def test_one_text_line_per_request_with_the_path_template(self, tmp_path: Path):
        """Each request logs one access line naming its route's template; tokens log nothing."""
        with (
            served(f"sqlite:///{tmp_path / 'log.db'}") as server,
            httpx.Client(base_url=server.base, headers=server.headers, timeout=30) as client,
        ):
            answers = [
                client.get(f"/setup/v1/services/{server.ids['massage']}"),
                client.get("/setup/v1/services"),
                client.get("/no/such/path"),
                client.delete("/healthz"),
            ]
        lines = server.log_lines()
        by_id = {
            answer.headers["x-request-id"]: [
                line for line in lines if f"[{answer.headers['x-request-id']}]" in line
            ]
            for answer in answers
        }
        access = [line for line in lines if " slotwise.http.access " in line]

        assert [200, 200, 404, 405] == [answer.status_code for answer in answers]
        assert all(1 == len(found) for found in by_id.values()), by_id
        shown = [re.sub(r"^.*\] ", "", found[0]) for found in by_id.values()]
        assert re.fullmatch(r"GET /setup/v1/services/\{id\} 200 [\d.]+ ms", shown[0])
        assert re.fullmatch(r"GET /setup/v1/services 200 [\d.]+ ms", shown[1])
        assert re.fullmatch(r"GET /no/such/path 404 [\d.]+ ms", shown[2])
        assert re.fullmatch(r"DELETE /healthz 405 [\d.]+ ms", shown[3])
        assert not any(server.ids["massage"] in line for line in access)
        assert not any("authenticate" in line for line in lines)

    def test_json_lines_parse_and_carry_the_access_fields(self, tmp_path: Path):
        """With --log-format json every line is a JSON object; access lines carry their fields."""
        with (
            served(f"sqlite:///{tmp_path / 'json.db'}", "--log-format", "json") as server,
            httpx.Client(base_url=server.base, headers=server.headers, timeout=30) as client,
        ):
            answer = client.get(f"/consumer/v1/resources/{server.ids['ana']}")
            created = client.post(
                "/setup/v1/locations",
                json={"name": "Uptown"},
                headers={"Content-Type": "application/json"},
            )
        records = [json.loads(line) for line in server.log_lines()]
        mine = [r for r in records if r["request_id"] == answer.headers["x-request-id"]]
        made = [r for r in records if r["request_id"] == created.headers["x-request-id"]]

        assert (200, 201) == (answer.status_code, created.status_code)
        assert any(r["logger"].startswith("uvicorn") for r in records)  # uvicorn's own, too
        assert 1 == len(mine)
        assert {
            "level": "INFO",
            "logger": "slotwise.http.access",
            "method": "GET",
            "path": "/consumer/v1/resources/{id}",
            "status": 200,
        }.items() <= mine[0].items()
        assert isinstance(mine[0]["duration_ms"], float)
        # The change the operation made is logged under the same request id.
        assert ["slotwise.operations", "slotwise.http.access"] == [r["logger"] for r in made]
        assert f"LocationOperations.create -> {created.json()['id']}" == made[0]["message"]


@pytest.mark.external_service
class TestOffTheLoop:
    def test_a_fast_request_completes_while_a_slow_one_waits_on_postgresql(self, postgres_url):
        """A list waiting on a PostgreSQL table lock does not hold up another request."""
        import sqlalchemy

        url, schema = postgres_url
        with served(url) as server:
            engine = sqlalchemy.create_engine(url)
            holder = engine.connect()
            slow: list[httpx.Response] = []
            try:
                # The test's own transaction locks the appointments table: the served list
                # waits on the database until the test lets go.
                holder.exec_driver_sql("LOCK TABLE slotwise_appointment IN ACCESS EXCLUSIVE MODE")
                waiter = threading.Thread(
                    target=lambda: slow.append(
                        httpx.get(
                            f"{server.base}/consumer/v1/appointments",
                            headers=server.headers,
                            timeout=60,
                        )
                    )
                )
                waiter.start()
                _wait_until_waiting(engine, schema)
                fast = httpx.get(
                    f"{server.base}/setup/v1/services", headers=server.headers, timeout=30
                )
                slow_done_before_fast = bool(slow) or not waiter.is_alive()
                still_waiting = _waiting(engine, schema)
            finally:
                holder.rollback()
                holder.close()
                waiter.join(timeout=60)
                engine.dispose()

        assert 200 == fast.status_code
        assert not slow_done_before_fast
        assert still_waiting
        assert 200 == slow[0].status_code  # and it completes once the lock is gone


def _waiting(engine, schema: str) -> bool:
    """Tell whether a session waits for a lock on the appointments table of *schema*."""
    with engine.connect() as conn:
        return bool(
            conn.exec_driver_sql(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE NOT l.granted AND c.relname = 'slotwise_appointment' AND n.nspname = %s",
                (schema,),
            ).scalar()
        )


def _wait_until_waiting(engine, schema: str) -> None:
    """Return once the served request waits on the lock (fail after 30 s)."""
    import time

    deadline = time.monotonic() + 30
    while not _waiting(engine, schema):
        assert time.monotonic() < deadline, "the served request never waited on the lock"
        time.sleep(0.05)


@pytest.fixture
def postgres_url(postgres_schema):
    """A PostgreSQL URL whose search path is a fresh schema of its own: (url, schema)."""
    url, schema = postgres_schema
    return f"{url}?options=-csearch_path%3D{schema}", schema


@pytest.fixture
def postgres_schema():
    """The test PostgreSQL URL and a fresh schema of its own outside its search path."""
    pytest.importorskip("psycopg")
    import sqlalchemy

    from tests.contract.servers import POSTGRES_URL, unavailable, unique_name

    schema = unique_name()
    admin = sqlalchemy.create_engine(POSTGRES_URL)
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            conn.commit()
    except sqlalchemy.exc.OperationalError as error:
        admin.dispose()
        unavailable(f"PostgreSQL is not reachable at {POSTGRES_URL}: {error}")
    try:
        yield POSTGRES_URL, schema
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            conn.commit()
        admin.dispose()


@pytest.mark.external_service
class TestSchemaOption:
    def test_serve_reads_the_tables_of_another_postgresql_schema(self, postgres_schema):
        """schema upgrade, demo and serve --schema X (two server processes, --no-create): the
        demo's token reads the demo's services from X, not from the URL's default schema."""
        import subprocess
        import sys

        import sqlalchemy

        from ._served import child_environment

        url, schema = postgres_schema
        upgrade = ["schema", "upgrade", "--db", url, "--schema", schema]
        subprocess.run(
            [sys.executable, "-m", "slotwise", *upgrade],
            env=child_environment(),
            capture_output=True,
            timeout=120,
            check=True,
        )
        with served(url, "--workers", "2", "--no-create", schema=schema) as server:
            answers = [
                httpx.get(f"{server.base}/setup/v1/services", headers=server.headers, timeout=30)
                for _ in range(4)  # either process may answer each
            ]
        engine = sqlalchemy.create_engine(url)
        try:
            with engine.connect() as conn:
                companies = conn.exec_driver_sql(
                    f'SELECT count(*) FROM "{schema}".slotwise_company WHERE id = %s',
                    (server.ids["company"],),
                ).scalar()
        finally:
            engine.dispose()

        assert 1 == companies
        assert [(200, 2)] * 4 == [(a.status_code, a.json()["total"]) for a in answers]


class TestFirstCompany:
    def test_the_operator_flow_serves_a_company_made_on_the_command_line(self, tmp_path: Path):
        """schema upgrade, companies create, tokens create, serve --no-create: the token's
        request answers the new company, with no demo and no Python."""
        import subprocess
        import sys

        from ._served import child_environment

        url = f"sqlite:///{tmp_path / 'first.db'}"

        def slotwise(*argv: str) -> str:
            return subprocess.run(
                [sys.executable, "-m", "slotwise", *argv, "--db", url],
                env=child_environment(),
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            ).stdout

        slotwise("schema", "upgrade")
        company_id = slotwise(
            "companies", "create", "--name", "Bright Dental", "--timezone", "Europe/Brussels"
        ).strip()
        issued = slotwise("tokens", "create", "--company", company_id, "--label", "back office")
        token = re.search(r"^token:\s+(\S+)$", issued, re.MULTILINE)
        assert token is not None
        with served(url, "--no-create", ids={"token": token.group(1)}) as server:
            answer = httpx.get(
                f"{server.base}/setup/v1/company/{company_id}", headers=server.headers
            )
        company = answer.json()

        assert (200, "Bright Dental", "Europe/Brussels") == (
            answer.status_code,
            company["name"],
            company["timezone"],
        )
