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
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Final, Literal, NamedTuple

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException

from slotwise.errors import (
    FieldRequired,
    InvalidChoice,
    InvalidFormat,
    NotAuthenticated,
    SlotwiseError,
    Unauthorized,
    UnexpectedField,
)

from ._body_paths import keys_at
from ._wire import wire_name

__all__ = [
    "BODY",
    "CHOICES",
    "ITEM_ID",
    "REQUEST_ID",
    "WIRE_NAMES",
    "ErrorBody",
    "Refusal",
    "as_sent",
    "handlers",
    "logger",
    "read_refusal",
    "refusal_error",
    "unsupported_media_type",
]

logger = logging.getLogger("slotwise.http")

REQUEST_ID: ContextVar[str] = ContextVar("slotwise_request_id", default="-")
"""The id of the request being served (logged, and returned as ``X-Request-Id``)."""


class ErrorBody(msgspec.Struct, kw_only=True, omit_defaults=True):
    """
    The body of every error answer (decision 40): ``field`` is always there (decision 44),
    ``null`` when the refusal names no field.
    """

    code: str
    message: str
    field: str | None
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
    # Decision 44: a client reads ``field`` without first asking whether it is there.
    body = {"code": body["code"], "message": body["message"], "field": None, **body}
    return Response(content=_safe(body), status_code=status, media_type=_JSON, headers=headers)


WIRE_NAMES: Final = "slotwise_wire_names"
"""The key of a route handler's ``opt`` holding its Python name -> wire name map."""
CHOICES: Final = "slotwise_choices"
"""The key of a route handler's ``opt`` holding the accepted values of its fixed-choice fields."""

BODY: Final = "body"
"""The wire name of a route's whole body; a path inside it is named from its root."""
ITEM_ID: Final = "[id]"
"""The key, in a route's wire names, of the body items' id key where the operation takes
``(id, changes)`` pairs (no Python name is spelt so)."""

_AS_SENT: Final = "_slotwise_as_sent"


def as_sent(error: SlotwiseError) -> SlotwiseError:
    """
    Mark *error* as naming its field exactly as the request did (a key the client sent).

    The HTTP layer's own refusals (an unknown body field or query parameter) quote the client;
    renaming ``max_capacity`` to ``maxCapacity`` there would name a key the client never sent.
    """
    error.__dict__[_AS_SENT] = True
    return error


def route_names(request: Request[Any, Any, Any]) -> Mapping[str, str]:
    """Return the Python name -> wire name map of the route serving *request* (empty if none)."""
    # A 404 or 405 has no route handler in its scope.
    served = request.scope.get("route_handler")
    names = served.opt.get(WIRE_NAMES) if served is not None else None
    return names if isinstance(names, Mapping) else {}


def on_slotwise_error(request: Request[Any, Any, Any], error: SlotwiseError) -> Response[Any]:
    """Answer a slotwise error with its class's status and its data, in wire names."""
    if isinstance(error, NotAuthenticated | Unauthorized):
        # Decision 39: a 401 says which of the two it is and nothing else about the records.
        body: dict[str, Any] = {"code": error.code, "message": error.message}
        if isinstance(error, Unauthorized):
            body.update(error.to_dict())
        return _answer(401, on_the_wire(body, route_names(request)))
    status = error.http_status
    if status == 500:
        logger.error("store failure (request %s): %s", REQUEST_ID.get(), error)
    body = error.to_dict()
    if error.__dict__.get(_AS_SENT):
        return _answer(status, body)
    names = route_names(request)
    allowed = body.get("allowed")
    if isinstance(allowed, list | tuple) and isinstance(error, UnexpectedField):
        body["allowed"] = [wire_path(str(name), names) for name in allowed]
    return _answer(status, on_the_wire(body, names, error.mentions))


