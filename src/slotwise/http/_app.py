"""
The ASGI application: the route table served for one :class:`~slotwise.Scheduler`.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import time
from typing import Annotated, Any, Final

from litestar import Litestar, Request, Response, get, route
from litestar.enums import ScopeType
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import PathParameter
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from slotwise._version import VERSION
from slotwise.errors import MissingDependency, NotAuthenticated, UnexpectedField
from slotwise.model import Company
from slotwise.scheduler import Scheduler, Workspace

from ._errors import REQUEST_ID, handlers
from ._handlers import error_responses, handler
from ._routes import ROUTES

__all__ = ["DEFAULT_MAX_BODY_SIZE", "app_from_environment", "configure_logging", "create_app"]

DEFAULT_MAX_BODY_SIZE: Final = 1024 * 1024
"""Request bodies above this many bytes are refused with 413 (1 MiB)."""

_BEARER: Final = "bearer "


def create_app(
    scheduler: Scheduler | None = None,
    *,
    max_body_size: int = DEFAULT_MAX_BODY_SIZE,
    debug: bool = False,
) -> Litestar:
    """
    Return the ASGI application serving the spec's HTTP interface for *scheduler*.

    Every request needs ``Authorization: Bearer <token>`` with a token from
    ``scheduler.tokens`` (decision 39); it then runs as the token's principal, exactly as
    ``scheduler.as_principal(principal)`` would in Python. ``/openapi.json``, ``/docs`` and
    ``/healthz`` are open.

    Args:
        scheduler: the scheduler to serve; a new in-memory one when omitted.
        max_body_size: request bodies above this many bytes answer 413.
        debug: Litestar's debug mode (tracebacks in bodies): never in production.

    .. versionadded:: 0.1
    """
    scheduler = scheduler if scheduler is not None else Scheduler()

    def provide_workspace(request: Request[Any, Any, Any]) -> Workspace:
        header = request.headers.get("authorization", "")
        if not header[: len(_BEARER)].lower() == _BEARER:
            raise NotAuthenticated()
        return scheduler.for_token(header[len(_BEARER) :].strip())

    @get("/healthz", sync_to_thread=False, include_in_schema=True, security=[{}], tags=["service"])
    def healthz() -> dict[str, str]:
        """Answer when the store answers a read (503 when it cannot be reached)."""
        with scheduler.store.read() as reader:
            reader.get(Company, "-")
        return {"status": "ok", "version": VERSION}

    @get(
        "/setup/v1/resources/{id:str}/calendar.ics",
        sync_to_thread=False,
        media_type="text/calendar",
        summary="A resource's calendar as iCalendar (RFC 5545)",
        description="Its appointments (stable UIDs across reschedules, SEQUENCE raised), blocks "
        "and allocations with their repeat rules. A slotwise extension (the ics extra).",
        operation_id="resources_calendar_ics",
        tags=["setup: resources"],
        responses=error_responses(),
        name="GET /setup/v1/resources/{id}/calendar.ics",
    )
    def resource_calendar(
        id: Annotated[str, PathParameter()],
        request: Request[Any, Any, Any],
    ) -> Response[bytes]:
        """Serve a resource's calendar for calendar clients to subscribe to."""
        workspace = provide_workspace(request)
        for key in request.query_params:
            raise UnexpectedField(field=key, allowed=[])
        try:
            from slotwise.ics import export_resource
        except ImportError:  # pragma: no cover - the ics extra is missing
            raise MissingDependency(feature="iCalendar feeds", extra="ics") from None
        return Response(content=export_resource(workspace, id), media_type="text/calendar")

    @get("/openapi.json", sync_to_thread=False, include_in_schema=False)
    def openapi(request: Request[Any, Any, Any]) -> dict[str, Any]:
        """The OpenAPI 3.1 document of this service."""
        return request.app.openapi_schema.to_schema()

    route_handlers = [handler(route, scheduler, provide_workspace) for route in ROUTES]
    return Litestar(
        route_handlers=[*_options_handlers(), *route_handlers, resource_calendar, healthz, openapi],
        exception_handlers=handlers(),
        request_max_body_size=max_body_size,
        middleware=[_RequestLog],
        openapi_config=OpenAPIConfig(
            title="slotwise",
            version=VERSION,
            description="The scheduling service's consumer (/consumer/v1) and setup (/setup/v1) "
            "interfaces, served by slotwise.",
            path="/docs",
            render_plugins=[SwaggerRenderPlugin(path="/")],
            components=Components(
                security_schemes={
                    "bearer": SecurityScheme(
                        type="http", scheme="bearer", description="a slotwise API token"
                    )
                }
            ),
            security=[{"bearer": []}],
        ),
        debug=debug,
        logging_config=None,
    )


