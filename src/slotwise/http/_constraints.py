"""
The limits a request must keep, published in the OpenAPI document from what enforces them.

Nothing here is a second copy of a rule: a body field's keywords come from its record's attrs
validator (:data:`slotwise.model._checks.STATED`: ``maxLength`` of ``check_text``, ``minimum``
and ``maximum`` of ``check_int``, ``enum`` of ``check_choice``) and from the input rules every
operation applies by type (decision 36: ids 1..``ID_MAX`` characters, text up to ``TEXT_MAX``,
integers within +-2**53); a list's ``limit`` and ``offset`` from :mod:`slotwise.paging`.
:func:`publish` writes them into the schemas Litestar generated from the same declarations, so a
route added to the table gets its limits without a line here.

A schema cannot state every rule (a start before its end, an id of an existing record, a repeat
rule's weekday letters); those refusals stay 400s that the document lists.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, Final, Union, get_args, get_origin

import attrs
from litestar import Litestar
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Reference, RequestBody, Schema

from slotwise.model._checks import stated
from slotwise.operations._inputs import id_mode
from slotwise.operations._values import ID_MAX, TEXT_MAX
from slotwise.paging import MAX_LIMIT

from ._bodies import sources

__all__ = [
    "POINT_PATTERN",
    "QUERY_LIMITS",
    "TAKES_PATCH",
    "field_keywords",
    "publish",
    "query_keywords",
]

QUERY_LIMITS: Final = "slotwise_query_limits"
"""The key of a route handler's ``opt`` holding its query parameters' keywords, by wire name."""
BODY_OPTIONAL: Final = "slotwise_body_optional"
"""The key of a route handler's ``opt`` telling that no body at all is accepted (as ``{}``)."""
TAKES_PATCH: Final = "slotwise_takes_patch"
"""The key of a route handler's ``opt`` telling that its ``PUT`` also takes a JSON Patch."""
_PATCH_MEDIA: Final = "application/json-patch+json"

# Decision 36: no string holds a NUL. A required text also holds a character that is not white
# space (check_text's blank test); JSON Schema allows one pattern per schema, so both are one.
_NO_NUL: Final = r"^[^\x00]*$"
_NOT_BLANK: Final = r"^[^\x00]*[^\x00\s][^\x00]*$"

# ``nearestTo``: two numbers as JSON writes them (RFC 8259), latitude first. A pattern cannot
# state their ranges (-90..90, -180..180): the operation refuses those, 400 OUT-OF-RANGE.
_NUMBER: Final = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
POINT_PATTERN: Final = rf"^{_NUMBER},{_NUMBER}$"
"""The text of a ``latitude,longitude`` query value (``52.37,4.9``)."""

_INTEGER_BOUND: Final = 2**53
_ATTRIBUTES: Final = {
    "maxLength": "max_length",
    "minLength": "min_length",
    "minimum": "minimum",
    "maximum": "maximum",
    "pattern": "pattern",
    "enum": "enum",
}
_TEXT_KEYWORDS: Final = frozenset({"maxLength", "minLength", "pattern"})
_NUMBER_KEYWORDS: Final = frozenset({"minimum", "maximum"})


def _scalar(hint: Any) -> Any:
    """Return the one non-None type of *hint* (``str | None`` -> ``str``), or *hint*."""
    if get_origin(hint) is typing.Annotated:
        return _scalar(get_args(hint)[0])
    if get_origin(hint) in (Union, typing.get_origin(int | None)):
        members = [m for m in get_args(hint) if m is not type(None)]
        if len(members) == 1:
            return _scalar(members[0])
    return hint


def _typed(hint: Any, name: str) -> dict[str, Any]:
    """Return the keywords decision 36 states for a value of *hint* named *name*."""
    kind = _scalar(hint)
    if kind is str:
        if id_mode(name) == "id":
            return {"minLength": 1, "maxLength": ID_MAX, "pattern": _NO_NUL}
        return {"maxLength": TEXT_MAX, "pattern": _NO_NUL}
    if kind is int or kind is float:
        return {"minimum": -_INTEGER_BOUND, "maximum": _INTEGER_BOUND}
    return {}


