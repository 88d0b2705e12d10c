"""
The specification's HTTP interface, served by slotwise (the ``http`` extra).

``create_app(scheduler)`` returns an ASGI application (Litestar) serving every endpoint of the
spec's consumer and setup interfaces onto the scheduler's Python calls; ``slotwise serve`` runs
it with uvicorn. See ``docs/http.md``.

.. versionadded:: 0.1
"""

from __future__ import annotations

from slotwise.errors import MissingDependency

try:
    import litestar as _litestar  # noqa: F401
    import msgspec as _msgspec  # noqa: F401
except ImportError as missing:  # pragma: no cover - exercised without the extra
    raise MissingDependency(feature="the HTTP interface", extra="http") from missing

from ._app import DEFAULT_MAX_BODY_SIZE as DEFAULT_MAX_BODY_SIZE
from ._app import app_from_environment as app_from_environment
from ._app import create_app as create_app
from ._logs import configure_logging as configure_logging
from ._routes import ROUTES as ROUTES
from ._routes import Route as Route

__all__ = [
    "DEFAULT_MAX_BODY_SIZE",
    "ROUTES",
    "Route",
    "app_from_environment",
    "configure_logging",
    "create_app",
]
