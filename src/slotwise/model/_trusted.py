"""
Trusted constructors: a record built from values already known valid, its checks not run again.

A booking checks what it was sent before it builds its appointment (the times made aware UTC and
ordered, the group size, the resources read from stored records, the status from the transition
table), and the validating constructor would check it all again: about a third of a booking's
record-building cost, for nothing (issue 23). :func:`trusted_constructor` makes a function that
takes every field as the record stores it (converted) and sets the slots directly: no converter,
no validator, no ``__attrs_pre_init__``. It keeps only the conversions named in *keep*, those
that share memory between records rather than check anything (``shared``), and packs the fields
of a :func:`~slotwise.model._rare.rare_fields` base into its one slot as that base's setters do.

Callers must hand over values the validating constructor would accept and store unchanged, and
run the record's own validator on whatever the caller of the operation sent that nothing has
checked yet (``tests/unit/test_trusted_records.py`` shows both constructors give equal records).
The code is generated from ``attrs.fields``, as attrs generates ``__init__``, so a field added to
the record is in its trusted constructor too.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from types import MemberDescriptorType
from typing import Any, TypeVar

import attrs

from ._checks import INSTANT_YEARS

__all__ = ["check_sent", "is_record_instant", "slot_setter", "trusted_constructor"]

R = TypeVar("R")


def is_record_instant(value: object) -> bool:
    """
    Tell whether *value* is an instant a record stores as it is: a ``datetime`` in UTC within
    decision 36's years (what ``as_utc`` and ``check_aware`` leave unchanged and accept).
    """
    return (
        value.__class__ is datetime
        and value.tzinfo is UTC
        and INSTANT_YEARS[0] <= value.year <= INSTANT_YEARS[1]
    )


def check_sent(cls: type, name: str, value: object) -> None:
    """
    Run the validator of *cls*'s field *name* on *value*, a value sent that nothing checked yet:
    the error a validating constructor would raise for it, raised here.

    Only for validators that read the value alone (not the record being built).
    """
    attribute = getattr(attrs.fields(cls), name)
    if attribute.validator is not None:
        attribute.validator(None, attribute, value)


def slot_setter(cls: type, name: str) -> Any:
    """Return the ``__set__`` of the slot *name* of *cls* (a member descriptor of its MRO)."""
    for klass in cls.__mro__:
        found = vars(klass).get(name)
        if isinstance(found, MemberDescriptorType):
            return found.__set__
        if found is not None:
            break
    raise TypeError(f"{cls.__name__}.{name} is no slot")


def trusted_constructor(
    cls: type[R],
    *,
    keep: Mapping[str, Callable[[Any], Any]] | None = None,
    given: Collection[str] | None = None,
    held_in: Mapping[str, str] | None = None,
) -> Callable[..., R]:
    """
    Return a function building a *cls* record from its fields' stored values, unchecked.

    Every field is a keyword argument. A field with a plain default may be left out: it then
    gets the value the validating constructor stores for that default (the default converted,
    once, here); a field with a factory default must be given. *keep* maps field names to the
    conversions still applied to a given value (memory sharing, never a check).

    With *given*, the function takes one mapping instead, ``build(values)``, holding exactly
    the fields named in *given* (every other field gets its default, as above): for a caller
    with more values than a call should carry by keyword (CPython 3.11 passes more than 15
    keywords through a dictionary, and matches each against the parameters), it reads each one
    with a subscript.

    *held_in* maps a field kept behind a property to the slot of a base class holding it
    (``OutboxEvent.payload`` in ``_payload``): the value is set in that slot.

    Raises:
        TypeError: when *cls* is not a slotted attrs class whose slots are its fields (plus
            ``__weakref__`` and a rare-fields base's ``_rare``), or has a post-init hook; or
            when *given* names no field, or leaves out one with a factory default.
    """
    keep = dict(keep or {})
    held_in = dict(held_in or {})
    wanted = None if given is None else set(given)
    if hasattr(cls, "__attrs_post_init__"):
        raise TypeError(f"{cls.__name__} has __attrs_post_init__: no trusted constructor")
    rare_names: frozenset[str] = getattr(cls, "rare_names", frozenset())
    names = {"_cls": cls, "_new": object.__new__}
    parameters: list[str] = []
    read: list[str] = []
    own: list[str] = []
    slotted: set[str] = set()
    rare: list[str] = []
    fields: tuple[attrs.Attribute[Any], ...] = attrs.fields(cls)  # type: ignore[arg-type]
    for field in fields:
        name = field.name
        default = field.default
        value = name
        if default is attrs.NOTHING or isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            parameters.append(name)
            if wanted is not None and name not in wanted:
                raise TypeError(f"{cls.__name__}.{name} has no plain default: it must be given")
        else:
            if field.converter is not None:
                default = field.converter(default)  # type: ignore[operator]
            names[f"_default_{name}"] = default
            parameters.append(f"{name}=_default_{name}")
            if wanted is not None and name not in wanted:
                value = f"_default_{name}"
        given_here = wanted is not None and name in wanted
        if given_here:
            wanted.discard(name)  # type: ignore[union-attr]
            if name in rare_names:  # read once, tested and packed below
                read.append(f"    {name} = values[{name!r}]")
            else:
                value = f"values[{name!r}]"
        if name in keep and (value == name or given_here):
            names[f"_keep_{name}"] = keep[name]
            value = f"_keep_{name}({value})"
        keep.pop(name, None)
        if name in rare_names:
            if value == name:  # a rare field left out keeps its default, None: not in _rare
                rare.append(f"    if {name} is not None:\n        _rare += ({name!r}, {name})")
        else:
            slot = held_in.pop(name, None)
            names[f"_set_{name}"] = slot_setter(cls, slot or name)
            if slot is None:
                slotted.add(name)
            own.append(f"    _set_{name}(self, {value})")
    if keep or held_in:
        raise TypeError(f"no fields {sorted({*keep, *held_in})} in {cls.__name__}")
    if wanted:
        raise TypeError(f"no fields {sorted(wanted)} in {cls.__name__}")
    slots = set(getattr(cls, "__slots__", ())) - {"__weakref__"}
    if slots != slotted:
        raise TypeError(f"{cls.__name__}'s slots are not its fields")
    signature = f"*, {', '.join(parameters)}" if given is None else "values"
    lines = [f"def build({signature}):", *read, "    self = _new(_cls)", *own]
    if rare_names:
        names["_set__rare"] = slot_setter(cls, "_rare")
        lines += ["    _rare = ()", *rare, "    _set__rare(self, _rare or None)"]
    lines.append("    return self")
    source = "\n".join(lines)
    filename = f"<trusted constructor {cls.__module__}.{cls.__qualname__}>"
    exec(compile(source, filename, "exec"), names)  # our own source, as attrs does
    build: Callable[..., R] = names["build"]  # type: ignore[assignment]
    build.__doc__ = f"Build a {cls.__name__} from valid, converted values (no checks run)."
    return build
