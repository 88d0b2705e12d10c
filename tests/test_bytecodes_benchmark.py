"""
The bytecode count of a booking (``benchmarks/bytecodes.py``): its counter's arithmetic on
functions whose bytecodes are known by structure, and its output on a few real bookings.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bytecodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The benchmark module, imported from its directory."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bytecodes

    yield bytecodes
    for name in ("bytecodes", "bookings"):
        sys.modules.pop(name, None)


def _leaf() -> int:
    """A function calling nothing traced."""
    value = 1
    return value


def _middle() -> int:
    """Two calls of the leaf."""
    return _leaf() + _leaf()


def _countdown(steps: int) -> int:
    """A recursion *steps* deep."""
    return 0 if steps == 0 else _countdown(steps - 1)


def test_inclusive_is_own_plus_callees_and_exclusive_sums_to_the_total(bytecodes: ModuleType):
    """A caller's inclusive count is its own bytecodes plus its callees' inclusive ones."""
    count = bytecodes.BytecodeCount()

    count.run(_middle)

    middle, leaf = _middle.__code__, _leaf.__code__
    assert count.own(leaf) > 0
    assert count.with_callees(leaf) == count.own(leaf)
    assert count.with_callees(middle) == count.own(middle) + count.with_callees(leaf)
    assert sum(count.exclusive.values()) == count.total == count.with_callees(middle)


def test_a_recursion_is_counted_once(bytecodes: ModuleType):
    """Nested calls of one function add their span once, at the outermost return."""
    count = bytecodes.BytecodeCount()

    count.run(lambda: _countdown(5))

    code = _countdown.__code__
    assert count.with_callees(code) == count.own(code)
    one_call = bytecodes.BytecodeCount()
    one_call.run(lambda: _countdown(0))
    assert count.own(code) > 5 * one_call.own(code)


def test_a_raised_error_still_closes_its_frames(bytecodes: ModuleType):
    """A frame left by an exception counts as returned; the trace is as it was afterwards."""

    def failing() -> None:
        _leaf()
        raise ValueError("refused")

    count = bytecodes.BytecodeCount()
    before = sys.gettrace()
    with pytest.raises(ValueError, match="refused"):
        count.run(failing)

    assert count.with_callees(failing.__code__) == count.total
    assert sys.gettrace() is before


def _counting() -> Iterator[int]:
    """A generator yielding twice."""
    yield 1
    yield 2


def test_a_generator_left_open_is_not_traced_after_the_run(bytecodes: ModuleType):
    """
    A generator started in the run and resumed after it, under the tracer that was there
    before (one that traces no frame), adds nothing and raises nothing.
    """
    count = bytecodes.BytecodeCount()
    started = _counting()

    def quiet(_frame: Any, _event: str, _arg: Any) -> None:
        return None

    before = sys.gettrace()
    sys.settrace(quiet)
    try:
        count.run(lambda: next(started))
        total = count.total
        resumed = next(started)
    finally:
        sys.settrace(before)

    assert resumed == 2
    assert count.total == total
    assert count.with_callees(_counting.__code__) > 0


def test_code_objects_of_one_shape_are_counted_apart(bytecodes: ModuleType):
    """Two functions compiled alike from different files are two rows, not one."""
    source = "def same():\n    return 1\n"
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    exec(compile(source, "first.py", "exec"), first)
    exec(compile(source, "second.py", "exec"), second)
    count = bytecodes.BytecodeCount()

    count.run(lambda: (first["same"](), second["same"](), second["same"]()))

    assert count.own(second["same"].__code__) == 2 * count.own(first["same"].__code__) > 0


def test_a_few_bookings_print_the_figure_and_the_functions(
    bytecodes: ModuleType, capsys: pytest.CaptureFixture[str]
):
    """One figure line, then the largest functions by inclusive count, the booking's among them."""
    assert 0 == bytecodes.main(["--bookings", "2", "--warm", "1", "--top", "8"])

    figure, *functions = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert figure["figure"] == "booking_bytecodes"
    assert figure["bookings"] == 2
    assert figure["per_booking"] > 1_000
    assert 0 < figure["largest_exclusive"]["share"] < 1
    assert len(functions) == 8
    names = [line["function"] for line in functions]
    assert any(name.endswith(":create") for name in names)
    inclusive = [line["inclusive"] for line in functions]
    assert inclusive == sorted(inclusive, reverse=True)
    assert all(line["exclusive"] <= line["inclusive"] for line in functions)


def test_bad_counts_are_refused(bytecodes: ModuleType):
    """No booking to trace is a usage error."""
    with pytest.raises(SystemExit) as refused:
        bytecodes.main(["--bookings", "0"])
    assert 2 == refused.value.code
