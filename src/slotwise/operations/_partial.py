"""
Nested records changed in part (docs/semantics.md, "Nested records in an update").

An update that is given a mapping for a nested record — a location's ``settings``, a
resource's ``options``, some days of weekly hours — changes the keys the mapping names and keeps
the stored value's other fields, as an HTTP client that sends ``{"settings":
{"lateCancelHours": 2}}`` expects. The call boundary converts each given key and hands the
operation a :class:`Partial`; the operation, once it has read the stored record, lays the
partial values onto it with :func:`resolved`. A record value (not a mapping) still replaces
the stored one whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs

from slotwise.errors import InvalidFormat, SlotwiseError
from slotwise.model import DayHours, DayWindow, RepeatRule

__all__ = ["Partial", "given_whole", "placed", "renamed", "resolved"]

_WHOLE: Final = frozenset({RepeatRule, DayHours, DayWindow})
"""Records given whole even in an update: their fields are read together (a repeat's weekdays
belong to its frequency; a day's hours to its ``is_24_hours``), so a part of one would mix the
new with the stored (a weekly rule's days kept on a monthly one)."""


def given_whole(kind: type) -> bool:
    """Tell whether a mapping for a *kind* record always gives the whole record."""
    return kind in _WHOLE


@attrs.frozen
class Partial:
    """
    Some fields of a nested record: ``given`` maps each given field's alias to its converted
    value (itself a ``Partial`` for a nested record given in part).
    """

    kind: type[Any]
    given: Mapping[str, Any]
    names: Mapping[str, str]
    """Alias -> attribute name, for every field of *kind* that ``__init__`` takes."""
    build: Callable[[dict[str, Any], str], Any]
    """Make a whole record of some fields (the others their defaults), as a create does."""
    check: Callable[[Any, str], Any]
    """Check a changed record as the boundary checks one it built."""

    def onto(self, current: Any, field: str) -> Any:
        """Return *current* with the given fields changed; with no stored record, a new one."""
        if not isinstance(current, self.kind):
            values = {a: _merged(None, v, f"{field}.{a}") for a, v in self.given.items()}
            return self.build(values, field)
        values = {
            alias: _merged(getattr(current, self.names[alias]), value, f"{field}.{alias}")
            for alias, value in self.given.items()
        }
        try:
            changed = attrs.evolve(current, **values)
        except SlotwiseError as error:
            raise placed(error, field, self.names) from error.__cause__
        except (TypeError, ValueError, OverflowError, AttributeError):
            # A converter met a value of a form it does not read: a wrong value, not a crash.
            expected = f"a {self.kind.__name__} or a mapping of its fields"
            raise InvalidFormat(field=field, expected=expected, value=dict(self.given)) from None
        return self.check(changed, field)


def _merged(current: Any, value: Any, field: str) -> Any:
    return value.onto(current, field) if isinstance(value, Partial) else value


def resolved(record: Any, changes: Mapping[str, Any]) -> dict[str, Any]:
    """
    Return an update's *changes* to *record* with every nested record given in part laid onto
    the stored value (the values an ``attrs.evolve`` of *record* takes).
    """
    return {key: _merged(getattr(record, key, None), value, key) for key, value in changes.items()}


def placed(error: SlotwiseError, path: str, names: Mapping[str, str]) -> SlotwiseError:
    """
    Return a nested record's refusal named by its whole path: a record's validator names its
    own field (``booking_timer_mins``), the caller wrote ``settings.booking_timer_mins``.

    *names* maps the record's aliases to its attribute names; a field that is neither (already
    a path, or no field of the record) is left as it is.
    """
    own = getattr(error, "field", None)
    if isinstance(own, str) and (own in names or own in names.values()):
        _named(error, own, f"{path}.{own}")
    return error


_HEAD: Final = re.compile(r"[^.\[]*")


def renamed(error: SlotwiseError, heads: Mapping[str, str]) -> SlotwiseError:
    """
    Return *error* with the head of its field renamed by *heads*: an item of a list names
    its place in it (``timezone`` of the second location is ``locations[1].timezone``).

    A field whose head is not in *heads* (the caller's company, no field at all) is left as it
    is: it names no part of the item.
    """
    own = getattr(error, "field", None)
    if isinstance(own, str):
        head = _HEAD.match(own).group(0)  # type: ignore[union-attr]
        if head in heads:
            _named(error, own, heads[head] + own[len(head) :])
    return error


def _named(error: SlotwiseError, own: str, whole: str) -> None:
    error.field = whole  # type: ignore[attr-defined]
    # The message names the field first; a later mention (a quoted value) stays as it is.
    pattern = rf"(?<![\w.]){re.escape(own)}(?![\w])"
    error.message = re.sub(pattern, lambda _: whole, error.message, count=1)
    error.args = (error.message,)
