"""The examples and the README's code run as written."""

from __future__ import annotations

import os
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


def test_notebook_tour_runs_as_a_script(tmp_path: pathlib.Path):
    """examples/notebook.py as a script prints the week and the padding cause, writes the pictures."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "notebook.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "SLOTWISE_NOTEBOOK_OUTPUT": str(tmp_path)},
    )

    assert "AvailableTimes(service='Assessment', 2026-11-23..29, 393 slots" in result.stdout
    assert "This service's padding (15 min) runs into an appointment" in result.stdout
    assert (tmp_path / "notebook-plot.png").read_bytes()[:4] == b"\x89PNG"
    assert "<table class='sw-grid'>" in (tmp_path / "notebook-week.html").read_text()


def _printed(name: str, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run examples/<name>.py's main() in this process and return what it printed."""
    module = runpy.run_path(str(ROOT / "examples" / f"{name}.py"))
    module["main"](*args)
    return capsys.readouterr().out


def test_clinic_shows_remote_clinicians_padding_and_reminders(capsys: pytest.CaptureFixture[str]):
    """The clinic's day in Boston and in Lisbon and Denver; padding; e-mail then SMS reminder."""
    text = _printed("clinic", capsys)

    assert "Dr. Ana Silva   23 starts, 09:00-14:30 Boston = 14:00-19:30 Europe/Lisbon" in text
    assert "Dr. Ben Carter  23 starts, 11:00-16:30 Boston = 09:00-14:30 America/Denver" in text
    assert "Dr. Ana Silva is next free at 10:45" in text  # 10:00 + 30 min + 10 min padding
    assert "Sun 10:00: email reminder sent" in text  # a day before
    assert "Mon 08:00: sms reminder sent" in text  # two hours before
    assert text.rstrip().endswith("BookingConfirmation, EmailReminder, SmsReminder")


def test_class_studio_shows_a_full_class_and_the_next_with_room(
    capsys: pytest.CaptureFixture[str],
):
    """Monday 07:00 is full and refused; a group of four goes to the next class with room."""
    text = _printed("class_studio", capsys)

    assert "Vinyasa Flow, week of 23 Nov: 6 classes of 12 places" in text
    assert "Mon 23 Nov 07:00  full" in text
    assert "Mon 23 Nov 18:00  3 places left" in text
    assert "Eve Stone on Mon 07:00: refused (SlotUnavailable)" in text
    assert "booked the next class with room, Wed 25 Nov 07:00" in text


def test_calendar_sync_reads_google_busy_time_and_publishes_a_feed(tmp_path: pathlib.Path):
    """Google's export removes Ana's busy times; her feed holds the booking and her lunch."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "calendar_sync.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    icalendar = pytest.importorskip("icalendar")
    feed = icalendar.Calendar.from_ical((tmp_path / "ana-feed.ics").read_bytes())

    assert "Thu 26 Nov  none (busy)" in result.stdout
    assert "Mon 23 Nov  09:30-16:00" in result.stdout  # the 09:00 huddle
    assert "Wed 25 Nov  09:00-16:00" in result.stdout  # the huddle skipped that day
    assert b"PRODID:-//Google Inc//Google Calendar" in (tmp_path / "google-export.ics").read_bytes()
    assert ["Haircut: Lena Fischer", "Lunch"] == [
        str(event["summary"]) for event in feed.walk("VEVENT")
    ]


def test_custom_api_answers_through_fastapi():
    """The FastAPI app lists, books, refuses a taken slot (409) and a bad e-mail (400), cancels."""
    testclient = pytest.importorskip("fastapi.testclient")
    module = runpy.run_path(str(ROOT / "examples" / "custom_api.py"))
    client = testclient.TestClient(module["create_app"](module["demo_workspace"]()))
    [massage] = client.get("/services").json()
    free = client.get(f"/services/{massage['id']}/free", params={"day": "2026-11-24"}).json()
    form = {"service_id": massage["id"], "start": free[0]["start"], "name": "Ann Lee"}

    first = client.post("/bookings", json={**form, "email": "ann@example.com"})
    second = client.post("/bookings", json={**form, "email": "bo@example.com"})
    third = client.post("/bookings", json={**form, "email": "cy@example.com"})
    bad = client.post("/bookings", json={**form, "email": "not an e-mail"})
    cancelled = client.delete(f"/bookings/{first.json()['id']}")
    unknown = client.delete("/bookings/no-such-booking")

    assert {"id": massage["id"], "name": "Massage", "minutes": 60} == massage
    assert ("2026-11-24T09:00:00-05:00", "Ana") == (free[0]["start"], free[0]["staff"])
    assert (201, "2026-11-24T09:00:00-05:00") == (first.status_code, first.json()["start"])
    assert (201, 409, "SLOT-UNAVAILABLE") == (
        second.status_code,
        third.status_code,
        third.json()["code"],
    )
    assert (400, "email") == (bad.status_code, bad.json()["field"])
    assert (200, "CN") == (cancelled.status_code, cancelled.json()["status"])
    assert (404, "NOT-FOUND") == (unknown.status_code, unknown.json()["code"])
