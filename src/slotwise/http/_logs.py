"""
What the HTTP service logs: one access line per request, every record with its request id.

:class:`RequestLog` wraps the whole application (routing included, so a 404 or a 405 is logged
and carries ``X-Request-Id`` too) and writes one ``slotwise.http.access`` record per request:
the method, the route's path template (``/setup/v1/services/{id}``, never the concrete id, so
lines group by endpoint and ids stay out of the log), the status and the milliseconds.

Nothing here configures logging by itself (a library never changes its host's logging):
:func:`configure_logging` is called by the command line, or by a host that wants this format.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import time
from datetime import UTC, datetime
from typing import Any, Final, Literal

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from slotwise.errors import InvalidChoice

from ._errors import REQUEST_ID
from ._head import with_head_allowed

__all__ = [
    "LOG_FORMAT",
    "JSONFormatter",
    "LogFormat",
    "RequestIdFilter",
    "RequestLog",
    "configure_logging",
    "uvicorn_log_config",
]

LogFormat = Literal["text", "json"]
"""How records are written: ``text`` (one readable line) or ``json`` (one JSON object a line)."""

LOG_FORMATS: Final[tuple[LogFormat, ...]] = ("text", "json")

LOG_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
"""The ``text`` format of every slotwise record."""

# The fields an access record carries besides its message (and the JSON form's keys for them).
_ACCESS_FIELDS: Final = ("method", "path", "status", "duration_ms")
_TYPED_PARAMETER: Final = re.compile(r"{(\w+):\w+}")


class RequestIdFilter(logging.Filter):
    """Give every record the id of the request being served (``-`` outside requests)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        return True


class JSONFormatter(logging.Formatter):
    """
    Write each record as one JSON object: ``time`` (UTC, RFC 3339), ``level``, ``logger``,
    ``request_id``, ``message``, the access fields where the record has them, ``exception``.
    """

    def format(self, record: logging.LogRecord) -> str:
        document: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", REQUEST_ID.get()),
            "message": record.getMessage(),
        }
        for field in _ACCESS_FIELDS:
            if hasattr(record, field):
                document[field] = getattr(record, field)
        if record.exc_info:
            document["exception"] = self.formatException(record.exc_info)
        return json.dumps(document, default=str)


def _formatter(form: LogFormat) -> logging.Formatter:
    if form not in LOG_FORMATS:
        raise InvalidChoice(field="format", allowed=LOG_FORMATS, requested=form)
    return JSONFormatter() if form == "json" else logging.Formatter(LOG_FORMAT)


def configure_logging(level: str = "info", *, format: LogFormat = "text") -> None:
    """
    Log slotwise's records to standard error, each with its request id.

    One line per request (``slotwise.http.access``: method, path template, status,
    milliseconds), the changes operations make (``slotwise.operations``,
    ``slotwise.appointments``), and errors with tracebacks under the same id that the 500 body
    carries. Only the ``slotwise`` logger is touched (its handlers replaced, its propagation
    off): call it from a program's entry point, as ``slotwise serve`` does.

    Args:
        level: ``debug``, ``info``, ``warning`` or ``error``.
        format: ``text`` (:data:`LOG_FORMAT`) or ``json`` (one object a line, see
            :class:`JSONFormatter`).

    Raises:
        InvalidChoice: for another *format*.

    .. versionadded:: 0.1
    """
    handler = logging.StreamHandler()
    handler.setFormatter(_formatter(format))
    handler.addFilter(RequestIdFilter())
    logger = logging.getLogger("slotwise")
    logger.handlers[:] = [handler]
    logger.setLevel(level.upper())
    logger.propagate = False


def uvicorn_log_config(level: str, format: LogFormat) -> dict[str, Any] | None:
    """
    Return uvicorn's ``log_config`` for *format*: ``None`` keeps uvicorn's own text lines;
    ``json`` writes uvicorn's records (startup, shutdown, its errors) as JSON too, so every
    line on standard error parses.
    """
    _formatter(format)
    if format == "text":
        return None
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "json",
        "filters": ["request_id"],
        "stream": "ext://sys.stderr",
    }
    logger = {"handlers": ["json"], "level": level.upper(), "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JSONFormatter"}},
        "filters": {"request_id": {"()": f"{__name__}.RequestIdFilter"}},
        "handlers": {"json": handler},
        "loggers": {"uvicorn": logger, "uvicorn.access": logger},
    }


_access = logging.getLogger("slotwise.http.access")


class RequestLog:
    """
    ASGI middleware around the whole application: a request id per request (``X-Request-Id``)
    and one access record each.
    """

    _ids = itertools.count(1)

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.prefix = f"{os.getpid():x}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        request_id = f"{self.prefix}-{next(self._ids)}"
        token = REQUEST_ID.set(request_id)
        sent = scope["path"]  # the router rewrites the scope's path; keep what was asked
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                if status == 405:
                    headers = with_head_allowed(headers)  # HEAD is served where GET is
                headers.append((b"x-request-id", request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if _access.isEnabledFor(logging.INFO):
                method = scope.get("method", "-")
                path = _template(scope, sent)
                duration = round((time.perf_counter() - started) * 1000, 1)
                _access.info(
                    "%s %s %s %.1f ms",
                    method,
                    path,
                    status,
                    duration,
                    extra={
                        "request_id": request_id,
                        "method": method,
                        "path": path,
                        "status": status,
                        "duration_ms": duration,
                    },
                )
            REQUEST_ID.reset(token)


def _template(scope: Scope, sent: str) -> str:
    """
    Return the route's path template (``/setup/v1/services/{id}``); for a path no route
    serves, the path as sent (escaped when it holds characters that would break a line).
    """
    template = scope.get("path_template")
    if template:
        return _TYPED_PARAMETER.sub(r"{\1}", template)
    return sent if sent.isprintable() else ascii(sent)
