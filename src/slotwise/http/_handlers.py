"""
Litestar handlers built from the route table and the operations' signatures.

For each :class:`~._routes.Route` the operation's signature says what the request carries:
path placeholders fill its leading parameters; on GET and DELETE the other parameters are query
parameters; on POST and PUT they are fields of the JSON body (a ``**fields`` TypedDict's keys
included). :func:`handler` builds one function per route with that signature, so Litestar parses
and documents exactly what the operation accepts, and the function only calls the operation
and turns its answer into the spec's JSON.
"""

from __future__ import annotations

import inspect
import re
import typing
import warnings
from collections.abc import Callable, Mapping
from typing import Any, Final, get_args, get_origin

import msgspec
from litestar import Request
from litestar import params as litestar_params
from litestar import route as litestar_route
from litestar.datastructures import ResponseHeader
from litestar.enums import RequestEncodingType
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec

from slotwise.errors import (
    FieldRequired,
    NotFound,
    Unauthorized,
    UnexpectedField,
)
from slotwise.operations._values import too_deep
from slotwise.paging import Page
from slotwise.scheduler import Scheduler, Workspace

from ._bodies import PatchOperation, to_python
from ._constraints import BODY_OPTIONAL, QUERY_LIMITS, TAKES_PATCH
from ._documents import encode, page_type
from ._errors import (
    CHOICES,
    WIRE_NAMES,
    ErrorBody,
    Refusal,
    as_sent,
    decode_error,
    not_utf8,
    refusal_error,
    unsupported_media_type,
)
from ._lookups import StoreLookups
from ._patching import patched
from ._plan import QUERY_READERS, Plan, query_parameter, query_type
from ._routes import Route
from ._threads import Offload
from ._wire import Lookups, camel, shape, wire_type

__all__ = ["handler", "operation_of"]

_PLACEHOLDER: Final = re.compile(r"{(\w+)}")
EXTENSIONS_TAG: Final = "slotwise extensions"
"""The OpenAPI tag of every path that is slotwise's, not the spec's (decision 46)."""
_BODY_STATE: Final = "slotwise_body"
_WORKSPACE: Final = "slotwise_workspace"
_WITH_URL: Final = frozenset({"AvailableTimes", "DayAvailability", "UnavailableTimes"})

_BODY_TEXT: Final = "JSON object of the fields to set; unknown fields are refused (400)."
_PATCH_TEXT: Final = (
    "JSON object of the fields to change, or an RFC 6902 JSON Patch (an array of operations, "
    "sent as application/json-patch+json) applied to the record as GET returns it."
)

ERROR_RESPONSES: Final = {
    400: "The request is invalid: a field, a parameter or the body (see code and field).",
    401: "Not authenticated (no, unknown, expired or revoked token) or unauthorized "
    "(a record outside the token's company or locations).",
    404: "No record has that id.",
    409: "The record's state forbids the operation, or the slot is taken.",
    413: "The request body is over the size limit.",
    500: "Unexpected failure; the body carries an error id that is also logged.",
    501: "A feature the server was not set up with (an external calendar provider, an extra).",
    503: "The store cannot be reached.",
}


_UNSUPPORTED_MEDIA: Final = (
    "The body is not sent as a type the operation reads (decision 45: JSON, or a JSON Patch "
    "where the PUT takes one); allowed lists the accepted types."
)


def error_responses(*, reads_body: bool = False) -> dict[int, ResponseSpec]:
    """
    Return the documented error answers a route may give (decision 40); a route that reads a
    body may also answer 415.
    """
    texts = {**ERROR_RESPONSES, 415: _UNSUPPORTED_MEDIA} if reads_body else ERROR_RESPONSES
    return {
        status: ResponseSpec(data_container=ErrorBody, description=text)
        for status, text in sorted(texts.items())
    }


def operation_of(route: Route, probe: Workspace) -> Callable[..., Any]:
    """Return the unbound method serving *route* (for its signature)."""
    if route.group == "scheduler":
        return getattr(Scheduler, route.method_name)  # type: ignore[no-any-return]
    return getattr(type(getattr(probe, route.group)), route.method_name)  # type: ignore[no-any-return]


