"""
Errors on the wire (decision 40): every failure answers ``{code, message, field, ...}``.

A :class:`~slotwise.SlotwiseError` answers with its class's ``http_status`` and its data; what
Litestar refuses before an operation runs (a body of the wrong shape, a missing parameter, an
unknown path, a body over the size limit) answers in the same shape; anything unexpected answers
500 with only an error id, which is the request id in the log line that carries the traceback.
"""

from __future__ import annotations

import logging
import re
from contextvars import ContextVar
from typing import Any, Final, NamedTuple

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException

from slotwise.errors import NotAuthenticated, SlotwiseError, Unauthorized

from ._wire import wire_name

__all__ = ["REQUEST_ID", "ErrorBody", "Refusal", "handlers", "logger", "read_refusal"]

logger = logging.getLogger("slotwise.http")

REQUEST_ID: ContextVar[str] = ContextVar("slotwise_request_id", default="-")
"""The id of the request being served (logged, and returned as ``X-Request-Id``)."""


class ErrorBody(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The body of every error answer (decision 40)."""

    code: str
    message: str
    field: str | None = None
    limit: Any = None
    requested: Any = None
    allowed: Any = None
    value: Any = None
    errorId: str | None = None


_JSON: Final = "application/json"


def _safe(value: Any) -> Any:
    """Return *value* as JSON data: error data may hold dates, sets or any object."""
    return msgspec.json.decode(msgspec.json.encode(value, enc_hook=repr))


def _answer(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Response[Any]:
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    return Response(content=_safe(body), status_code=status, media_type=_JSON, headers=headers)


def on_slotwise_error(_: Request[Any, Any, Any], error: SlotwiseError) -> Response[Any]:
    """Answer a slotwise error with its class's status and its data."""
    if isinstance(error, NotAuthenticated | Unauthorized):
        # Decision 39: a 401 says which of the two it is and nothing else about the records.
        body: dict[str, Any] = {"code": error.code, "message": error.message}
        if isinstance(error, Unauthorized):
            body.update(error.to_dict())
        return _answer(401, body)
    status = error.http_status
    if status == 500:
        logger.error("store failure (request %s): %s", REQUEST_ID.get(), error)
    return _answer(status, _on_the_wire(error.to_dict()))


_NAME = re.compile(r"(?<![\w'\"])([a-z][a-z0-9]*(?:_[a-z0-9]+)+|start|end)(?![\w'\"])")


def wire_field(field: str) -> str:
    """
    Return the field path of an error as the wire names it (``repeat.month_day`` ->
    ``repeat.monthDay``, ``start`` -> ``startDateTime``); keys in brackets stay as sent.
    """
    return _NAME.sub(lambda match: wire_name(None, match.group(1)), field)


def _on_the_wire(body: dict[str, Any]) -> dict[str, Any]:
    # Errors name Python arguments (the library's callers); HTTP callers sent camelCase.
    field = body.get("field")
    if isinstance(field, str):
        wire = wire_field(field)
        if wire != field:
            body["field"] = wire
            body["message"] = str(body["message"]).replace(field, wire, 1)
    return body


_HTTP_CODES: Final = {
    404: ("NOT-FOUND", "no such path"),
    405: ("METHOD-NOT-ALLOWED", "method not allowed on this path"),
    413: ("PAYLOAD-TOO-LARGE", "request body over the size limit"),
    415: ("UNSUPPORTED-MEDIA-TYPE", "unsupported media type"),
}


def on_http_error(_: Request[Any, Any, Any], error: HTTPException) -> Response[Any]:
    """Answer what Litestar refused before any operation ran, in the slotwise error shape."""
    status = error.status_code
    if status == 400:
        return _answer(400, _validation_body(error))
    code, message = _HTTP_CODES.get(status, (f"HTTP-{status}", error.detail))
    body: dict[str, Any] = {"code": code, "message": message}
    # Keep what the refusal says about the path (405's Allow header, RFC 9110).
    headers = dict(error.headers or {})
    return _answer(status, body, headers)


class Refusal(NamedTuple):
    """What msgspec's refusal of a value says: the field, the reason, and whether it is unknown."""

    field: str
    message: str
    unknown: bool


_UNKNOWN: Final = re.compile(r"Object contains unknown field `([^`]*)`(?: - at `\$\.?(.*)`)?")
_LOCATED: Final = re.compile(r"(.*?) - at `\$\.?(.*)`$")


def read_refusal(message: str, container: str | None = None) -> Refusal:
    """
    Read a msgspec validation message (``Object contains unknown field `x` - at `$.a```,
    ``Expected `int`, got `str` - at `$.b```) as the field it names and why.

    *container* is where Litestar says the value was (``data`` for the body itself).
    """
    unknown = _UNKNOWN.match(message)
    if unknown:
        where = unknown.group(2) or (container if container not in (None, "data") else None)
        field = f"{where}.{unknown.group(1)}" if where else unknown.group(1)
        return Refusal(field=field, message=f"{field} is not accepted here", unknown=True)
    located = _LOCATED.match(message)
    if located:
        message, container = located.group(1), located.group(2) or container
    field = container if container not in (None, "", "data") else "body"
    return Refusal(field=field, message=message, unknown=False)


def _validation_body(error: HTTPException) -> dict[str, Any]:
    extras = error.extra if isinstance(error.extra, list) else []
    first = extras[0] if extras and isinstance(extras[0], dict) else {}
    message = str(first.get("message") or error.detail)
    key = first.get("key")
    if message.startswith("Missing required"):
        named = re.search(r"parameter '([^']+)'", message)
        field = named.group(1) if named else key
        return {"code": "FIELD-REQUIRED", "message": f"{field} is required", "field": field}
    refused = read_refusal(message, key)
    if refused.unknown:
        return {"code": "UNEXPECTED-FIELD", "message": refused.message, "field": refused.field}
    return {
        "code": "INVALID-FORMAT",
        "message": f"{refused.field}: {refused.message}",
        "field": refused.field,
    }


def on_unexpected(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    """Answer 500 with the request id as the error id; log the traceback under that id."""
    error_id = REQUEST_ID.get()
    logger.error(
        "unexpected failure serving %s %s (error id %s)",
        request.method,
        request.url.path,
        error_id,
        exc_info=error,
    )
    body = {"code": "SERVER-ERROR", "message": "unexpected server failure", "errorId": error_id}
    return _answer(500, body)


def handlers() -> dict[int | type[Exception], Any]:
    """Return the app's exception handlers, most specific first."""
    return {
        SlotwiseError: on_slotwise_error,
        HTTPException: on_http_error,
        Exception: on_unexpected,
    }
