"""
One row of the route table: a method and path of the HTTP interface and the operation serving it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import attrs

__all__ = ["CONSUMER", "SETUP", "Method", "Route", "row"]

Method = Literal["GET", "POST", "PUT", "DELETE"]


@attrs.frozen(kw_only=True)
class Route:
    """One method and path of the HTTP interface and the operation that serves it."""

    method: Method
    path: str
    operation: str
    """``"<workspace attribute>.<method>"``, or ``"scheduler.<method>"`` for platform calls."""
    summary: str
    path_params: tuple[str, ...] | None = None
    """The Python parameters the path placeholders fill, in order (default: the leading ones)."""
    fixed: Mapping[str, object] = attrs.field(factory=dict)
    """Arguments the path itself implies (the calendar provider of an authorization path)."""
    query: frozenset[str] = frozenset()
    """Parameters read from the query string although the method has a body."""
    whole_body: str | None = None
    """The parameter that receives the whole body (a weekday object, a list) instead of fields."""
    id_key: str | None = None
    """The key of each item of a list body that holds its record's id: the operation takes
    ``(id, changes)`` pairs (a bulk change)."""
    record: type | None = None
    """The record the operation creates or changes: its spec names apply to the body."""
    rename: Mapping[str, str] = attrs.field(factory=dict)
    """Wire names of this operation's parameters that are not their camelCase form."""
    patch_from: str | None = None
    """The operation reading the record a JSON Patch body applies to (updates only)."""
    status: int = 200
    deprecated: bool = False
    company_in_path: bool = False
    """The path's ``{id}`` names the caller's own company (any other id is unauthorized)."""
    extension: bool = False
    """Not in the spec: a slotwise path (update and delete of groups, for instance)."""

    @property
    def group(self) -> str:
        """The workspace attribute serving this route (``scheduler`` for platform calls)."""
        return self.operation.partition(".")[0]

    @property
    def method_name(self) -> str:
        """The operation's method name."""
        return self.operation.partition(".")[2]


def row(method: Method, path: str, operation: str, summary: str, **options: object) -> Route:
    """Return the route of *method* and *path* served by *operation* (options: ``Route`` fields)."""
    return Route(method=method, path=path, operation=operation, summary=summary, **options)  # type: ignore[arg-type]


CONSUMER: Final = "/consumer/v1"
SETUP: Final = "/setup/v1"