def handler(
    route: Route,
    scheduler: Scheduler,
    authenticate: Callable[[Request[Any, Any, Any]], Workspace],
    offload: Offload,
) -> HTTPRouteHandler:
    """
    Return the Litestar handler serving *route* with *scheduler*'s operations.

    *authenticate* returns the workspace of the request's principal (or raises
    ``NotAuthenticated``); platform calls (``scheduler.<method>``) also need a token, of a
    principal that is not limited to some locations (decision 37). The token's read, the
    operation and the answer's conversion run on one of *offload*'s threads, off the loop.
    """
    probe = scheduler.as_principal(None)
    function = operation_of(route, probe)
    plan = Plan(route, function)
    signature: list[inspect.Parameter] = []
    keyword = inspect.Parameter.KEYWORD_ONLY
    path_text = typing.Annotated[str, litestar_params.PathParameter()]
    for placeholder, _ in plan.path:
        signature.append(inspect.Parameter(placeholder, keyword, annotation=path_text))
    if route.company_in_path:
        signature.append(inspect.Parameter("id", keyword, annotation=path_text))
    for name, hint, default, _ in plan.query:
        wire = route.rename.get(name) or camel(name)
        required = default is inspect.Parameter.empty
        kind = query_type(hint)
        annotation = kind if required else kind | None
        parameter = query_parameter(wire, required=required)
        signature.append(
            inspect.Parameter(f"q_{name}", keyword, annotation=annotation, default=parameter)
        )
    if plan.body is not None:
        described = litestar_params.Body(
            media_type=RequestEncodingType.JSON,
            description=_BODY_TEXT if route.patch_from is None else _PATCH_TEXT,
        )
        if plan.required or route.whole_body is not None:
            body = typing.Annotated.__class_getitem__((plan.body, described))  # type: ignore[attr-defined]
            signature.append(inspect.Parameter("data", keyword, annotation=body))
        else:
            # Every field optional: no body at all is the same as {} (PUT .../reserve).
            body = typing.Annotated.__class_getitem__((plan.body | None, described))  # type: ignore[attr-defined]
            signature.append(inspect.Parameter("data", keyword, annotation=body, default=None))
    signature.append(inspect.Parameter("request", keyword, annotation=Request))
    returns = _response_type(typing.get_type_hints(function).get("return", Any))

    def run(**values: Any) -> Any:
        request: Request[Any, Any, Any] = values.pop("request")
        state = request.scope["state"]
        workspace = state[_WORKSPACE] if _WORKSPACE in state else authenticate(request)
        principal = workspace.principal
        # Read lazily, once per request, from the company's cached configuration.
        lookups = StoreLookups(
            scheduler.store,
            scheduler.configuration_cache,
            None if principal is None else principal.company_id,
        )
        _refuse_unknown_query(request, plan.query_names)
        if route.company_in_path and (principal is None or values["id"] != principal.company_id):
            raise Unauthorized(field="id", value=values["id"])
        arguments = dict(route.fixed)
        for placeholder, python in plan.path:
            arguments[python] = values[placeholder]
        for name, *_ in plan.query:
            given = values[f"q_{name}"]
            if given is not None:
                reader = QUERY_READERS.get(name)
                arguments[name] = reader(given) if reader else given
        body: dict[str, Any] = {}
        if plan.body is not None:
            data = request.scope["state"].get(_BODY_STATE, values.get("data"))
            body = _body(route, plan, workspace, arguments, data, lookups)
        if route.group == "scheduler":
            if principal is None or principal.location_ids is not None:
                raise Unauthorized(field="authorization", value="a location-limited token")
            call = getattr(scheduler, route.method_name)
        else:
            call = getattr(getattr(workspace, route.group), route.method_name)
        named = {**body, **arguments}
        # Path values fill the positional parameters first; a body field of the same Python
        # name (a service allocation's ``service_id``) stays a keyword for the operation.
        positional = [
            arguments.pop(name) if name in arguments else body.pop(name)
            for name in plan.positional
            if name in arguments or name in body
        ]
        arguments.update(body)
        try:
            if route.deprecated:
                # The client is told by the Deprecation header; the server's log stays quiet.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    result = call(*positional, **arguments)
            else:
                result = call(*positional, **arguments)
        except NotFound as error:
            _locate(error, named)
            raise
        return _respond(result, request, lookups)

    async def serve(**values: Any) -> Any:
        return await offload.run(run, **values)

    async def read_body(request: Request[Any, Any, Any]) -> None:
        """Refuse a body of another media type (415), or of a value off its type (strict)."""
        # Who is asking comes first: a request without a valid token learns nothing more.
        # The token's read is a store read: on a worker thread, as the operation's.
        request.scope["state"][_WORKSPACE] = await offload.run(authenticate, request)
        raw = await request.body()
        sent = request.headers.get("content-type")
        media = sent.partition(";")[0].strip().lower() if sent else None
        if not raw and media is None:
            if plan.required or route.whole_body is not None:
                raise FieldRequired(field="body")
            return
        if media not in plan.media_types:
            raise unsupported_media_type(sent, plan.media_types)
        # Litestar converts a body leniently ("30" for an integer); docs/http.md promises the
        # JSON types as declared, so the body is decoded strictly here, once, for the handler.
        # A patch is an array of operations (RFC 6902): null is no patch.
        optional = not plan.required and route.whole_body is None and media == "application/json"
        body = plan.body_as(media)
        try:
            # An optional body may also be JSON null: no fields, as an empty body.
            decoded = msgspec.json.decode(raw, type=body | None if optional else body, strict=True)
        except msgspec.ValidationError as error:
            raise decode_error(error, plan.allowed, plan.choices, body) from None
        except msgspec.DecodeError as error:
            raise refusal_error(Refusal("body", str(error), "invalid")) from None
        except UnicodeDecodeError as error:
            # JSON text is UTF-8 (RFC 8259): other bytes are the client's error, not ours.
            raise not_utf8("body", error) from None
        except RecursionError:
            # Nested deeper than the decoder goes (well past decision 36's limit): refused
            # like any input too deep, not a server failure.
            raise too_deep("body") from None
        request.scope["state"][_BODY_STATE] = decoded

    async def before(request: Request[Any, Any, Any]) -> None:
        """Read the body (see ``read_body``), then check the integer query parameters' text."""
        if plan.body is not None:
            await read_body(request)
        # Before Litestar converts them (it reads "5.0" as 5): one check for every route.
        plan.check_integers(lambda wire: request.query_params.getall(wire, []))

    serve.__name__ = route.operation.replace(".", "_") + "_" + route.method.lower()
    serve.__doc__ = function.__doc__
    serve.__signature__ = inspect.Signature(signature, return_annotation=returns)  # type: ignore[attr-defined]
    serve.__annotations__ = {p.name: p.annotation for p in signature} | {"return": returns}
    responses = error_responses(reads_body=plan.body is not None)
    headers = [ResponseHeader(name="Deprecation", value="true")] if route.deprecated else None
    hooks = {"before_request": before} if plan.body is not None or plan.integers else {}
    opt = {
        WIRE_NAMES: plan.wire,
        CHOICES: plan.choices,
        QUERY_LIMITS: plan.query_limits(),
        BODY_OPTIONAL: plan.body is not None and not plan.required and route.whole_body is None,
        TAKES_PATCH: route.patch_from is not None,
    }
    return route_decorator(route, responses, headers, opt=opt, **hooks)(serve)


