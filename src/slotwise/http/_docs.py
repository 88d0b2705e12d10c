"""
``/docs``: Swagger UI served from an installed package, so the page works without internet.

Litestar's Swagger page loads its script, style and icon from a CDN: on a machine without
internet (or behind a proxy that blocks it) ``/docs`` is blank. The ``http`` extra installs
``swagger-ui-py``, which ships Swagger UI 5 (the first major version that renders an OpenAPI
3.1 document, which Litestar writes; ``swagger-ui-bundle`` 1.1.0 ships 4.15, which refuses
3.1 with "Unable to render this definition"). The page refers only to ``/docs/assets/...``,
answered from that package's files.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Annotated, Final

from litestar import Response, get
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.params import PathParameter
from litestar.router import Router

from slotwise.errors import MissingDependency, NotFound

__all__ = ["ASSETS", "OfflineSwaggerUI"]

ASSETS: Final = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
    "favicon-16x16.png": "image/png",
}
"""The files the page uses, by name, with their content types (nothing else is served)."""

_PREFIX: Final = "/docs/assets"


class OfflineSwaggerUI(SwaggerRenderPlugin):
    """Litestar's Swagger page at ``/docs``, its assets served by the app itself."""

    def __init__(self) -> None:
        super().__init__(
            path="/",
            js_url=f"{_PREFIX}/swagger-ui-bundle.js",
            css_url=f"{_PREFIX}/swagger-ui.css",
            standalone_preset_js_url=f"{_PREFIX}/swagger-ui-standalone-preset.js",
            favicon=f"<link rel='icon' type='image/png' href='{_PREFIX}/favicon-32x32.png'>",
        )

    def receive_router(self, router: Router) -> None:
        """Add the assets' route beside the page (and Swagger's OAuth2 redirect page)."""
        super().receive_router(router)
        router.register(
            get("/assets/{name:str}", sync_to_thread=False, include_in_schema=False)(_asset)
        )


def _asset(name: Annotated[str, PathParameter()]) -> Response[bytes]:
    """Answer one of Swagger UI's files; any other name is 404."""
    media_type = ASSETS.get(name)
    if media_type is None:
        raise NotFound(kind="asset", record_id=name)
    return Response(
        content=_read(name),
        media_type=media_type,
        headers={"Cache-Control": "public, max-age=86400"},
    )


@functools.cache
def _read(name: str) -> bytes:
    return (_static() / name).read_bytes()


@functools.cache
def _static() -> Path:
    # find_spec locates the package without importing it (its __init__ imports the
    # integrations of a dozen web frameworks, none of which is needed here).
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependency(feature="the /docs page", extra="http")
    return Path(next(iter(spec.submodule_search_locations))) / "static"
