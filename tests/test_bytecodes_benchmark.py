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
    assert count.exclusive[leaf] > 0
    assert count.inclusive[leaf] == count.exclusive[leaf]
    assert count.inclusive[middle] == count.exclusive[middle] + count.inclusive[leaf]
    assert sum(count.exclusive.values()) == count.total == count.inclusive[middle]


def test_a_recursion_is_counted_once(bytecodes: ModuleType):
    """Nested calls of one function add their span once, at the outermost return."""
    count = bytecodes.BytecodeCount()

    count.run(lambda: _countdown(5))

    code = _countdown.__code__
    assert count.inclusive[code] == count.exclusive[code]
    one_call = bytecodes.BytecodeCount()
    one_call.run(lambda: _countdown(0))
    assert count.exclusive[code] > 5 * one_call.exclusive[code]


def test_a_raised_error_still_closes_its_frames(bytecodes: ModuleType):
    """A frame left by an exception counts as returned; the trace is as it was afterwards."""

    def failing() -> None:
        _leaf()
        raise ValueError("refused")

    count = bytecodes.BytecodeCount()
    before = sys.gettrace()
    with pytest.raises(ValueError, match="refused"):
        count.run(failing)

    assert count.inclusive[failing.__code__] == count.total
    assert sys.gettrace() is before


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
