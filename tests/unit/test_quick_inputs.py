"""
The boundary's quick paths (issue 23): an id, a text or an instant argument that the quick test
passes as it is must be what the full converter returns, and anything else must meet the full
converter's own refusal; a call's shape (its positional count and keywords) is checked once and
kept only when accepted.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotwise import SlotwiseError
from slotwise.operations import _inputs
from slotwise.operations._inputs import converter

HINTS = [
    (str, "service_id"),
    (str | None, "customer_id"),
    (str, "name"),
    (str | None, "booked_by"),
    (datetime, "start"),
    (datetime | None, "end"),
    (Literal["IN", "BK", "RS"] | None, "complete_booking"),
    (Literal["a", "b"], "mode"),
]


def _outcome(convert: Any, value: object) -> tuple[str, object]:
    """Return what *convert* makes of *value*: the value, or the refusal as data."""
    try:
        return "value", convert(value, "field")
    except SlotwiseError as error:
        return "error", (type(error), error.to_dict())


def _full(hint: Any, name: str) -> Any:
    """Return the converter *hint* compiles to without the quick test."""
    quick = _inputs._quick
    try:
        _inputs._quick = lambda *_args: None  # type: ignore[assignment]
        return converter(hint, name=name)
    finally:
        _inputs._quick = quick


values = st.one_of(
    st.none(),
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="ascii"), min_size=250, max_size=260),
    st.sampled_from(["", "a\x00b", "\ud800", "é", " ", "x" * 65_537]),
    st.sampled_from(["IN", "BK", "RS", "a", "b", "bk", "a ", b"a", 1, True]),
    st.datetimes(
        min_value=datetime(1, 1, 2),
        max_value=datetime(9999, 12, 30),
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=-5)), ZoneInfo("America/New_York")]
        ),
    ),
    st.datetimes(),
    st.integers(),
    st.booleans(),
)


@pytest.mark.parametrize(("hint", "name"), HINTS, ids=[name for _, name in HINTS])
@given(value=values)
def test_the_quick_test_agrees_with_the_full_converter(hint: Any, name: str, value: object) -> None:
    """Whatever the value, the argument's converter answers as the full one does."""
    assert _outcome(converter(hint, name=name), value) == _outcome(_full(hint, name), value)


def test_the_quick_test_serves_everyday_hints_only() -> None:
    """Other hints get the full converter itself, whatever the value."""
    assert _inputs._quick(int, "text", converter(int, name="size")) is None
    assert _inputs._quick(str | int, "text", converter(str | int, name="x")) is None
    mixed = Literal["a", 1]
    assert _inputs._quick(mixed, "text", converter(mixed, name="x")) is None


def test_a_quick_choice_is_the_declared_choice_itself() -> None:
    """A text choice passes as the declared object, as the full converter returns it."""
    hint = Literal["IN", "BK", "RS"]
    sent = "".join(["B", "K"])  # equal to the declared "BK", another object

    choice = converter(hint | None, name="complete_booking")(sent, "complete_booking")

    assert get_args(hint)[1] is choice


def test_a_refused_call_shape_is_refused_every_time() -> None:
    """Only accepted shapes are kept: a refused one is worked out, and refused, again."""
    from slotwise.operations._boundary import _Declaration

    def operation(service_id: str, *, size: int = 1, note: str | None = None) -> None:
        """An operation's signature."""

    declaration = _Declaration.of(operation, bound=False)
    for _ in range(2):
        with pytest.raises(SlotwiseError, match="colour"):
            declaration.accept(("s1",), {"colour": "red"})
        with pytest.raises(SlotwiseError, match="service_id"):
            declaration.accept((), {"size": 2})
    assert declaration.accept(("s1",), {"note": None, "size": 2}) == (
        ["s1"],
        {"note": None, "size": 2},
    )
    assert declaration.accept(("s1",), {"size": 3, "note": "x"}) == (
        ["s1"],
        {"size": 3, "note": "x"},
    )
    assert len(declaration.shapes) == 2
    with pytest.raises(SlotwiseError, match="size"):
        declaration.accept(("s1",), {"size": "3"})  # a kept shape still converts every value