_SNAKE: Final = re.compile(r"(?<![\w'\"])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w'\"])")
_NAME = re.compile(r"(?<![\w'\"])([a-z][a-z0-9]*(?:_[a-z0-9]+)+|start|end)(?![\w'\"])")
_HEAD: Final = re.compile(r"([^.\[]*)(.*)", re.S)
_ROOT_KEY: Final = re.compile(r"\['([A-Za-z_]\w*)'\]")
_ITEM: Final = re.compile(r"\[\d+\]")
_PAIR: Final = re.compile(r"(\[\d+\])\[([01])\]")


def wire_field(field: str) -> str:
    """
    Return the field path of an error as the wire names it (``repeat.month_day`` ->
    ``repeat.monthDay``, ``start`` -> ``startDateTime``); keys in brackets stay as sent.
    """
    return _NAME.sub(lambda match: wire_name(None, match.group(1)), field)


def wire_path(field: str, names: Mapping[str, str]) -> str:
    """
    Return the field path *field* as the client wrote it: its head by the route's own names
    (a path placeholder, a query parameter, a body field), the rest by the records' names.
    """
    head, rest = _HEAD.match(field).groups()  # type: ignore[union-attr]
    wire = names.get(head) or wire_field(head)
    if wire == BODY and rest:
        return _in_body(rest, names)
    return wire + wire_field(rest)


def _in_body(path: str, names: Mapping[str, str]) -> str:
    """
    Return the path *path* inside a whole body as JSON names it from the body's root, as the
    decoder does: ``['mon'].start_time`` -> ``mon.startTime``, ``[1].timezone`` ->
    ``[1].timezoneId``; an ``(id, changes)`` pair is the item itself (``[1][0]`` -> ``[1].id``).
    """
    item = ""
    pair = _PAIR.match(path)
    if pair and ITEM_ID in names:
        item, path = pair.group(1), path[pair.end() :]
        if pair.group(2) == "0":
            path = "." + names[ITEM_ID] + path
    else:
        index = _ITEM.match(path)
        if index:
            item, path = index.group(0), path[index.end() :]
    key = _ROOT_KEY.match(path)
    if key:
        path = key.group(1) + path[key.end() :]
    path = path.removeprefix(".")
    head, rest = _HEAD.match(path).groups()  # type: ignore[union-attr]
    named = (names.get(head) or wire_field(head)) + wire_field(rest) if head else wire_field(rest)
    return f"{item}.{named}" if item and named and named[0] != "[" else item + named


def wire_text(message: str, names: Mapping[str, str]) -> str:
    """Return *message* with every Python name in it (``max_capacity``) in its wire form."""
    return _SNAKE.sub(
        lambda match: names.get(match.group(1)) or wire_name(None, match.group(1)), message
    )


def _word(name: str) -> re.Pattern[str]:
    """Return a pattern matching *name* standing alone (not inside a word or a quote)."""
    return re.compile(rf"(?<![\w'\"]){re.escape(name)}(?![\w'\"])")


def on_the_wire(
    body: dict[str, Any], names: Mapping[str, str], mentions: Sequence[str] = ()
) -> dict[str, Any]:
    """
    Return the error *body* with its field and message in wire names (decision 44).

    Errors name Python arguments (the library's callers); HTTP callers sent camelCase body
    fields, query parameters and path placeholders, and read only those names. *mentions* are
    the other fields the message names (``start`` beside the field ``end``).
    """
    message = str(body["message"])
    field = body.get("field")
    if isinstance(field, str):
        wire = wire_path(field, names)
        if wire != field:
            body["field"] = wire
            head = _HEAD.match(field).group(1)  # type: ignore[union-attr]
            wire_head = _HEAD.match(wire).group(1)  # type: ignore[union-attr]
            # The whole path first (``repeat.month_day``), then its head wherever it stands as
            # a word (``end`` in "endTime" is no name of its own).
            message = _word(field).sub(lambda _: wire, message)
            # A path inside a whole body has no head of the client's (``[1].timezone``).
            inside = names.get(head) == BODY and head != field
            if head and head != wire_head and not inside:
                message = _word(head).sub(lambda _: wire_head, message)
    for mentioned in mentions:
        if mentioned != field:
            # Not inside a path already renamed (``days['mon'].start_time``).
            pattern = rf"(?<![\w'\".\]]){re.escape(mentioned)}(?![\w'\"])"
            message = re.sub(pattern, wire_path(mentioned, names), message)
    body["message"] = wire_text(message, names)
    if isinstance(body.get("allowed"), str):
        # A limit may name another argument ("at most 366 days from start_date ...").
        body["allowed"] = wire_text(body["allowed"], names)
    return body