def _options_handlers() -> list[HTTPRouteHandler]:
    """
    Return one OPTIONS handler per path, answering 204 with every method of the path.

    Litestar builds its own OPTIONS answer from the first handler registered on a path, so a
    path whose methods are registered one by one would list only the first (RFC 9110 wants
    them all in ``Allow``).
    """
    methods: dict[str, set[str]] = {}
    for served in ROUTES:
        methods.setdefault(served.path, {"OPTIONS"}).add(served.method)
    return [_options(path, ", ".join(sorted(allowed))) for path, allowed in methods.items()]


def _options(path: str, allow: str) -> HTTPRouteHandler:
    def options() -> Response[None]:
        return Response(content=None, status_code=204, headers={"Allow": allow})

    template = re.sub(r"{(\w+)}", r"{\1:str}", path)
    return route(template, http_method=["OPTIONS"], include_in_schema=False, sync_to_thread=False)(
        options
    )


def app_from_environment() -> Litestar:
    """
    Return the app of ``slotwise serve``: the SQL store at ``$SLOTWISE_DB``.

    Each uvicorn worker process calls this (``slotwise serve --workers N``), so every worker
    serves the same database. ``$SLOTWISE_MAX_BODY_SIZE`` (bytes) and ``$SLOTWISE_LOG_LEVEL``
    are read too; ``$SLOTWISE_WITH_WORKER=1`` also runs a webhook worker thread in the process.
    """
    from slotwise.storage.sql import SQLStore

    level = os.environ.get("SLOTWISE_LOG_LEVEL")
    if level:
        configure_logging(level)
    url = os.environ.get("SLOTWISE_DB") or "sqlite:///slotwise.db"
    size = int(os.environ.get("SLOTWISE_MAX_BODY_SIZE") or DEFAULT_MAX_BODY_SIZE)
    from slotwise.webhooks.meetings import HttpMeetingLinks

    allow_local = os.environ.get("SLOTWISE_WEBHOOKS_ALLOW_LOCAL") == "1"
    scheduler = Scheduler(
        SQLStore(url),
        meeting_links=HttpMeetingLinks(allow_local=allow_local),
        allow_local_webhooks=allow_local,
    )
    app = create_app(scheduler, max_body_size=size)
    if os.environ.get("SLOTWISE_WITH_WORKER") == "1":
        _attach_worker(app, scheduler)
    return app


def _attach_worker(app: Litestar, scheduler: Scheduler) -> None:
    """Run one webhook worker thread for the app's lifetime (``slotwise serve --with-worker``)."""
    import socket
    import threading

    from slotwise.webhooks.sender import start_workers

    stop = threading.Event()
    threads: list[threading.Thread] = []

    def start() -> None:
        name = f"{socket.gethostname()}:{os.getpid()}:serve"
        allow_local = os.environ.get("SLOTWISE_WEBHOOKS_ALLOW_LOCAL") == "1"
        threads.extend(
            start_workers(scheduler, concurrency=1, stop=stop, name=name, allow_local=allow_local)
        )

    def finish() -> None:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)

    app.on_startup.append(start)
    app.on_shutdown.append(finish)


class _RequestIdFilter(logging.Filter):
    """Give every record the id of the request being served (``-`` outside requests)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        return True


LOG_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


def configure_logging(level: str = "info") -> None:
    """
    Log slotwise's records to standard error, each with its request id.

    One line per request (``slotwise.http.access``: method, path, status, milliseconds), and
    errors with tracebacks under the same id that the 500 body carries.
    """
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(_RequestIdFilter())
    logger = logging.getLogger("slotwise")
    logger.handlers[:] = [handler]
    logger.setLevel(level.upper())
    logger.propagate = False


_access = logging.getLogger("slotwise.http.access")


class _RequestLog:
    """ASGI middleware: a request id per request (``X-Request-Id``) and one log line each."""

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
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if _access.isEnabledFor(logging.INFO):
                _access.info(
                    "%s %s %s %.1f ms",
                    scope.get("method", "-"),
                    scope["path"],
                    status,
                    (time.perf_counter() - started) * 1000,
                    extra={"request_id": request_id, "status": status},
                )
            REQUEST_ID.reset(token)
