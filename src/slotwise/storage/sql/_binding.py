"""
A statement's final SQL text and its parameters in the driver's style, for the reads and writes
``SQLStore`` runs below SQLAlchemy's execution layer (``_riding``).

SQLAlchemy compiles a statement once (its compiled cache), but every execution still constructs
the parameters of the compiled form, expands each ``IN`` list into one parameter per value and
renders the SQL text again for it (``construct_expanded_state``), then looks up and applies each
parameter's conversion: tens of microseconds a statement, more than binding the values costs the
driver. What that work produces depends only on the statement and its shape -- the names of the
values given and the length of each list among them -- so it is done once per shape and kept as
a *plan*: the final SQL text and, per parameter in the driver's order, where its value comes from
(a given value, an item of a given list, or a constant the statement holds) and its conversion.
A call then only picks the values and converts them.

The plan is derived by running SQLAlchemy's own expansion once on stand-in values (``_Probe``) and
reading back where each one landed, so it follows whatever SQLAlchemy renders; a shape whose
expansion is not a plain placement of values (a literal-rendered or tuple ``IN`` list, a list
value bound whole) is not planned and takes SQLAlchemy's path on every call, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection

__all__ = ["bound"]

# Per (statement, value names, list lengths, schema map, dialect): a plan, or None where the
# shape cannot be planned. The statement itself is the key (kept alive: an id could be reused);
# so is the engine's dialect instance, not its name: the driver's parameter style and the
# server's version (MariaDB or MySQL) decide the text.
_PLANS: dict[tuple[Any, ...], _Plan | None] = {}
_COMPILED: dict[tuple[Any, ...], Any] = {}
_LIMIT = 1024


class _Probe:
    """Stands in for the value *name* (item *index* of it when it is a list) while planning."""

    __slots__ = ("index", "name")

    def __init__(self, name: str, index: int | None) -> None:
        self.name = name
        self.index = index


# (value name, item index or None, constant) -- the name None for a constant -- and the
# conversion of the parameter, in the driver's order.
_Step = tuple[str | None, int | None, Any, Callable[[Any], Any] | None]


class _Plan:
    """The final SQL of one statement shape and how its parameters are made from the values."""

    __slots__ = ("names", "positional", "sql", "steps")

    def __init__(
        self, sql: str, names: tuple[str, ...], steps: tuple[_Step, ...], positional: bool
    ):
        self.sql = sql
        self.names = names
        self.steps = steps
        self.positional = positional

    def parameters(self, values: dict[str, Any]) -> Any:
        """The parameters of one call with *values*: a tuple (positional styles) or a dict."""
        made = []
        for name, index, constant, convert in self.steps:
            if name is None:
                made.append(constant)  # converted when planned
                continue
            value = values[name] if index is None else values[name][index]
            made.append(value if convert is None else convert(value))
        if self.positional:
            return tuple(made)
        return dict(zip(self.names, made, strict=True))


def bound(conn: Connection, statement: Any, values: dict[str, Any]) -> tuple[str, Any]:
    """*statement*'s SQL for *conn* and its parameters, converted and in the driver's style."""
    translate = conn.get_execution_options().get("schema_translate_map") or {}
    schema = tuple(sorted(translate.items(), key=repr)) if translate else ()
    lengths = tuple(len(v) if isinstance(v, list | tuple) else -1 for v in values.values())
    key = (statement, tuple(values), lengths, schema, conn.dialect)
    try:
        plan = _PLANS[key]
    except KeyError:
        plan = _plan(_compiled(conn, statement, values, translate, schema), values)
        if len(_PLANS) >= _LIMIT:
            _PLANS.clear()
        _PLANS[key] = plan
    if plan is not None:
        return plan.sql, plan.parameters(values)
    return _expanded(_compiled(conn, statement, values, translate, schema), values)


def _compiled(
    conn: Connection,
    statement: Any,
    values: dict[str, Any],
    translate: dict[Any, Any],
    schema: tuple[Any, ...],
) -> Any:
    """*statement* compiled for *conn* (the store's schema written in), once per value names."""
    key = (statement, tuple(values), schema, conn.dialect)
    compiled = _COMPILED.get(key)
    if compiled is None:
        if len(_COMPILED) >= _LIMIT:
            _COMPILED.clear()
        compiled = _COMPILED[key] = statement.compile(
            dialect=conn.dialect,
            column_keys=list(values),
            schema_translate_map=translate or None,
            render_schema_translate=bool(translate),
        )
    return compiled


def _expanded(compiled: Any, values: dict[str, Any]) -> tuple[str, Any]:
    """SQLAlchemy's own expansion and conversion of *values*, as when it runs the statement."""
    # IN lists expanded to one parameter per value, as SQLAlchemy does when it runs one.
    expanded = compiled.construct_expanded_state(values)
    parameters = dict(expanded.parameters)
    # The columns' own conversions (Instant to UTC), as SQLAlchemy applies them.
    for convert_all in (compiled._bind_processors, expanded.processors):
        for name, convert in convert_all.items():
            if name in parameters:
                parameters[name] = convert(parameters[name])
    if expanded.positiontup is not None:  # qmark/format: positional (a tuple, as SQLAlchemy's)
        return expanded.statement, tuple(parameters[name] for name in expanded.positiontup)
    return expanded.statement, parameters


def _plan(compiled: Any, values: dict[str, Any]) -> _Plan | None:
    """The plan of *compiled* for values shaped as *values*, or ``None`` if it has none."""
    if compiled.literal_execute_params:
        return None  # rendered into the SQL text per value: no fixed text
    probes: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, list | tuple):
            if any(isinstance(item, list | tuple) for item in value):
                return None  # a tuple IN list
            probes[name] = [_Probe(name, index) for index in range(len(value))]
        else:
            probes[name] = _Probe(name, None)
    try:
        expanded = compiled.construct_expanded_state(probes)
    except Exception:
        return None
    placed = dict(expanded.parameters)
    names = tuple(expanded.positiontup or placed)
    steps: list[_Step] = []
    for name in names:
        value = placed[name]
        converts = [
            convert
            for convert in (compiled._bind_processors.get(name), expanded.processors.get(name))
            if convert is not None
        ]
        if isinstance(value, _Probe):
            steps.append((value.name, value.index, None, _chain(converts)))
        elif _holds_probe(value):
            return None  # a list bound whole, not expanded
        else:
            for convert in converts:  # a constant of the statement: converted once
                value = convert(value)
            steps.append((None, None, value, None))
    return _Plan(expanded.statement, names, tuple(steps), expanded.positiontup is not None)


def _holds_probe(value: Any) -> bool:
    return isinstance(value, list | tuple | dict) and any(
        isinstance(item, _Probe) or _holds_probe(item)
        for item in (value.values() if isinstance(value, dict) else value)
    )


def _chain(converts: list[Callable[[Any], Any]]) -> Callable[[Any], Any] | None:
    """One conversion applying *converts* in order (``None`` for none)."""
    if not converts:
        return None
    if len(converts) == 1:
        return converts[0]
    first, second = converts

    def both(value: Any) -> Any:
        return second(first(value))

    return both
