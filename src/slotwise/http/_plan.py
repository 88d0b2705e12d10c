"""
What one route's request carries, read from the operation's signature (the handler's plan).

Path placeholders fill the operation's leading parameters; on GET and DELETE the others are
query parameters; on POST and PUT they are body fields. :class:`Plan` also derives what the
error answers and the OpenAPI document need from the same reading: the wire name of every
input, the accepted values of fixed-choice fields and the query parameters' limits.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import Any, Final, Union, get_args, get_origin

import msgspec
from litestar import params as litestar_params

from slotwise.errors import (
    InvalidFormat,
    OutOfRange,
)
from slotwise.operations._inputs import required_keys, stripped
from slotwise.operations._values import INT_LIMIT
from slotwise.operations.services import CONSUMER_MAX_LIMIT
from slotwise.paging import MAX_LIMIT

from ._bodies import PatchOperation, body_struct, fields_of, input_type
from ._constraints import POINT_PATTERN, query_keywords
from ._errors import BODY, ITEM_ID
from ._routes import Route
from ._wire import camel, wire_name

__all__ = [
    "QUERY_READERS",
    "Plan",
    "integer_text",
    "query_parameter",
    "query_type",
    "signature_items",
    "union_members",
]

_PLACEHOLDER: Final = re.compile(r"{(\w+)}")
_JSON: Final = "application/json"
_PATCH: Final = "application/json-patch+json"


def signature_items(
    function: Callable[..., Any],
) -> list[tuple[str, Any, Any, inspect._ParameterKind]]:
    """Return (name, hint, default, kind) of *function*'s parameters, ``**fields`` expanded."""
    hints = typing.get_type_hints(function, include_extras=True)
    result: list[tuple[str, Any, Any, inspect._ParameterKind]] = []
    for parameter in list(inspect.signature(function).parameters.values())[1:]:
        hint = hints.get(parameter.name, Any)
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            declared = get_args(hint)[0] if get_origin(hint) is typing.Unpack else hint
            items = typing.get_type_hints(declared, include_extras=True)
            required = required_keys(declared, items)
            for key, item in items.items():
                default = inspect.Parameter.empty if key in required else None
                # Marked VAR_KEYWORD: a body field may share a path parameter's Python name
                # (a service allocation's ``service_id``, decision 45) without being it.
                result.append((key, stripped(item), default, inspect.Parameter.VAR_KEYWORD))
            continue
        result.append((parameter.name, hint, parameter.default, parameter.kind))
    return result


# -- query parameters -------------------------------------------------------------------------


def query_type(hint: Any) -> Any:
    """Return the type Litestar parses a query parameter declared as *hint* into."""
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        members = [m for m in get_args(hint) if m is not types.NoneType]
        sequences = [m for m in members if get_origin(m) in (Sequence, tuple, list)]
        if sequences or (str in members and len(members) > 1 and date in members):
            return str  # "a,b,c" or a date/date-time text: the operation reads it
        if len(members) == 1:
            return query_type(members[0])
        return input_type(hint)
    if origin in (Sequence, tuple, list):
        return str
    if hint is date or hint is datetime:
        return hint
    return input_type(hint)


def query_parameter(wire: str, *, required: bool) -> Any:
    if required:
        return litestar_params.QueryParameter(name=wire, required=True)
    return litestar_params.QueryParameter(name=wire, required=False, default=None)


# The integers of JSON (RFC 8259): an optional minus and digits without a leading zero. Litestar
# reads a query parameter leniently ("5.0", "1e3" as 5 and 1000); this is the text it may read.
_INTEGER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)")
_INTEGER_DIGITS: Final = len(str(INT_LIMIT))
INTEGER_TEXT: Final = "an integer: decimal digits, optionally after '-', without a leading zero"


