"""
A notebook-style tour: a week of a small spa as an HTML grid, a DataFrame, a picture and a calendar.

Run it: ``pip install '.[pandas,plot,ics]' && python examples/notebook.py [OUTPUT_FOLDER]``. It
writes ``week.html``, ``unavailable.html``, ``week.png`` and ``ana.ics`` to the folder (a new
temporary one by default) and prints the utilisation of each resource.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
from datetime import UTC, date, datetime, timedelta

from slotwise import RepeatRule, RoundRobin, Scheduler
from slotwise.ics import export_resource
from slotwise.plot import availability
from slotwise.testing import ManualClock, SequentialIds

MONDAY = date(2026, 11, 23)


def build() -> tuple[object, str, dict[str, str]]:
    """Acme Spa: Ana and Ben give massages; Ana lunches at noon; a few bookings on Tuesday."""
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)), ids=SequentialIds()
    )
    company = scheduler.create_company(name="Acme Spa", timezone="America/New_York")
    acme = scheduler.for_company(company.id)
    acme.locations.create(name="Downtown")
    massage = acme.services.create(name="Massage", duration=60, reason="menu")
    ana = acme.resources.create(name="Ana", reason="team")
    ben = acme.resources.create(name="Ben", reason="team")
    acme.resources.create_block(
        ana.id, start_date=MONDAY, end_date="never", start_time=1200, end_time=1300,
        reason="Lunch", repeat=RepeatRule(frequency="W", weekdays="12345"),
    )  # fmt: skip
    tuesday_nine = datetime(2026, 11, 24, 14, tzinfo=UTC)  # 09:00 in New York
    for hour, resource in ((0, ana), (1, ana), (3, ben), (5, ana)):
        start = tuesday_nine + timedelta(hours=hour)
        acme.appointments.create(
            massage.id, start, start + timedelta(hours=1), resource_id=resource.id,
            name=f"Guest {hour}", email=f"guest{hour}@example.com", complete_booking="BK",
        )  # fmt: skip
    return acme, massage.id, {ana.id: "Ana", ben.id: "Ben"}


def main(folder: pathlib.Path) -> None:
    """Write the files and print the week, its utilisation and what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    acme, massage, names = build()
    week = acme.availability.times(  # type: ignore[attr-defined]
        massage, MONDAY, MONDAY + timedelta(days=6), round_robin=RoundRobin.NONE
    )
    gone = acme.availability.unavailable(massage, MONDAY, MONDAY + timedelta(days=6))  # type: ignore[attr-defined]
    print(week)
    (folder / "week.html").write_text(week._repr_html_())
    (folder / "unavailable.html").write_text(gone._repr_html_())

    # Utilisation: booked minutes over bookable minutes (booked + free). unavailable() covers
    # every minute that is not bookable, with its reason, so free = the week - unavailable.
    frame = gone.to_pandas()
    frame["minutes"] = (frame["end"] - frame["start"]).dt.total_seconds() / 60
    minutes = frame.pivot_table(
        index="resource_id", columns="reason_code", values="minutes", aggfunc="sum",
        fill_value=0, observed=True,
    )  # fmt: skip
    week_minutes = 7 * 24 * 60
    for resource_id, name in names.items():
        row = minutes.loc[resource_id]
        booked = float(row.get("BK", 0))
        free = week_minutes - float(row.sum())
        print(f"{name}: {booked:.0f} min booked of {booked + free:.0f} bookable "
              f"({booked / (booked + free):.0%})")  # fmt: skip
    print(minutes.rename(index=names).to_string())

    availability(week, gone, names=names).savefig(folder / "week.png", dpi=80)
    ana_id = next(resource for resource, name in names.items() if name == "Ana")
    (folder / "ana.ics").write_bytes(export_resource(acme, ana_id))  # type: ignore[arg-type]
    for name in ("week.html", "unavailable.html", "week.png", "ana.ics"):
        print(f"wrote {folder / name} ({(folder / name).stat().st_size} bytes)")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(tempfile.mkdtemp()))
