"""The examples and the README's code run as written."""

from __future__ import annotations

import pathlib
import re
import runpy
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_example_runs(path: pathlib.Path):
    """Each example runs to the end and prints something."""
    result = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=120, check=False
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_quickstart_prints_the_catalogue():
    """The quickstart sets up Acme Spa and prints its services, staff and blocks."""
    module = runpy.run_path(str(ROOT / "examples" / "quickstart.py"))
    text = module["catalogue"](module["build"]())

    assert "Service Deep-tissue massage: 60 min (+15 min padding)" in text
    assert "with Ben (America/Chicago)" in text
    assert "blocked 1200-1300 (Lunch)" in text
    assert "closed 2026-12-25 (Christmas)" in text


def test_quickstart_prints_a_week_of_availability():
    """The quickstart's week skips Ana's lunch block and shows Ben in his Chicago hours."""
    module = runpy.run_path(str(ROOT / "examples" / "quickstart.py"))
    text = module["week_of_availability"](module["build"]())
    lines = {line.split()[3]: line for line in text.splitlines()[1:] if line.startswith("  Mon")}

    assert "11:00 AM 1:00 PM" in lines["Ana"]  # 60 min + lunch 12:00-13:00 blocked
    assert lines["Ben"].split()[4:6] == ["10:00", "AM"]  # 09:00 Chicago is 10:00 New York
    assert "Sun" not in text  # closed on Sundays


def _python_blocks(markdown: pathlib.Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown.read_text(), re.DOTALL)


DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [(path, code) for path in DOC_FILES for code in _python_blocks(path)]


@pytest.mark.parametrize(
    ("path", "code"), BLOCKS, ids=[f"{path.name}-{index}" for index, (path, _) in enumerate(BLOCKS)]
)
def test_docs_code_block_runs(path: pathlib.Path, code: str, capsys: pytest.CaptureFixture[str]):
    """Each ```python block in the README and docs runs without error."""
    exec(compile(code, str(path), "exec"), {"__name__": "__docs__"})

    assert capsys.readouterr().err == ""


def test_readme_has_exactly_two_setup_commands():
    """The README's set-up section has exactly two bash commands: the main job and the tests."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)

    assert [c.strip() for c in commands] == [
        "pip install . && python examples/quickstart.py",
        "pip install '.[test]' && python -m pytest",
    ]


def test_notebook_tour_writes_its_files(tmp_path: pathlib.Path):
    """examples/notebook.py writes the grid, the picture and the calendar, and a utilisation."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "notebook.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert "Ana: 180 min booked of 2100 bookable (9%)" in result.stdout
    assert (tmp_path / "week.png").read_bytes()[:4] == b"\x89PNG"
    assert b"BEGIN:VCALENDAR" in (tmp_path / "ana.ics").read_bytes()
    assert "<table class='sw-grid'>" in (tmp_path / "week.html").read_text()