_HTTP_CODES: Final = {
    404: ("NOT-FOUND", "no such path"),
    405: ("METHOD-NOT-ALLOWED", "method not allowed on this path"),
    413: ("PAYLOAD-TOO-LARGE", "request body over the size limit"),
    415: ("UNSUPPORTED-MEDIA-TYPE", "unsupported media type"),
}


def on_http_error(request: Request[Any, Any, Any], error: HTTPException) -> Response[Any]:
    """Answer what Litestar refused before any operation ran, in the slotwise error shape."""
    status = error.status_code
    if status == 400:
        return on_slotwise_error(request, _validation_error(request, error))
    code, message = _HTTP_CODES.get(status, (f"HTTP-{status}", error.detail))
    body: dict[str, Any] = {"code": code, "message": message}
    if status == 415 and isinstance(error.extra, dict):
        # Decision 45: the answer names the types the route accepts (and what was sent).
        body.update(message=error.detail, **error.extra)
    # Keep what the refusal says about the path (405's Allow header, RFC 9110).
    headers = dict(error.headers or {})
    return _answer(status, body, headers)


Kind = Literal["unknown", "missing", "invalid"]


class Refusal(NamedTuple):
    """What msgspec's refusal of a value says: the field, the reason and its kind."""

    field: str
    message: str
    kind: Kind


_UNKNOWN: Final = re.compile(r"Object contains unknown field `([^`]*)`(?: - at `\$\.?(.*)`)?")
_MISSING: Final = re.compile(r"Object missing required field `([^`]*)`(?: - at `\$\.?(.*)`)?")
_LOCATED: Final = re.compile(r"(.*?) - at `\$\.?(.*)`$")


def read_refusal(message: str, container: str | None = None) -> Refusal:
    """
    Read a msgspec validation message (``Object contains unknown field `x` - at `$.a```,
    ``Expected `int`, got `str` - at `$.b```) as the field it names and why.

    *container* is where Litestar says the value was (``data`` for the body itself).
    """
    for pattern, kind in ((_UNKNOWN, "unknown"), (_MISSING, "missing")):
        named = pattern.match(message)
        if named:
            where = named.group(2) or (container if container not in (None, "data") else None)
            field = f"{where}.{named.group(1)}" if where else named.group(1)
            return Refusal(field=field, message=message, kind=kind)  # type: ignore[arg-type]
    located = _LOCATED.match(message)
    if located:
        message, container = located.group(1), located.group(2) or container
    field = container if container not in (None, "", "data") else "body"
    return Refusal(field=field, message=message, kind="invalid")


_EXPECTED: Final = re.compile(r"Expected `([^`]*)`, got `([^`]*)`")
_ENUM: Final = re.compile(r"Invalid enum value (.*)$")
_KINDS: Final = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "object": "an object",
    "array": "an array",
    "null": "null",
    "date": "a date (YYYY-MM-DD)",
    "datetime": "a date-time with an offset (RFC 3339)",
}


def _kind(text: str) -> str:
    """Return msgspec's name of a JSON type (``int | null``) in words."""
    return " or ".join(_KINDS.get(part.strip(), part.strip()) for part in text.split("|"))