def integer_text(text: str, *, field: str) -> str:
    """
    Return the query parameter text *text* when it is an integer as JSON writes one.

    Raises:
        InvalidFormat: naming *field* for anything else (``5.0``, ``1e3``, ``+5``, ``05``, ``''``).
        OutOfRange: naming *field* for more digits than an integer within +-2**53 has.
    """
    if _INTEGER.fullmatch(text) is None:
        raise InvalidFormat(field=field, expected=INTEGER_TEXT, value=text)
    if len(text.removeprefix("-")) > _INTEGER_DIGITS:
        # Decision 36's bound; the operation would refuse it too, had it been read.
        raise OutOfRange(field=field, allowed=f"within +-{INT_LIMIT}", requested=text)
    return text


_POINT: Final = re.compile(POINT_PATTERN)


def _point(text: str) -> tuple[float, float]:
    """
    Return ``nearestTo``'s ``latitude,longitude`` as two floats (JSON numbers: no ``+``, ``nan``,
    ``inf``, ``_`` or spaces); the operation checks their ranges, as for a Python caller.
    """
    if _POINT.fullmatch(text) is None:
        raise InvalidFormat(
            field="nearestTo", expected="'latitude,longitude' (two numbers)", value=text
        )
    latitude, longitude = (float(part) for part in text.split(","))
    return latitude, longitude


QUERY_READERS: Final[dict[str, Callable[[Any], Any]]] = {"nearest_to": _point}


# -- the handler ------------------------------------------------------------------------------


