"""
The instruction-count benchmark (``benchmarks/instructions.py``): its arithmetic, its output and
its scripts. valgrind itself is not run here (a counted run takes minutes); the child scripts are
run directly, so a script that no longer works fails here first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


@pytest.fixture
def instructions(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The benchmark module, imported from its directory."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import instructions

    yield instructions
    sys.modules.pop("instructions", None)


class TestInstructionsBenchmark:
    def test_per_operation_subtracts_the_set_up(
        self, instructions: ModuleType, monkeypatch: pytest.MonkeyPatch
    ):
        """(count with N operations - count with none) / N, rounded, one JSON-ready dict."""
        counts = {0: 1_000_000, 50: 1_000_000 + 50 * 1_234_567}
        monkeypatch.setattr(instructions, "instructions", lambda _script, n: counts[n])

        report = instructions.per_operation("booking", 50)

        assert {"figure": "booking", "count": 50, "instructions_per_operation": 1_234_567} == report

    def test_with_seeds_it_counts_under_each_and_gives_their_mean(
        self, instructions: ModuleType, monkeypatch: pytest.MonkeyPatch
    ):
        """--seeds: one per-operation figure per hash seed, their mean the figure."""
        per_seed = {0: 1_000, 1: 1_010, 2: 1_030}
        monkeypatch.setattr(
            instructions, "instructions", lambda _script, n, seed=None: 50 + n * per_seed[seed]
        )

        report = instructions.per_operation("booking", 10, [0, 1, 2])

        assert {
            "figure": "booking",
            "count": 10,
            "instructions_per_operation": 1_013,
            "seeds": [0, 1, 2],
            "per_seed": [1_000, 1_010, 1_030],
        } == report

    def test_a_seed_reaches_the_counted_python_as_its_hash_seed(
        self, instructions: ModuleType, monkeypatch: pytest.MonkeyPatch
    ):
        """The child runs with PYTHONHASHSEED set to the seed (and without one, as inherited)."""
        seen: list[str | None] = []

        def run(*_args: object, env: dict[str, str], **_kwargs: object) -> object:
            seen.append(env.get("PYTHONHASHSEED"))
            return subprocess.CompletedProcess([], 0, "", "Collected : 42")

        monkeypatch.delenv("PYTHONHASHSEED", raising=False)
        monkeypatch.setattr(instructions.subprocess, "run", run)

        assert 42 == instructions.instructions("pass", 1, 7)
        assert 42 == instructions.instructions("pass", 1)
        assert ["7", None] == seen

    def test_prints_one_json_line_per_figure(
        self,
        instructions: ModuleType,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ):
        """main() prints a line per figure; the availability figure counts a twentieth."""
        monkeypatch.setattr(instructions.shutil, "which", lambda _name: "/usr/bin/valgrind")
        monkeypatch.setattr(instructions, "instructions", lambda _script, n: 7 * n)

        status = instructions.main(["--figures", "booking", "availability", "--count", "40"])

        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert 0 == status
        assert [("booking", 40, 7), ("availability", 2, 7)] == [
            (line["figure"], line["count"], line["instructions_per_operation"]) for line in lines
        ]

    def test_without_a_part_it_counts_the_booking_with_that_part_made_a_no_op(
        self,
        instructions: ModuleType,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ):
        """--without PART: one more line per part, the booking's count with its script patched."""
        monkeypatch.setattr(instructions.shutil, "which", lambda _name: "/usr/bin/valgrind")
        scripts = {
            instructions._SCRIPTS["booking"]: 900,
            instructions.booking_without("event"): 800,
        }
        monkeypatch.setattr(instructions, "instructions", lambda script, n: n * scripts[script])

        status = instructions.main(["--figures", "booking", "--count", "10", "--without", "event"])

        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert 0 == status
        assert [("booking", 900), ("booking-without-event", 800)] == [
            (line["figure"], line["instructions_per_operation"]) for line in lines
        ]

    @pytest.mark.parametrize(
        ("part", "left_out"),
        [
            ("slot_check", "nothing"),
            ("event", "events"),
            ("audit", "audit"),
            ("reminders", "nothing"),
            ("field_checks", "nothing"),
            ("customer_limits", "nothing"),
            ("boundary", "nothing"),
        ],
    )
    def test_each_part_left_out_still_books_and_leaves_out_what_it_writes(
        self, instructions: ModuleType, part: str, left_out: str
    ):
        """Each --without script books (no valgrind, two bookings); event and audit write none."""
        code = (
            f"import sys\nsys.path.insert(0, {str(BENCHMARKS)!r})\nCOUNT = 2\n"
            + instructions.booking_without(part)
            + "\nfrom slotwise import Appointment\n"
            "with business.store.read() as reader:\n"
            "    company_id = business.ws.company.get().id\n"
            "    booked = reader.find(Appointment, company_id=company_id)\n"
            "    ids = {each.id for each in booked}\n"
            "    events = [\n"
            "        event\n"
            "        for event in reader.undelivered_events(company_id=company_id, limit=1000)\n"
            "        if event.entity_id in ids\n"
            "    ]\n"
            "    audit = [entry for each in booked for entry in reader.audit_of(each.id)]\n"
            "print(len(booked), len(events), len(audit))\n"
        )

        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
        )

        assert 0 == run.returncode, run.stderr
        booked, events, audit = map(int, run.stdout.split())
        assert 3 == booked
        assert (0 if left_out == "events" else 3) == events
        assert (0 if left_out == "audit" else 3) == audit

    def test_without_valgrind_it_exits_with_status_one(
        self, instructions: ModuleType, monkeypatch: pytest.MonkeyPatch
    ):
        """No valgrind on the PATH: a message and status 1, no figures."""
        monkeypatch.setattr(instructions.shutil, "which", lambda _name: None)

        assert 1 == instructions.main(["--figures", "list"])

    def test_the_booking_parts_are_counted_alone_and_summed(
        self, instructions: ModuleType, monkeypatch: pytest.MonkeyPatch
    ):
        """booking_parts: each of the four parts (store_writes at most 1,000), then their sum."""
        each = {
            instructions._SCRIPTS[name]: cost
            for name, cost in zip(instructions.PARTS, (100, 200, 300, 400), strict=True)
        }
        counted: list[int] = []

        def count(script: str, n: int) -> int:
            counted.append(n)
            return n * each[script]

        monkeypatch.setattr(instructions, "instructions", count)

        reports = instructions.booking_parts(2_000)

        assert [*instructions.PARTS, "booking_parts"] == [report["figure"] for report in reports]
        assert 1_000 == reports[-1]["instructions_per_operation"]
        assert (
            dict(zip(instructions.PARTS, (100, 200, 300, 400), strict=True)) == reports[-1]["parts"]
        )
        assert [0, 2_000] * 3 + [0, 1_000] == counted

    def test_store_writes_refuses_more_operations_than_it_built(self, instructions: ModuleType):
        """Its records are built beforehand, 1,000 of them: a larger --count is a usage error."""
        with pytest.raises(SystemExit) as exited:
            instructions.main(["--figures", "store_writes", "--count", "1001"])

        assert 2 == exited.value.code

    @pytest.mark.parametrize(
        "figure",
        [
            "booking",
            "availability",
            "list",
            "records",
            "slot_check",
            "snapshot_read",
            "store_writes",
            "minimal_booking",
        ],
    )
    def test_each_child_script_runs(self, instructions: ModuleType, figure: str):
        """Each figure's script runs plainly (no valgrind) with two operations."""
        code = (
            f"import sys\nsys.path.insert(0, {str(BENCHMARKS)!r})\nCOUNT = 2\n"
            + instructions._SCRIPTS[figure]
        )

        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
        )

        assert 0 == run.returncode, run.stderr
