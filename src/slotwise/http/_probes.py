"""
Health probes of the service, open to every caller (no token):

* ``GET /livez``: liveness. The process serves requests: 200 ``{"status": "ok", "version"}``;
  the store is not asked, so a database outage never gets healthy processes restarted.
* ``GET /readyz``: readiness. The store answers and this slotwise runs on its tables: at its
  schema version, or newer ones still compatible with it (``SQLStore.check()``; any other store
  answers a read): 200 as above, with ``schema`` (``code``, ``tables``, ``compatibleSince``) for
  a SQL store, else 503 with the error body of what failed (``STORE-UNAVAILABLE`` when the
  database cannot be reached, ``STORE`` when the tables are missing, older, or upgraded past
  this slotwise), so a load balancer stops sending requests until the store is back, or drains
  a process a newer release has outgrown.
* ``GET /healthz``: the readiness probe under its first name (kept from 0.1).
"""

from __future__ import annotations

from typing import Any, Final

from litestar import Response, get
from litestar.handlers import HTTPRouteHandler

from slotwise._version import VERSION
from slotwise.errors import StoreError
from slotwise.model import Company
from slotwise.scheduler import Scheduler

from ._errors import _answer
from ._threads import Offload

__all__ = ["PROBE_PATHS", "probes"]

PROBE_PATHS: Final = ("/livez", "/readyz", "/healthz")


def probes(scheduler: Scheduler, offload: Offload) -> list[HTTPRouteHandler]:
    """Return the handlers of :data:`PROBE_PATHS` for *scheduler*; the store is asked on *offload*."""

    def ready() -> Response[Any]:
        store = scheduler.store
        check = getattr(store, "check", None)
        content: dict[str, Any] = {"status": "ok", "version": VERSION}
        try:
            if callable(check):
                # SQLStore.check() returns its SchemaStatus: which versions meet (rolling upgrades).
                status = check()
                if status is not None:
                    content["schema"] = {
                        "code": status.code,
                        "tables": status.tables,
                        "compatibleSince": status.compatible_since,
                    }
            else:
                with store.read() as reader:
                    reader.get(Company, "-")
        except StoreError as error:
            return _answer(503, error.to_dict())
        return Response(content=content)

    @get("/livez", sync_to_thread=False, security=[{}], tags=["service"])
    def livez() -> dict[str, str]:
        """Answer while the process serves requests, without asking the store (liveness)."""
        return {"status": "ok", "version": VERSION}

    @get("/readyz", security=[{}], tags=["service"])
    async def readyz() -> Response[Any]:
        """Answer when the store answers and its tables run this slotwise; 503 otherwise (readiness)."""
        return await offload.run(ready)

    @get("/healthz", security=[{}], tags=["service"])
    async def healthz() -> Response[Any]:
        """The readiness probe under its first name: 503 while the store cannot serve."""
        return await offload.run(ready)

    return [livez, readyz, healthz]
