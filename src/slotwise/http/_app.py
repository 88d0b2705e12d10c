"""
The ASGI application: the route table served for one :class:`~slotwise.Scheduler`.
"""

from __future__ import annotations

import os
import re
from typing import Annotated, Any, Final

from litestar import Litestar, Request, Response, get, route
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import PathParameter

from slotwise._settings import flag, seconds, setting, settings_list
from slotwise._version import VERSION
from slotwise.clock import SystemClock
from slotwise.errors import InvalidChoice, MissingDependency, NotAuthenticated, UnexpectedField
from slotwise.scheduler import Scheduler, Workspace

from ._consistency import ConsistencyTokens
from ._constraints import publish
from ._docs import OfflineSwaggerUI
from ._errors import handlers
from ._handlers import error_responses, handler
from ._head import HeadAsGet
from ._logs import LogFormat, RequestLog, configure_logging
from ._probes import probes
from ._routes import ROUTES
from ._threads import Offload, threads_for

__all__ = ["DEFAULT_MAX_BODY_SIZE", "app_from_environment", "create_app"]

DEFAULT_MAX_BODY_SIZE: Final = 1024 * 1024
"""Request bodies above this many bytes are refused with 413 (1 MiB)."""

_BEARER: Final = "bearer "


def create_app(
    scheduler: Scheduler | None = None,
    *,
    max_body_size: int = DEFAULT_MAX_BODY_SIZE,
    threads: int | None = None,
    debug: bool = False,
) -> Litestar:
    """
    Return the ASGI application serving the spec's HTTP interface for *scheduler*.

    Every request needs ``Authorization: Bearer <token>`` with a token from
    ``scheduler.tokens`` (decision 39); it then runs as the token's principal, exactly as
    ``scheduler.as_principal(principal)`` would in Python. ``/openapi.json``, ``/docs`` and
    the probes ``/livez``, ``/readyz`` and ``/healthz`` are open.

    Operations run on worker threads, never on the event loop, so a slow request (a long
    availability range, a unit of work waiting for a database lock) does not hold up the
    others; at most *threads* run at once, the rest wait for a thread.

    Args:
        scheduler: the scheduler to serve; a new in-memory one when omitted.
        max_body_size: request bodies above this many bytes answer 413.
        threads: operations run at once; by default as many as the store has connections
            (``store.max_connections``: 15 for a ``SQLStore`` made from a URL), 40 for a store
            without a limit (``MemoryStore``).
        debug: Litestar's debug mode (tracebacks in bodies): never in production.

    Raises:
        OutOfRange: when *threads* is below 1.

    .. versionadded:: 0.1
    """
    scheduler = scheduler if scheduler is not None else Scheduler()
    offload = Offload(threads if threads is not None else threads_for(scheduler.store))

    def provide_workspace(request: Request[Any, Any, Any]) -> Workspace:
        header = request.headers.get("authorization", "")
        if not header[: len(_BEARER)].lower() == _BEARER:
            raise NotAuthenticated()
        return scheduler.for_token(header[len(_BEARER) :].strip())

    def calendar_of(id: str, request: Request[Any, Any, Any]) -> Response[bytes]:
        workspace = provide_workspace(request)
        for key in request.query_params:
            raise UnexpectedField(field=key, allowed=[])
        try:
            from slotwise.ics import export_resource
        except ImportError:  # pragma: no cover - the ics extra is missing
            raise MissingDependency(feature="iCalendar feeds", extra="ics") from None
        return Response(content=export_resource(workspace, id), media_type="text/calendar")

    @get(
        "/setup/v1/resources/{id:str}/calendar.ics",
        media_type="text/calendar",
        summary="A resource's calendar as iCalendar (RFC 5545)",
        description="Its appointments (stable UIDs across reschedules, SEQUENCE raised), blocks "
        "and allocations with their repeat rules. A slotwise extension (the ics extra).",
        operation_id="resources_calendar_ics",
        tags=["setup: resources"],
        responses=error_responses(),
        name="GET /setup/v1/resources/{id}/calendar.ics",
    )
    async def resource_calendar(
        id: Annotated[str, PathParameter()],
        request: Request[Any, Any, Any],
    ) -> Response[bytes]:
        """Serve a resource's calendar for calendar clients to subscribe to."""
        return await offload.run(calendar_of, id, request)

    @get("/openapi.json", sync_to_thread=False, include_in_schema=False)
    def openapi(request: Request[Any, Any, Any]) -> dict[str, Any]:
        """The OpenAPI 3.1 document of this service."""
        return request.app.openapi_schema.to_schema()

    route_handlers = [handler(route, scheduler, provide_workspace, offload) for route in ROUTES]
    app = Litestar(
        route_handlers=[
            *_options_handlers(),
            *route_handlers,
            resource_calendar,
            *probes(scheduler, offload),
            openapi,
        ],
        exception_handlers=handlers(),
        request_max_body_size=max_body_size,
        middleware=[ConsistencyTokens],
        openapi_config=OpenAPIConfig(
            title="slotwise",
            version=VERSION,
            description="The scheduling service's consumer (/consumer/v1) and setup (/setup/v1) "
            "interfaces, served by slotwise.",
            path="/docs",
            render_plugins=[OfflineSwaggerUI()],
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
    # Around routing, not as route middleware: a 404 or a 405 gets its request id and its
    # access line too.
    app.asgi_handler = RequestLog(HeadAsGet(app.asgi_handler))
    publish(app)
    return app


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
        if served.method == "GET":
            methods[served.path].add("HEAD")  # served as GET (``_head``)
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
    serves the same database. ``$SLOTWISE_SCHEMA`` (the PostgreSQL schema or MariaDB database
    of the tables), ``$SLOTWISE_POOL_MODE`` (``transaction`` behind PgBouncer),
    ``$SLOTWISE_MAX_BODY_SIZE`` (bytes), ``$SLOTWISE_THREADS``, ``$SLOTWISE_LOG_LEVEL``,
    ``$SLOTWISE_LOG_FORMAT`` (``text``, ``json``), ``$SLOTWISE_ALLOW_LOCAL_WEBHOOKS``,
    ``$SLOTWISE_CREATE`` (``0``: never create or upgrade the tables), ``$SLOTWISE_REPLICAS``
    (replica URLs separated by whitespace), ``$SLOTWISE_MAX_LAG`` and ``$SLOTWISE_REPLICA_RETRY``
    (seconds) are read too; ``$SLOTWISE_WITH_WORKER=1`` also runs a webhook worker thread in the process (which then
    keeps one of the store's connections for itself: one operation thread fewer). Flags are read
    as ``slotwise._settings`` reads the command line's variables.
    """
    from slotwise.storage.sql import POOL_MODES, SQLStore

    level = os.environ.get("SLOTWISE_LOG_LEVEL")
    if level:
        form: LogFormat = "json" if os.environ.get("SLOTWISE_LOG_FORMAT") == "json" else "text"
        configure_logging(level, format=form)
    url = os.environ.get("SLOTWISE_DB") or "sqlite:///slotwise.db"
    size = int(os.environ.get("SLOTWISE_MAX_BODY_SIZE") or DEFAULT_MAX_BODY_SIZE)
    mode = os.environ.get("SLOTWISE_POOL_MODE") or "session"
    if mode not in POOL_MODES:
        raise InvalidChoice(field="SLOTWISE_POOL_MODE", allowed=POOL_MODES, requested=mode)
    from slotwise.webhooks.meetings import HttpMeetingLinks

    allow_local = _allow_local_webhooks()
    # $SLOTWISE_CREATE=0 (serve --no-create): the tables are upgraded by `slotwise schema upgrade`.
    create = not os.environ.get("SLOTWISE_CREATE") or flag("SLOTWISE_CREATE")
    # The replicas of `slotwise serve --replica` (its process sets these for its workers).
    tuning = {
        "max_lag": setting("SLOTWISE_MAX_LAG", seconds),
        "replica_retry": setting("SLOTWISE_REPLICA_RETRY", seconds),
    }
    store = SQLStore(
        url,
        schema=os.environ.get("SLOTWISE_SCHEMA") or None,  # None: the URL's
        pool_mode="transaction" if mode == "transaction" else "session",
        create=create,
        replicas=settings_list("SLOTWISE_REPLICAS"),
        **{key: value for key, value in tuning.items() if value is not None},
    )
    clock = SystemClock()
    scheduler = Scheduler(
        store,
        clock=clock,
        meeting_links=HttpMeetingLinks(allow_local=allow_local, store=store, clock=clock),
        allow_local_webhooks=allow_local,
    )
    with_worker = flag("SLOTWISE_WITH_WORKER")
    threads = int(os.environ.get("SLOTWISE_THREADS") or 0) or threads_for(scheduler.store)
    if with_worker and threads > 1 and not os.environ.get("SLOTWISE_THREADS"):
        threads -= 1
    app = create_app(scheduler, max_body_size=size, threads=threads)
    if with_worker:
        _attach_worker(app, scheduler)
    return app


def _allow_local_webhooks() -> bool:
    """``$SLOTWISE_ALLOW_LOCAL_WEBHOOKS`` (or its former name ``$SLOTWISE_WEBHOOKS_ALLOW_LOCAL``)."""
    return flag("SLOTWISE_ALLOW_LOCAL_WEBHOOKS") or flag("SLOTWISE_WEBHOOKS_ALLOW_LOCAL")


def _attach_worker(app: Litestar, scheduler: Scheduler) -> None:
    """Run one webhook worker thread for the app's lifetime (``slotwise serve --with-worker``)."""
    import socket
    import threading

    from slotwise.webhooks.sender import start_workers

    stop = threading.Event()
    threads: list[threading.Thread] = []

    def start() -> None:
        name = f"{socket.gethostname()}:{os.getpid()}:serve"
        allow_local = _allow_local_webhooks()
        threads.extend(
            start_workers(scheduler, concurrency=1, stop=stop, name=name, allow_local=allow_local)
        )

    def finish() -> None:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)

    app.on_startup.append(start)
    app.on_shutdown.append(finish)