class Plan:
    """What one route's request carries, read from the operation's signature."""

    def __init__(self, route: Route, function: Callable[..., Any]) -> None:
        self.route = route
        parameters = signature_items(function)
        placeholders = _PLACEHOLDER.findall(route.path)
        if route.path_params is not None:
            path_python = list(route.path_params)
        else:
            path_python = [name for name, *_ in parameters[: len(placeholders)]]
        if route.company_in_path:
            placeholders = placeholders[:0]
        self.path = list(zip(placeholders, path_python, strict=True))
        self.positional = [
            name
            for name, _, _, kind in parameters
            if kind is inspect.Parameter.POSITIONAL_ONLY and name not in route.fixed
        ]
        rest = [
            p
            for p in parameters
            if (p[0] not in path_python or p[3] is inspect.Parameter.VAR_KEYWORD)
            and p[0] not in route.fixed
        ]
        has_body = route.method in ("POST", "PUT")
        self.query = [p for p in rest if not has_body or p[0] in route.query]
        self.body_items = [p for p in rest if has_body and p[0] not in route.query]
        self.query_names = {route.rename.get(name) or camel(name) for name, *_ in self.query}
        self.integers = {
            route.rename.get(name) or camel(name): name
            for name, hint, *_ in self.query
            if query_type(hint) is int
        }
        self.required = frozenset(
            name for name, _, default, _ in self.body_items if default is inspect.Parameter.empty
        )
        self.body: Any = None
        if self.body_items:
            self.body = self._body_type()
        self.wire = self._wire_names()
        self.choices = self._choices()

    def check_integers(self, sent: Callable[[str], Iterable[str]]) -> None:
        """
        Refuse an integer query parameter whose text is no JSON integer (see
        :func:`integer_text`); *sent* returns every value sent under a wire name.
        """
        for wire, name in self.integers.items():
            for text in sent(wire):
                integer_text(text, field=name)

    @property
    def allowed(self) -> list[str]:
        """The top-level body fields the route accepts, by wire name."""
        body = self.body if isinstance(self.body, type) else None
        if body is not None and issubclass(body, msgspec.Struct):
            return sorted(fields_of(body))
        for member in get_args(self.body):
            if isinstance(member, type) and issubclass(member, msgspec.Struct):
                return sorted(fields_of(member))
        return []

    def body_as(self, media: str | None) -> Any:
        """
        Return the type a body sent as *media* must have: where a PUT takes a patch, an
        ``application/json-patch+json`` body is a patch (an array of operations) and an
        ``application/json`` body the fields object, whatever shape the bytes have (decision 45).
        """
        if self.route.patch_from is None:
            return self.body
        struct, patch = get_args(self.body)
        return patch if media == _PATCH else struct

    @property
    def media_types(self) -> tuple[str, ...]:
        """The content types a body of this route may be sent as (decision 45)."""
        if self.route.patch_from is not None:
            return (_JSON, _PATCH)
        return (_JSON,)

    def _wire_names(self) -> dict[str, str]:
        """Return Python name -> the name the client wrote, for every input of the route."""
        route = self.route
        names: dict[str, str] = {}
        for name, *_ in self.body_items:
            names[name] = route.rename.get(name) or wire_name(route.record, name)
        # A list body's items have the fields of its struct (a bulk change's timezoneId).
        members = (
            get_args(self.body)
            if get_origin(self.body) in (Union, types.UnionType, list)
            else (self.body,)
        )
        for member in members:
            if isinstance(member, type) and issubclass(member, msgspec.Struct):
                names.update({python: wire for wire, python in fields_of(member).items()})
        if route.whole_body is not None:
            # Decision 44: a path inside the body is named from its root (``mon.startTime``).
            names[route.whole_body] = BODY
        if route.id_key is not None:
            names[ITEM_ID] = route.id_key
        for name, *_ in self.query:
            wire = route.rename.get(name) or camel(name)
            names[name] = names[f"q_{name}"] = wire
        for placeholder, python in self.path:
            names[python] = placeholder
        if route.company_in_path:
            names["company_id"] = "id"
        return names

    def query_limits(self) -> dict[str, dict[str, Any]]:
        """Return the JSON Schema keywords of each query parameter, by wire name."""
        most = CONSUMER_MAX_LIMIT if self.route.operation == "services.list_consumer" else MAX_LIMIT
        return {
            self.wire[name]: query_keywords(name, hint, max_limit=most)
            for name, hint, *_ in self.query
        }

    def _choices(self) -> dict[str, tuple[object, ...]]:
        """Return the accepted values of the query parameters and body fields with a fixed set."""
        choices: dict[str, tuple[object, ...]] = {}
        for name, hint, *_ in self.query:
            kind = query_type(hint)
            for member in union_members(kind):
                if get_origin(member) is typing.Literal:
                    choices[self.wire[name]] = get_args(member)
        body = self.body if isinstance(self.body, type) else None
        if body is not None and issubclass(body, msgspec.Struct):
            for field in msgspec.structs.fields(body):
                for member in union_members(field.type):
                    if get_origin(member) is typing.Literal:
                        choices[field.encode_name] = get_args(member)
        return choices

    def _body_type(self) -> Any:
        route = self.route
        name = "".join(part.title() for part in route.operation.replace(".", "_").split("_"))
        if route.whole_body is not None:
            (hint,) = [hint for key, hint, *_ in self.body_items if key == route.whole_body]
            if route.id_key is not None:
                changes = get_args(get_args(hint)[0])[1]
                items = {route.id_key: str, **typing.get_type_hints(changes, include_extras=True)}
                return list[body_struct(f"{name}Item", items, record=route.record, rename={})]  # type: ignore[misc]
            if route.whole_body == "days":
                from slotwise.model import WeeklyHours

                return input_type(WeeklyHours)
            return input_type(hint, owner=route.record)
        if "id" in route.rename.values():
            name += "WithId"  # the record's id in the body: another body than its path route's
        struct = body_struct(
            f"{name}Body",
            {key: hint for key, hint, *_ in self.body_items},
            record=route.record,
            rename=route.rename,
            required=self.required,
        )
        if route.patch_from is not None:
            return struct | list[PatchOperation]
        return struct


def union_members(kind: Any) -> tuple[Any, ...]:
    """Return the members of the union *kind* (or *kind* alone)."""
    if get_origin(kind) in (Union, types.UnionType):
        return get_args(kind)
    return (kind,)