def field_keywords(owner: type | None, name: str, hint: Any) -> dict[str, Any]:
    """Return the keywords of the field *name* (declared as *hint*) of a body for *owner*."""
    keywords = _typed(hint, name)
    if owner is not None and attrs.has(owner):
        attribute = attrs.fields_dict(owner).get(name)
        if attribute is not None and attribute.validator is not None:
            own = stated(attribute.validator)
            if own.get("pattern") == r"\S":
                own["pattern"] = _NOT_BLANK
            keywords.update(own)
    return keywords


def query_keywords(name: str, hint: Any, *, max_limit: int = MAX_LIMIT) -> dict[str, Any]:
    """Return the keywords of the query parameter *name* declared as *hint*."""
    if name == "offset":
        return {"minimum": 0, "maximum": _INTEGER_BOUND}
    if name == "limit":
        return {"minimum": 1, "maximum": max_limit}
    if name == "nearest_to":
        return {"pattern": POINT_PATTERN}
    return _typed(hint, name)


def _apply(schema: Schema | Reference | None, keywords: Mapping[str, Any]) -> None:
    """Set *keywords* on *schema*, or on the members of its ``oneOf`` of the fitting type."""
    if not isinstance(schema, Schema) or not keywords:
        return
    if schema.one_of:
        for member in schema.one_of:
            _apply(member, keywords)
        return
    if schema.type == OpenAPIType.STRING and schema.enum is None:
        wanted = _TEXT_KEYWORDS | {"enum"}
    elif schema.type in (OpenAPIType.INTEGER, OpenAPIType.NUMBER):
        wanted = _NUMBER_KEYWORDS | {"enum"}
    else:
        return
    if schema.format is not None:  # a date or date-time: its format is its rule
        return
    for keyword, value in keywords.items():
        if keyword in wanted:
            setattr(schema, _ATTRIBUTES[keyword], value)


def publish(app: Litestar) -> None:
    """Write the limits of every body field and query parameter into *app*'s OpenAPI document."""
    document = app.openapi_schema
    components = document.components.schemas if document.components else None
    by_title = {
        schema.title: schema
        for schema in (components or {}).values()
        if isinstance(schema, Schema) and schema.title
    }
    for struct, (owner, fields) in sources().items():
        schema = by_title.get(struct.__name__)
        if schema is None or not schema.properties:
            continue
        # The structs forbid unknown fields (decision 35); the document says so.
        schema.additional_properties = False
        for wire, (python, hint) in fields.items():
            _apply(schema.properties.get(wire), field_keywords(owner, python, hint))
    handlers = {
        handler.operation_id: handler
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        if QUERY_LIMITS in handler.opt
    }
    limits = {key: handler.opt[QUERY_LIMITS] for key, handler in handlers.items()}
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete"):
            operation = getattr(item, method, None)
            if operation is None or operation.operation_id not in limits:
                continue
            body = operation.request_body
            if handlers[operation.operation_id].opt.get(BODY_OPTIONAL) and body is not None:
                body.required = False
            if handlers[operation.operation_id].opt.get(TAKES_PATCH) and body is not None:
                _patch_apart(body)
            for parameter in operation.parameters or ():
                named = limits[operation.operation_id].get(getattr(parameter, "name", None))
                if named:
                    _apply(getattr(parameter, "schema", None), named)


def _patch_apart(body: RequestBody | Reference) -> None:
    """
    Describe a body that is fields or a JSON Patch as two media types (decision 45): the
    fields object as ``application/json``, the array of operations as
    ``application/json-patch+json`` (each is refused as the other).
    """
    if not isinstance(body, RequestBody) or _PATCH_MEDIA in body.content:
        return
    media = body.content["application/json"]
    schema = media.schema
    if not isinstance(schema, Schema) or not schema.one_of:
        return
    arrays = [m for m in schema.one_of if isinstance(m, Schema) and m.type == OpenAPIType.ARRAY]
    fields = [m for m in schema.one_of if m not in arrays]
    if not arrays:
        return
    body.content = {
        "application/json": OpenAPIMediaType(
            schema=Schema(one_of=fields, description=schema.description)
            if len(fields) > 1
            else fields[0]
        ),
        _PATCH_MEDIA: OpenAPIMediaType(schema=arrays[0]),
    }