def _locate(error: NotFound, arguments: Mapping[str, Any]) -> None:
    """Name the input that carried the id of a record that was not found (decision 44)."""
    if getattr(error, "field", None) is not None:
        return
    for name, value in arguments.items():
        if value == error.record_id or (
            isinstance(value, str | list | tuple) and error.record_id in _ids(value)
        ):
            error.field = name  # type: ignore[attr-defined]
            return
        if isinstance(value, list | tuple):
            # A bulk update's (id, changes) pairs: the item whose id it was (``[1].id``).
            for index, item in enumerate(value):
                if isinstance(item, tuple) and item and item[0] == error.record_id:
                    error.field = f"{name}[{index}][0]"  # type: ignore[attr-defined]
                    return


def _ids(value: str | list[Any] | tuple[Any, ...]) -> list[Any]:
    return value.split(",") if isinstance(value, str) else list(value)


def route_decorator(
    route: Route,
    responses: dict[int, ResponseSpec],
    headers: list[ResponseHeader] | None,
    **options: Any,
) -> Callable[[Callable[..., Any]], HTTPRouteHandler]:
    """Return the Litestar decorator of *route* (*options*: more of Litestar's arguments)."""
    placeholders = _PLACEHOLDER.sub(lambda m: "{" + m.group(1) + ":str}", route.path)
    return litestar_route(
        placeholders,
        http_method=[route.method],
        status_code=route.status,
        summary=route.summary,
        description=route.summary
        + (" (a slotwise extension; not in the specification)" if route.extension else ""),
        operation_id=f"{route.operation.replace('.', '_')}_{route.method.lower()}_"
        + re.sub(r"\W+", "_", route.path).strip("_"),
        tags=[_tag(route), EXTENSIONS_TAG] if route.extension else [_tag(route)],
        deprecated=route.deprecated,
        responses=responses,
        response_headers=headers,
        name=f"{route.method} {route.path}",
        **options,
    )


