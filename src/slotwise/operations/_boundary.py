"""
The boundary every operation passes: its signature is its declaration, checked on every call.

:func:`operations` decorates a class of operations (``ServiceOperations``, ...): each public
method is wrapped so that, before its body runs and before any store is touched,

1. a workspace without a principal raises ``NotAuthenticated`` (decision 37);
2. the arguments are bound to the method's signature: an unknown keyword, a keyword of the
   ``**fields: Unpack[SomeFields]`` TypedDict that it does not declare (``id``, ``company_id``,
   ``location_id`` on an update: decision 35), or a positional argument too many raises
   ``UnexpectedField`` naming it; a missing required one raises ``FieldRequired``;
3. each given value is converted by the rule of its annotation (:mod:`._inputs`), so the body
   receives only the declared types within decision 36's bounds.

The declaration is read from the annotations once, at the first call, so a new operation gets
the whole boundary by being written with honest type hints.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar, cast, get_args, get_origin

import attrs

from slotwise.errors import FieldRequired, NotAuthenticated, UnexpectedField

from ._inputs import (
    IDENTITY_FIELDS,
    Converter,
    changes_in_part,
    converter,
    required_keys,
    stripped,
)

__all__ = ["IDENTITY_FIELDS", "declared", "is_declared", "operations"]

logger = logging.getLogger("slotwise.operations")
"""Each operation that changes state logs its name and the record it returned (INFO)."""

READ_PREFIXES: Final = (
    "get",
    "list",
    "find",
    "history",
    "services",
    "resources",
    "days",
    "times",
    "unavailable",
    "for_reschedule",
    "explain",
    "undelivered",
    "due",
    "booking_fields",
    "custom_fields",
    "effective_settings",
    "settings_list",
    "timezones",
    "countries",
    "states",
    "deliveries",
    "of_business_user",
    "as_principal",
    "for_company",
    "for_token",
    "companies_of_user",
    # A token's check reads; logging it would add a line to every HTTP request (issue 21).
    "authenticate",
)
"""Operations that only read (by name prefix): they log nothing."""

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)

_MARK: Final = "__slotwise_declared__"


_Plan = tuple[tuple[tuple[str, Converter], ...], tuple[tuple[str, Converter], ...]]
"""The converters of one call shape: each positional argument's, then each keyword's, in order."""
_SHAPES_KEPT: Final = 64
"""Call shapes kept per operation: a caller trying every combination of keywords gets no more."""


@attrs.frozen
class _Declaration:
    """What one operation accepts, read from its signature and annotations."""

    name: str
    positional: tuple[str, ...]
    keywords: frozenset[str]
    converters: Mapping[str, Converter]
    required: frozenset[str]
    fields: Mapping[str, Converter]
    """The keys of the ``**fields`` TypedDict, if the operation takes one."""
    required_fields: frozenset[str]
    by_key: Mapping[str, Converter]
    """The converter of each key a call may pass by name: its keyword's, else its field's."""
    shapes: dict[tuple[Any, ...], _Plan] = attrs.field(factory=dict, eq=False, repr=False)
    """The plans of the call shapes accepted so far (positional count, then the keys)."""

    @classmethod
    def of(cls, func: Callable[..., Any], *, bound: bool) -> _Declaration:
        signature = inspect.signature(func)
        hints = typing.get_type_hints(func)
        parameters = list(signature.parameters.values())
        if bound:
            parameters = parameters[1:]  # self
        positional: list[str] = []
        keywords: set[str] = set()
        converters: dict[str, Converter] = {}
        required: set[str] = set()
        fields: dict[str, Converter] = {}
        required_fields: frozenset[str] = frozenset()
        for parameter in parameters:
            kind = parameter.kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                declared_fields = _unpacked(hints.get(parameter.name))
                if declared_fields is None:
                    raise TypeError(f"{func.__qualname__}: **{parameter.name} needs Unpack[...]")
                field_hints = typing.get_type_hints(declared_fields, include_extras=True)
                partial = changes_in_part(declared_fields)
                fields = {
                    key: converter(stripped(hint), name=key, partial=partial)
                    for key, hint in field_hints.items()
                }
                required_fields = required_keys(declared_fields, field_hints)
                continue
            if kind is inspect.Parameter.VAR_POSITIONAL:
                raise TypeError(f"{func.__qualname__}: *{parameter.name} is not declarable")
            converters[parameter.name] = converter(hints[parameter.name], name=parameter.name)
            if kind is not inspect.Parameter.KEYWORD_ONLY:
                positional.append(parameter.name)
            if kind is not inspect.Parameter.POSITIONAL_ONLY:
                keywords.add(parameter.name)
            if parameter.default is inspect.Parameter.empty:
                required.add(parameter.name)
        return cls(
            name=func.__qualname__,
            positional=tuple(positional),
            keywords=frozenset(keywords),
            converters=converters,
            required=frozenset(required),
            fields=fields,
            required_fields=required_fields,
            by_key={**fields, **{key: converters[key] for key in keywords}},
        )

    def accept(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[Any], dict[str, Any]]:
        """Return the converted arguments, or raise the error of the first refused one."""
        shape = (len(args), *kwargs)
        plan = self.shapes.get(shape)
        if plan is None:
            plan = self._plan(len(args), kwargs)
            if len(self.shapes) < _SHAPES_KEPT:
                self.shapes[shape] = plan
        by_position, by_key = plan
        # Loops, not comprehensions: in CPython 3.11 a comprehension is a call of its own, and
        # every call of every operation passes here.
        converted_args = []
        for (name, convert), value in zip(by_position, args, strict=True):
            converted_args.append(convert(value, name))
        converted_kwargs = {}
        for (key, convert), value in zip(by_key, kwargs.values(), strict=True):
            converted_kwargs[key] = convert(value, key)
        return converted_args, converted_kwargs

    def _plan(self, count: int, kwargs: Mapping[str, Any]) -> _Plan:
        """
        Return the converters of a call of *count* positional arguments and *kwargs*' keys, in
        their order, or raise the error refusing that call's shape (whatever its values).
        """
        if count > len(self.positional):
            raise UnexpectedField(
                field=f"positional argument {len(self.positional) + 1}",
                allowed=self.positional,
                reason=f"is one too many: {self.name}() takes {len(self.positional)}",
            )
        given = self.positional[:count]
        for key in kwargs:
            # A keyword also given by position is refused, unless it is a field of **fields.
            if key not in self.by_key or (key in given and key not in self.fields):
                raise self._unexpected(key)
        for name in self.required:
            if name not in given and name not in kwargs:
                raise FieldRequired(field=name)
        for key in self.required_fields:
            if key not in kwargs:
                raise FieldRequired(field=key)
        by_position = tuple((name, self.converters[name]) for name in given)
        return by_position, tuple((key, self.by_key[key]) for key in kwargs)

    def _unexpected(self, key: object) -> UnexpectedField:
        allowed = sorted((self.keywords | self.fields.keys()) - set(self.positional))
        name = key if isinstance(key, str) else repr(key)
        if name in self.keywords:
            return UnexpectedField(field=name, allowed=allowed, reason="was given twice")
        if name in self.positional:
            return UnexpectedField(
                field=name, allowed=allowed, reason=f"is positional: {self.name}({name}, ...)"
            )
        if name in IDENTITY_FIELDS and self.fields:
            return UnexpectedField(
                field=name,
                allowed=allowed,
                reason="cannot be set here: a record keeps its identity and its place",
            )
        return UnexpectedField(field=name, allowed=allowed)


def _unpacked(hint: Any) -> Any:
    if get_origin(hint) is typing.Unpack:
        return get_args(hint)[0]
    return None


def declared(func: F, *, principal: bool = True) -> F:
    """
    Wrap the operation *func* (a method) in the boundary described in this module.

    With *principal* false the method runs without a workspace (``Scheduler.create_company``).
    """
    declaration: _Declaration | None = None
    changes = not func.__name__.startswith(READ_PREFIXES)

    @functools.wraps(func)
    def boundary(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        nonlocal declaration
        if principal and self._ctx.caller is None:
            raise NotAuthenticated()
        if declaration is None:
            declaration = _Declaration.of(func, bound=True)
        converted_args, converted_kwargs = declaration.accept(args, kwargs)
        result = func(self, *converted_args, **converted_kwargs)
        if changes and logger.isEnabledFor(logging.INFO):
            record_id = getattr(result, "id", None)
            logger.info("%s%s", func.__qualname__, f" -> {record_id}" if record_id else "")
        return result

    setattr(boundary, _MARK, True)
    keywords = _keywords_text(func)
    if keywords:
        # Cleaned first: appended text at another indentation would make the original a quote.
        boundary.__doc__ = inspect.cleandoc(func.__doc__ or "") + "\n\n" + keywords + "\n"
    return cast(F, boundary)


def _keywords_text(func: Callable[..., Any]) -> str:
    """
    Return the keywords an operation's ``**fields`` accepts, for ``help()`` to show them.

    ``help(ws.services.create)`` would otherwise show only ``**fields: Unpack[ServiceFields]``.
    """
    try:
        hints = typing.get_type_hints(func)
    except (NameError, TypeError):  # a hint naming what is defined later: leave the docstring
        return ""
    for parameter in inspect.signature(func).parameters.values():
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD:
            continue
        declared_fields = _unpacked(hints.get(parameter.name))
        if declared_fields is None:
            return ""
        items = typing.get_type_hints(declared_fields, include_extras=True)
        required = required_keys(declared_fields, items)
        lines = [
            f"- {key}: {_type_text(stripped(hint))}" + (" (required)" if key in required else "")
            for key, hint in items.items()
        ]
        return f"Keyword arguments (``**{parameter.name}``):\n\n" + "\n".join(lines)
    return ""


def _type_text(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    # "slotwise.model.catalog.RoundRobin | str" reads "RoundRobin | str".
    return re.sub(r"(?:[a-z_]\w*\.)+(\w+)", r"\1", str(hint))


def is_declared(method: object) -> bool:
    """Tell whether *method* runs behind the boundary (the test suite checks every operation)."""
    return bool(getattr(method, _MARK, False))


def operations(cls: C) -> C:
    """Put every public method of the operations class *cls* behind the boundary."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(member):
            setattr(cls, name, declared(member))
    return cls
