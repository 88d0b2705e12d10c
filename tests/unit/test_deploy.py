"""The systemd units shipped in ``deploy/systemd`` run real slotwise commands with real settings."""

from __future__ import annotations

import shlex
import shutil
import stat
import subprocess
import tomllib
from pathlib import Path

import pytest

from slotwise._settings import resolve
from slotwise.cli import _parser

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
COMMANDS = {"slotwise-serve.service": "serve", "slotwise-worker.service": "worker"}


def _sections(unit: Path) -> dict[str, dict[str, list[str]]]:
    """Parse a unit file: section -> key -> values (systemd allows repeated keys)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for line in unit.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"{unit.name}: {line!r} before any section"
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.mark.parametrize("name", sorted(COMMANDS))
class TestUnits:
    def test_exec_start_runs_the_slotwise_script_with_a_command_it_has(self, name: str):
        """ExecStart is the `slotwise` console script, and its arguments parse as the command."""
        [exec_start] = _sections(UNITS / name)["Service"]["ExecStart"]
        program, *arguments = shlex.split(exec_start)
        scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]

        parsed = resolve(_parser().parse_args(arguments), {})

        assert ("slotwise", "slotwise.cli:main") == (Path(program).name, scripts["slotwise"])
        assert COMMANDS[name] == parsed.command

    def test_settings_come_from_the_environment_file(self, name: str):
        """The unit reads /etc/slotwise/slotwise.env, restarts on failure and starts at boot."""
        sections = _sections(UNITS / name)

        assert ["-/etc/slotwise/slotwise.env"] == sections["Service"]["EnvironmentFile"]
        assert ["on-failure"] == sections["Service"]["Restart"]
        assert ["multi-user.target"] == sections["Install"]["WantedBy"]

    def test_systemd_analyze_verify_accepts_it(self, name: str, tmp_path: Path):
        """systemd-analyze verify, with ExecStart pointed at an executable, reports nothing."""
        analyze = shutil.which("systemd-analyze")
        if analyze is None:
            pytest.skip("systemd-analyze is not installed (the unit is parsed by the tests above)")
        [exec_start] = _sections(UNITS / name)["Service"]["ExecStart"]
        program = shlex.split(exec_start)[0]
        stub = tmp_path / "bin" / "slotwise"
        stub.parent.mkdir()
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
        unit = tmp_path / name
        unit.write_text((UNITS / name).read_text().replace(program, str(stub)))

        result = subprocess.run(
            [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60
        )

        assert (0, "") == (result.returncode, result.stderr + result.stdout)


def test_the_example_environment_file_sets_only_known_settings():
    """Every SLOTWISE_* line of slotwise.env.example is read by serve or worker without error."""
    environ = {}
    for line in (UNITS / "slotwise.env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            # systemd removes the quotes around a value (one holding spaces: the replicas).
            environ[key] = shlex.split(value)[0] if value.startswith('"') else value
    serve = vars(resolve(_parser().parse_args(["serve"]), environ))
    worker = vars(resolve(_parser().parse_args(["worker"]), environ))
    read = {key for key in environ if key.removeprefix("SLOTWISE_").lower() in {**serve, **worker}}

    assert set(environ) == read
    assert ("transaction", 8000, 4) == (serve["pool_mode"], serve["port"], worker["concurrency"])
    assert (2, 5.0) == (len(serve["replicas"]), serve["max_lag"])
    assert all(url.startswith("postgresql+psycopg://") for url in serve["replicas"])
