"""
Bytecodes a ``MemoryStore`` booking executes, by function: where a booking's interpreter work
is, in a count that does not move with the machine and needs no valgrind.

Usage::

    python benchmarks/bytecodes.py [--bookings N] [--warm W] [--top K]

Books ``bookings.py``'s business (``create(..., complete_booking="BK")``, each at the next free
half hour of a resource): *W* bookings untraced first (default 300: caches filled, the store
not empty), then *N* traced (default 100). The trace (``sys.settrace`` with opcode events)
counts every bytecode instruction the interpreter executes in each function: its own
(``exclusive``) and with the functions it calls (``inclusive``, a recursive call counted once).
The count includes the benchmark's own two functions around each booking (its loop and
``bookings.py``'s ``create_booked``, under 0.5% of a booking).
Code in C (``datetime`` arithmetic, a ``dict`` lookup, ``sorted``) runs inside the bytecode
that calls it and is not counted apart, so a bytecode is a proxy for the interpreter's work,
not a unit of time: callgrind's instructions (``instructions.py``) are the cost; this says
which Python code they come from.

Prints one JSON line ``{"figure": "booking_bytecodes", "bookings": N, "per_booking": X,
"largest_exclusive": {"function", "share"}}`` (the function whose own bytecodes are the largest
share: how big the booking's hottest spot is), then one line per function, the *K* largest by
``inclusive`` (default 40)::

    {"function": "path:line:name", "inclusive": I, "exclusive": E, "inclusive_share": S}

with ``I`` and ``E`` per booking and ``S`` the share of the booking's bytecodes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from bookings import Business

_SOURCE_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class BytecodeCount:
    """
    The bytecodes executed per function while a traced call runs.

    The counts are keyed by the code object itself (by identity: two code objects of one shape
    compiled from different places compare equal), each kept in ``codes``.
    """

    exclusive: Counter[int] = field(default_factory=Counter)
    inclusive: Counter[int] = field(default_factory=Counter)
    codes: dict[int, CodeType] = field(default_factory=dict)
    total: int = 0
    _active: Counter[int] = field(default_factory=Counter)
    _entered: list[tuple[int, int]] = field(default_factory=list)
    _running: bool = False

    def run(self, work: Callable[[], object]) -> None:
        """Call *work* with the trace on, adding what it executes to the counts."""
        previous = sys.gettrace()
        self._running = True
        sys.settrace(self._trace)
        try:
            work()
        finally:
            sys.settrace(previous)
            self._running = False

    def own(self, code: CodeType) -> int:
        """Return the bytecodes *code* executed itself."""
        return self.exclusive[id(code)]

    def with_callees(self, code: CodeType) -> int:
        """Return the bytecodes executed while *code* ran, its callees' included."""
        return self.inclusive[id(code)]

    def _trace(self, frame: FrameType, event: str, _arg: Any) -> Callable[..., Any] | None:
        if not self._running:
            # A frame entered during the run and resumed after it (a generator): untraced.
            return None
        key = id(frame.f_code)
        if event == "opcode":
            self.exclusive[key] += 1
            self.total += 1
        elif event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            self.codes.setdefault(key, frame.f_code)
            self._active[key] += 1
            self._entered.append((key, self.total))
        elif event == "return" and self._entered:
            key, entered_at = self._entered.pop()
            self._active[key] -= 1
            if not self._active[key]:
                # The outermost call of a recursion counts its whole span once.
                self.inclusive[key] += self.total - entered_at
        return self._trace


def function_name(code: CodeType) -> str:
    """Return ``path:line:name``, the path relative to the project where it lies inside it."""
    path = Path(code.co_filename)
    if path.is_relative_to(_SOURCE_ROOT):
        path = path.relative_to(_SOURCE_ROOT)
    return f"{path}:{code.co_firstlineno}:{code.co_name}"


def booking_bytecodes(bookings: int, warm: int) -> BytecodeCount:
    """Return the bytecodes of *bookings* traced bookings after *warm* untraced ones."""
    business = Business(warm + bookings)
    for number in range(warm):
        business.create_booked(number)
    count = BytecodeCount()

    def traced() -> None:
        for number in range(warm, warm + bookings):
            business.create_booked(number)

    count.run(traced)
    if business.booked() != warm + bookings:
        raise RuntimeError("a traced booking did not book")
    return count


def report(count: BytecodeCount, bookings: int, top: int) -> list[dict[str, object]]:
    """Return the figure's line and the *top* functions' lines, per booking."""
    total = max(count.total, 1)
    ((largest, own),) = count.exclusive.most_common(1) or [(None, 0)]
    codes = count.codes
    lines: list[dict[str, object]] = [
        {
            "figure": "booking_bytecodes",
            "bookings": bookings,
            "per_booking": round(total / bookings, 1),
            "largest_exclusive": {
                "function": function_name(codes[largest]) if largest is not None else None,
                "share": round(own / total, 4),
            },
        }
    ]
    for key, inclusive in count.inclusive.most_common(top):
        lines.append(
            {
                "function": function_name(codes[key]),
                "inclusive": round(inclusive / bookings, 1),
                "exclusive": round(count.exclusive[key] / bookings, 1),
                "inclusive_share": round(inclusive / total, 4),
            }
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the count; return the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=100, help="bookings traced")
    parser.add_argument("--warm", type=int, default=300, help="bookings made before, untraced")
    parser.add_argument("--top", type=int, default=40, help="functions printed")
    args = parser.parse_args(argv)
    if args.bookings < 1 or args.warm < 0 or args.top < 0:
        parser.error("--bookings must be at least 1, --warm and --top at least 0")
    count = booking_bytecodes(args.bookings, args.warm)
    for line in report(count, args.bookings, args.top):
        print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