class _Said(str):
    """A description standing where an error quotes a value it was not given."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def refusal_error(
    refused: Refusal,
    *,
    allowed: Sequence[str] = (),
    choices: Mapping[str, Any] | None = None,
    value: Any = None,
) -> SlotwiseError:
    """
    Return the typed slotwise error of a value msgspec (or Litestar) refused.

    Args:
        refused: what the refusal says (its field in wire names, as the client sent it).
        allowed: the fields accepted where an unknown one was sent.
        choices: the accepted values of fields with a fixed set of them, by wire name.
        value: the value sent, when it is known (a query parameter's text).
    """
    field = refused.field
    if refused.kind == "unknown":
        return as_sent(UnexpectedField(field=field, allowed=sorted(allowed)))
    if refused.kind == "missing":
        return as_sent(FieldRequired(field=field))
    enum = _ENUM.match(refused.message)
    if enum and choices and field in choices:
        raw = enum.group(1)
        quoted = len(raw) > 1 and raw[0] in "'\"" and raw[-1] == raw[0]
        sent = value if value is not None else (raw[1:-1] if quoted else _Said(raw))
        return as_sent(InvalidChoice(field=field, allowed=tuple(choices[field]), requested=sent))
    expected = _EXPECTED.match(refused.message)
    if expected:
        wanted, got = _kind(expected.group(1)), _Said(_kind(expected.group(2)))
    elif refused.message.startswith("JSON is malformed"):
        wanted, got = "a JSON document", _Said(refused.message.lower())
    else:
        wanted, got = "a valid value", _Said(refused.message.rstrip(".").lower())
    error = InvalidFormat(field=field, expected=wanted, value=value if value is not None else got)
    if value is None:
        error.value = None  # the description is not a value the client sent
    return as_sent(error)


def not_utf8(field: str, error: UnicodeDecodeError) -> SlotwiseError:
    """Return the refusal of JSON text whose bytes are not UTF-8 (RFC 8259 allows no other)."""
    byte = error.object[error.start]
    refused = InvalidFormat(
        field=field,
        expected="JSON text in UTF-8",
        value=_Said(f"byte {byte:#04x} at offset {error.start}, which is not UTF-8"),
    )
    refused.value = None  # the description is not a value the client sent
    return as_sent(refused)


def unsupported_media_type(sent: str | None, accepted: Sequence[str]) -> HTTPException:
    """Return the 415 refusal of a body sent as *sent* where only *accepted* types are read."""
    types = " or ".join(accepted)
    shown = f"{sent!r}" if sent else "no Content-Type"
    return HTTPException(
        status_code=415,
        detail=f"a request body must be sent as {types}, got {shown}",
        extra={"allowed": list(accepted), "requested": sent},
    )


def _validation_error(request: Request[Any, Any, Any], error: HTTPException) -> SlotwiseError:
    extras = error.extra if isinstance(error.extra, list) else []
    first = extras[0] if extras and isinstance(extras[0], dict) else {}
    message = str(first.get("message") or error.detail)
    names = route_names(request)
    key = first.get("key")
    key = names.get(key, key) if isinstance(key, str) else None
    if message.startswith("Missing required"):
        named = re.search(r"parameter '([^']+)'", message)
        return as_sent(FieldRequired(field=named.group(1) if named else str(key)))
    refused = read_refusal(message, key)
    served = request.scope.get("route_handler")
    choices = served.opt.get(CHOICES) if served is not None else None
    sent = request.query_params.get(refused.field) if first.get("source") == "query" else None
    return refusal_error(refused, choices=choices, value=sent)


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


def decode_error(
    error: msgspec.ValidationError,
    allowed: Sequence[str],
    choices: Mapping[str, Any] | None = None,
    body: Any = None,
) -> SlotwiseError:
    """
    Return the slotwise error of a body msgspec refused (an unknown field, a wrong type).

    *allowed* are the body's own keys; an unknown key inside a nested object of a body of
    type *body* lists that object's keys instead.
    """
    message = str(error)
    unknown = _UNKNOWN.match(message)
    if unknown and unknown.group(2) and body is not None:
        allowed = keys_at(body, unknown.group(2)) or allowed
    return refusal_error(read_refusal(message), allowed=allowed, choices=choices)
