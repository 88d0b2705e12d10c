"""
Read-only, JSON-ready values: :class:`FrozenJSON` and :func:`freeze_json`.

Records keep their mappings (service options, custom fields, event payloads) in these rather
than in ``types.MappingProxyType``: equally read-only, and unlike a mapping proxy they pickle
and deep-copy, so records cross process boundaries and caches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final, NoReturn

from slotwise.errors import InvalidFormat

__all__ = ["FrozenJSON", "freeze_json"]


class FrozenJSON(dict[str, Any]):
    """
    A read-only ``dict`` of JSON-ready values.

    It is a ``dict`` so ``json.dumps`` writes it as an object and it compares equal to a plain
    dict with the same items; every mutating method raises ``TypeError``. Build one with
    :func:`freeze_json`, which also freezes what it holds.

    .. versionadded:: 0.1
    """

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Whatever a caller passes is frozen on the way in, so every FrozenJSON is read-only
        # all the way down (freeze_json relies on it and returns one as it is).
        super().__init__()
        items = dict(*args, **kwargs)
        for key in items:
            if not isinstance(key, str):
                raise InvalidFormat(field="payload", expected="string keys", value=key)
        dict.update(self, {key: freeze_json(item) for key, item in items.items()})

    def _refuse(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError("FrozenJSON is read-only")

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=lambda item: item[0])))

    def __repr__(self) -> str:
        # A dict literal: valid Python that freeze_json turns back into an equal value.
        return dict.__repr__(self)

    def __copy__(self) -> FrozenJSON:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> FrozenJSON:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (freeze_json, (dict(self),))


PLAIN_TYPES: Final = (str, bool, int, type(None))
"""Types a JSON value may have that are returned as they are."""


def freeze_json(value: object, *, field: str = "payload") -> Any:
    """
    Return *value* as read-only JSON-ready data.

    Mappings become :class:`FrozenJSON` (keys must be strings), lists and tuples become tuples;
    strings, integers, finite floats, booleans and ``None`` stay as they are. A
    :class:`FrozenJSON` is returned as it is (it is frozen all the way down).

    Raises:
        InvalidFormat: for any other value (a datetime, a set, a NaN), naming *field*.

    .. versionadded:: 0.1
    """
    kind = type(value)
    if kind in PLAIN_TYPES or kind is FrozenJSON:
        return value
    if kind is float or isinstance(value, float):
        if not math.isfinite(value):  # type: ignore[arg-type]
            raise InvalidFormat(field=field, expected="a finite number", value=value)
        return value
    if isinstance(value, str | bool | int):
        return value
    if isinstance(value, Mapping):
        frozen = FrozenJSON()
        for key in value:
            if not isinstance(key, str):
                raise InvalidFormat(field=field, expected="string keys", value=key)
        dict.update(frozen, {key: freeze_json(item, field=field) for key, item in value.items()})
        return frozen
    if isinstance(value, list | tuple):
        return tuple([freeze_json(item, field=field) for item in value])
    raise InvalidFormat(field=field, expected="JSON-ready data", value=value)
