"""
Read-only, JSON-ready values: :class:`FrozenJSON` and :func:`freeze_json`.

Records keep their mappings (service options, custom fields, event payloads) in these rather
than in ``types.MappingProxyType``: equally read-only, and unlike a mapping proxy they pickle
and deep-copy, so records cross process boundaries and caches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Final, NoReturn

from slotwise.errors import InvalidFormat

__all__ = ["FrozenJSON", "LazyJSON", "freeze_json"]


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


class LazyJSON(FrozenJSON):
    """
    A :class:`FrozenJSON` whose values are built when it is first read (decision 49: event
    payloads serialised when first read).

    It holds its keys from the start (so ``len``, ``json.dumps`` and C code that sees an empty
    dict never take it for ``{}``) and a function that returns the finished mapping; every read
    runs that function once, then the items are those of a plain ``FrozenJSON``. The function
    must return frozen values only and always the same items (it reads immutable records).
    """

    __slots__ = ("_build",)

    def __init__(self, keys: Iterable[str], build: Callable[[], Mapping[str, Any]]) -> None:
        dict.__init__(self)
        dict.update(self, dict.fromkeys(keys))
        self._build: Callable[[], Mapping[str, Any]] | None = build

    def _ready(self) -> LazyJSON:
        build = self._build
        if build is not None:
            # Built before it is marked built: a reader in another thread meanwhile builds the
            # same items itself rather than seeing the placeholders.
            dict.update(self, build())
            self._build = None
        return self

    def __getitem__(self, key: str) -> Any:
        return dict.__getitem__(self._ready(), key)

    def get(self, key: str, default: Any = None) -> Any:
        return dict.get(self._ready(), key, default)

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self._ready())

    def __reversed__(self) -> Iterator[str]:
        return dict.__reversed__(self._ready())

    def __len__(self) -> int:
        return dict.__len__(self._ready())

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self._ready(), key)

    def keys(self) -> Any:
        return dict.keys(self._ready())

    def values(self) -> Any:
        return dict.values(self._ready())

    def items(self) -> Any:
        return dict.items(self._ready())

    def copy(self) -> dict[str, Any]:
        return dict.copy(self._ready())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyJSON):
            other._ready()
        return dict.__eq__(self._ready(), other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __or__(self, other: Any) -> Any:
        return dict.__or__(self._ready(), other)

    def __ror__(self, other: Any) -> Any:
        return dict.__ror__(self._ready(), other)

    def __hash__(self) -> int:  # type: ignore[override]
        return FrozenJSON.__hash__(self._ready())

    def __repr__(self) -> str:
        return dict.__repr__(self._ready())

    def __reduce__(self) -> tuple[Any, ...]:
        return (freeze_json, (dict(self._ready()),))


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
    if kind in PLAIN_TYPES or kind is FrozenJSON or kind is LazyJSON:
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
