"""The HTTP service's log formats: text and JSON lines, and uvicorn's configuration (issue 21)."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

pytest.importorskip("litestar")
httpx = pytest.importorskip("httpx")

from slotwise import InvalidChoice, Scheduler  # noqa: E402 -- after the extras are known
from slotwise.http import configure_logging, create_app  # noqa: E402
from slotwise.http._logs import JSONFormatter, RequestIdFilter, uvicorn_log_config  # noqa: E402


@pytest.fixture
def restore_slotwise_logger():
    """Put the slotwise logger back as it was (configure_logging changes it on purpose)."""
    logger = logging.getLogger("slotwise")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    yield
    logger.handlers[:], logger.level, logger.propagate = saved


def _access_records(app, *paths: str) -> list[logging.LogRecord]:
    """Send GET *paths* to *app* in process; return the access records they wrote."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    access = logging.getLogger("slotwise.http.access")
    keep = Keep()
    access.addHandler(keep)
    previous = access.level
    access.setLevel(logging.INFO)

    async def send() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slotwise.test") as c:
            for path in paths:
                await c.get(path)

    try:
        asyncio.run(send())
    finally:
        access.removeHandler(keep)
        access.setLevel(previous)
    return records


def test_access_records_name_the_template_and_every_request():
    """404s get an access record too; a concrete id is replaced by the route's template."""
    records = _access_records(create_app(Scheduler()), "/setup/v1/services/s-123", "/nowhere")

    assert [("/setup/v1/services/{id}", 401), ("/nowhere", 404)] == [
        (r.path, r.status) for r in records
    ]
    assert all(r.request_id != "-" for r in records)


def test_json_formatter_writes_one_object_with_the_access_fields():
    """A JSON line carries time, level, logger, request id, message and the access fields."""
    (record,) = _access_records(create_app(Scheduler()), "/healthz")
    RequestIdFilter().filter(record)

    document = json.loads(JSONFormatter().format(record))

    assert {"GET", "/healthz", 200} == {document["method"], document["path"], document["status"]}
    assert {"time", "level", "logger", "request_id", "message", "duration_ms"} <= set(document)
    assert document["time"].endswith("+00:00")


def test_json_formatter_keeps_the_traceback():
    """A record with an exception carries it under exception."""
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord("slotwise.http", logging.ERROR, "", 0, "failed", (), None)
        import sys

        record.exc_info = sys.exc_info()
    RequestIdFilter().filter(record)

    document = json.loads(JSONFormatter().format(record))

    assert "RuntimeError: boom" in document["exception"]
    assert "-" == document["request_id"]


def test_configure_logging_json(restore_slotwise_logger):
    """configure_logging(format="json") installs the JSON formatter on the slotwise logger."""
    configure_logging("info", format="json")

    (handler,) = logging.getLogger("slotwise").handlers
    assert isinstance(handler.formatter, JSONFormatter)


def test_an_unknown_format_is_refused(restore_slotwise_logger):
    """Another format is InvalidChoice naming the field; the logger is left as it was."""
    before = logging.getLogger("slotwise").handlers[:]

    with pytest.raises(InvalidChoice) as refused:
        configure_logging("info", format="xml")  # type: ignore[arg-type]

    assert "format" == refused.value.field
    assert before == logging.getLogger("slotwise").handlers


def test_uvicorn_keeps_its_own_config_for_text_and_gets_json_for_json():
    """Text leaves uvicorn's config alone; JSON routes uvicorn's loggers to the JSON formatter."""
    config = uvicorn_log_config("info", "json")

    assert uvicorn_log_config("info", "text") is None
    assert config is not None
    assert {"uvicorn", "uvicorn.access"} == set(config["loggers"])
    assert config["formatters"]["json"]["()"].endswith("JSONFormatter")