def _tag(route: Route) -> str:
    parts = route.path.strip("/").split("/")
    interface = "consumer" if parts[0] == "consumer" else "setup"
    topic = parts[2] if len(parts) > 2 and parts[1] == "v1" else parts[1]
    return f"{interface}: {topic}"


def _refuse_unknown_query(request: Request[Any, Any, Any], allowed: set[str]) -> None:
    for key in request.query_params:
        if key not in allowed:
            raise as_sent(UnexpectedField(field=key, allowed=sorted(allowed)))


def _body(
    route: Route,
    plan: Plan,
    workspace: Workspace,
    arguments: dict[str, Any],
    data: Any,
    lookups: Lookups,
) -> dict[str, Any]:
    if data is None:  # no body where every field is optional: as {}
        return {}
    if (
        isinstance(data, list)
        and route.patch_from is not None
        and all(isinstance(operation, PatchOperation) for operation in data)
    ):
        # An empty patch ([]) changes nothing: the record's own fields, written back.
        data = patched(route, plan, workspace, arguments, data, lookups)
    if route.whole_body is not None:
        value = to_python(data)
        if route.id_key is not None:
            value = [(item.pop(route.id_key, None), item) for item in value]
        return {route.whole_body: value}
    fields: dict[str, Any] = to_python(data)
    return fields


def _respond(result: Any, request: Request[Any, Any, Any], lookups: Lookups) -> Any:
    """Return the JSON of *result*; ``None`` for no result (the route's empty answer)."""
    if result is None:
        return None
    if isinstance(result, Page) or type(result).__name__ in _WITH_URL:
        return encode(result, lookups, url=_url(request))
    return encode(result, lookups)


def _url(request: Request[Any, Any, Any]) -> str:
    """The path and query the request was sent to (what a page's ``url`` names)."""
    url = request.url
    return str(url.path) + (f"?{url.query}" if url.query else "")


def _response_type(hint: Any) -> Any:
    origin = get_origin(hint)
    if origin is Page:
        (item,) = get_args(hint)
        return page_type(wire_type(item))
    if isinstance(hint, type) and hint.__name__ in _WITH_URL:
        base = shape(hint).struct
        fields = [(f.encode_name, f.type) for f in msgspec.structs.fields(base)]
        return msgspec.defstruct(f"{hint.__name__}Response", [*fields, ("url", str)], kw_only=True)
    return wire_type(hint)
