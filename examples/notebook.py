# %% [markdown]
# # A week at Northwind Physio, in a notebook
#
# Five staff in four time zones give assessments at the Midtown clinic (New York). This tour
# shows what an analyst sees in Jupyter: week grids that name people, a per-resource grid, a
# combined view of unavailable time, DataFrames (empty ones too), a picture for a report, and
# why a time is not offered.
#
# It is a notebook in the percent format (`# %%` cells: Jupyter with Jupytext, VS Code, or
# `tests/test_notebook.py`, which runs it cell by cell in a fresh kernel with `nbclient`) and a
# script: `pip install '.[examples]' && python examples/notebook.py`. With
# `SLOTWISE_NOTEBOOK_OUTPUT=folder` set, the last cell writes the grids and the picture there
# (`docs/_static/` holds the ones the documentation shows).

# %%
import os
import pathlib
from datetime import UTC, date, datetime, timedelta

from slotwise import (
    BusinessHours,
    DayHours,
    DayWindow,
    Holiday,
    RepeatRule,
    RoundRobin,
    Scheduler,
    WeeklyHours,
)
from slotwise.plot import availability
from slotwise.testing import ManualClock

MONDAY, SUNDAY = date(2026, 11, 23), date(2026, 11, 29)
THANKSGIVING = date(2026, 11, 26)

scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)))  # 07:00 NY
company = scheduler.create_company(name="Northwind Physio", timezone="America/New_York")
ws = scheduler.for_company(company.id)
midtown = ws.locations.create(
    name="Midtown", business_hours=BusinessHours(sat=DayHours.open(1000, 1400))
)
ws.locations.set_holidays(midtown.id, [Holiday(date=THANKSGIVING, name="Thanksgiving")])
assessment = ws.services.create(name="Assessment", duration=60, padding=15, reason="menu")
follow_up = ws.services.create(name="Follow-up", duration=30, reason="menu")
taping = ws.services.create(name="Sports taping", duration=45, reason="menu")


def weekdays(start: int, end: int, saturday: tuple[int, int] | None = None) -> WeeklyHours:
    """Return Monday-Friday start..end (HHMM), and Saturday when given."""
    day = DayWindow(start_time=start, end_time=end)
    sat = DayWindow(start_time=saturday[0], end_time=saturday[1]) if saturday else None
    return WeeklyHours(mon=day, tue=day, wed=day, thu=day, fri=day, **({"sat": sat} if sat else {}))


staff = {}
for name, zone, hours in (
    ("Ana Silva", "America/New_York", weekdays(900, 1700)),
    ("Ben Okafor", "America/Chicago", weekdays(800, 1600, saturday=(900, 1300))),
    ("Chloé Martin", "Europe/Paris", weekdays(1500, 2100)),  # 09:00-15:00 in New York
    ("Dev Patel", "America/Los_Angeles", weekdays(900, 1700)),  # from 12:00 in New York
    ("Eve Novak", "America/New_York", weekdays(1300, 1700)),
):
    staff[name] = ws.resources.create(
        name=name, timezone=zone, weekly_hours=hours, reason="team",
        linked_service_ids=[assessment.id, follow_up.id, taping.id],
    )  # fmt: skip
ana, ben = staff["Ana Silva"], staff["Ben Okafor"]
ws.resources.create_block(
    ana.id, start_date=MONDAY, end_date="never", start_time=1200, end_time=1300,
    reason="Lunch", repeat=RepeatRule(frequency="W", weekdays="12345"),
)  # fmt: skip
for resource, day, hour in ((ana, 24, 15), (ana, 24, 18), (ben, 23, 16), (ben, 25, 14)):
    start = datetime(2026, 11, day, hour, tzinfo=UTC)  # 10:00, 13:00, 11:00, 09:00 New York
    ws.appointments.create(
        assessment.id, start, start + timedelta(hours=1), resource_id=resource.id,
        name="Sam Lee", email="sam@example.com", complete_booking="BK",
    )  # fmt: skip

# %% [markdown]
# ## The week, as Jupyter shows it
#
# Several staff can start at the same time, so the grid counts them (hover for the names).

# %%
week = ws.availability.times(
    assessment.id, MONDAY, SUNDAY, location_id=midtown.id, round_robin=RoundRobin.NONE
)
print(week)
week

# %% [markdown]
# One grid per resource, each labelled with the person's name:

# %%
week.grid("resources")

# %% [markdown]
# ## What is not bookable, and for whom
#
# A reason shared by everyone shades the hour; otherwise the cell says who is free and why
# the others are not.

# %%
gone = ws.availability.unavailable(assessment.id, MONDAY, SUNDAY, location_id=midtown.id)
print(gone)
gone

# %% [markdown]
# ## DataFrames
#
# Ids stay in the data, names come along; dates are the libraries' date types.

# %%
frame = week.to_pandas()
per_day = frame.groupby(["resource_name", "date"]).size().unstack(fill_value=0)
print(per_day.to_string())
print(week.to_polars().select("resource_name", "date", "start").head(2))
per_day

# %% [markdown]
# Thanksgiving is a holiday: no slots, yet the frame keeps its columns and dtypes.

# %%
holiday = ws.availability.times(assessment.id, THANKSGIVING, THANKSGIVING, location_id=midtown.id)
empty = holiday.to_pandas()
print(empty.shape, empty["start"].dtype, empty["date"].dtype)
print(holiday.to_polars().schema)

# %% [markdown]
# ## A picture for a report

# %%
figure = availability(week, gone)
figure

# %% [markdown]
# ## Why not?
#
# Ana is free at 09:00 on Tuesday, but the assessment's 15 minutes of padding would run into
# her 10:00 booking.

# %%
why = ws.availability.explain(
    assessment.id, datetime(2026, 11, 24, 14, tzinfo=UTC), resource_id=ana.id
)
print(why)
for line in why.summary:
    print(line)

# %%
if os.environ.get("SLOTWISE_NOTEBOOK_OUTPUT"):
    folder = pathlib.Path(os.environ["SLOTWISE_NOTEBOOK_OUTPUT"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notebook-week.html").write_text(week._repr_html_())
    (folder / "notebook-resources.html").write_text(str(week.grid("resources")))
    (folder / "notebook-unavailable.html").write_text(gone._repr_html_())
    figure.savefig(folder / "notebook-plot.png", dpi=80)
    print(f"wrote the grids and the picture to {folder}")
