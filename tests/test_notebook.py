"""
The notebook face as a user meets it: ``examples/notebook.py`` executed cell by cell in a fresh
Jupyter kernel (nbclient), its rendered outputs checked, and the pictures ``docs/notebooks.md``
shows regenerated and compared (issue 22).
"""

from __future__ import annotations

import pathlib
import re

import pytest

from tests.notebooks import cells_of, data, outputs, parse_grid, printed, run

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("pandas")
pytest.importorskip("polars")
pytest.importorskip("matplotlib")

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "notebook.py"
PICTURES = ROOT / "docs" / "_static"
HEX_ID = re.compile(r"\b[0-9a-f]{32}\b")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The example notebook after a fresh kernel ran it, and the folder its last cell wrote."""
    folder = tmp_path_factory.mktemp("notebook")
    notebook = run(
        cells_of(EXAMPLE.read_text()), cwd=folder, env={"SLOTWISE_NOTEBOOK_OUTPUT": str(folder)}
    )
    return notebook, folder


class TestExecutedNotebook:
    """What the analyst sees in Jupyter, cell by cell."""

    def test_every_cell_ran(self, executed):
        """No cell raised: nbclient would have stopped, and no output is an error."""
        notebook, _ = executed

        assert not [
            output
            for cell in notebook.cells
            if cell.cell_type == "code"
            for output in cell.outputs
            if output.output_type == "error"
        ]

    def test_week_grid_counts_staff_and_names_them(self, executed):
        """Five staff: the week shows counts per hour, names on hover, no id anywhere."""
        notebook, _ = executed
        grid = parse_grid(data(notebook, "week = ws.availability.times(", "text/html"))

        assert grid.captions[0].startswith(
            "Assessment at Midtown, Mon 23 Nov - Sun 29 Nov 2026 (America/New_York)"
        )
        assert ["sw-free", "Ana Silva, Ben Okafor, Chloé Martin", "3"] in grid.cells  # Mon 09:00
        assert not HEX_ID.search(data(notebook, "week = ws.availability.times(", "text/html"))

    def test_one_grid_per_resource(self, executed):
        """week.grid('resources'): a grid per person, captioned by name, sorted by name."""
        notebook, _ = executed
        grid = parse_grid(data(notebook, 'week.grid("resources")', "text/html"))

        assert [caption.split(":")[0] for caption in grid.captions] == [
            "Ana Silva",
            "Ben Okafor",
            "Chloé Martin",
            "Dev Patel",
            "Eve Novak",
        ]

    def test_unavailable_view_says_what_holds_for_whom(self, executed):
        """Saturday 10:00: Ben is free, the others are outside their hours; not shaded for all."""
        notebook, _ = executed
        grid = parse_grid(data(notebook, "gone = ws.availability.unavailable(", "text/html"))
        saturday_ten = [cell for cell in grid.cells if cell[2].startswith("free Ben Okafor\n")]

        assert saturday_ten
        assert ("sw-mixed", "RH Ana Silva, Chloé Martin, Dev Patel, Eve Novak") == (
            saturday_ten[0][0],
            saturday_ten[0][2].split("\n")[1],
        )

    def test_frame_has_names_and_dates(self, executed):
        """The frame cell shows slots per person and date, as an HTML table."""
        notebook, _ = executed
        table = data(notebook, "frame = week.to_pandas()", "text/html")
        text = printed(notebook, "frame = week.to_pandas()")

        assert "Ana Silva" in table
        assert "Eve Novak" in text
        assert "2026-11-28" in text  # a date column grouped as a date

    def test_polars_frame_of_the_week_has_zoned_starts(self, executed):
        """The same week in polars: names, dates as dates, starts in the location's zone."""
        notebook, _ = executed
        text = printed(notebook, "frame = week.to_pandas()")

        assert "datetime[μs, America/New_York]" in text
        assert "resource_name" in text
        assert "date" in text

    def test_empty_holiday_frame_keeps_its_columns(self, executed):
        """Thanksgiving has no slots; both frames still have every column and typed dtypes."""
        notebook, _ = executed
        text = printed(notebook, "holiday = ws.availability.times(")

        assert text.startswith("(0, 15) datetime64[us, America/New_York] datetime64[s]")
        assert "('date', Date)" in text
        assert "('resource_name', String)" in text

    def test_plot_shows_as_a_png(self, executed):
        """availability(week, gone) as a cell's value shows as an image in a fresh kernel."""
        notebook, _ = executed
        kinds = [set(o.get("data", {})) for o in outputs(notebook, "figure = availability(")]

        assert any("image/png" in found for found in kinds)

    def test_why_not_names_padding_and_the_appointment(self, executed):
        """09:00 Tuesday is refused because of padding, with Ana's appointment's id."""
        notebook, _ = executed
        text = printed(notebook, "why = ws.availability.explain(")

        assert "at 2026-11-24 09:00 EST" in text
        assert "BK This service's padding (15 min) runs into an appointment 10:00-10:15" in text
        assert HEX_ID.search(text.split("appointment ")[-1])


class TestDocsPictures:
    """docs/_static holds what the example renders, so the docs' pictures cannot drift far."""

    @pytest.mark.parametrize(
        "name", ["notebook-week.html", "notebook-resources.html", "notebook-unavailable.html"]
    )
    def test_grids_are_what_the_example_renders(self, executed, name):
        """Each committed grid is byte for byte the one the notebook writes (ids never show)."""
        _, folder = executed

        assert (PICTURES / name).read_text() == (folder / name).read_text()

    def test_plot_is_what_the_example_renders(self, executed):
        """Same size, and nearly every pixel the same (matplotlib versions anti-alias apart)."""
        import matplotlib.image

        _, folder = executed
        committed = matplotlib.image.imread(PICTURES / "notebook-plot.png")
        rendered = matplotlib.image.imread(folder / "notebook-plot.png")

        assert committed.shape == rendered.shape
        assert abs(committed - rendered).mean() < 0.02


WORLD = """
from datetime import UTC, date, datetime
from slotwise import Scheduler
from slotwise.testing import ManualClock
scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)))
ws = scheduler.for_company(scheduler.create_company(name="Acme", timezone="America/New_York").id)
ws.locations.create(name="Downtown")
cut = ws.services.create(name="Cut", duration=30, reason="r")
ws.resources.create(name="Ana", reason="r")
week = ws.availability.times(cut.id, date(2026, 11, 23), date(2026, 11, 29))
gone = ws.availability.unavailable(cut.id, date(2026, 11, 23), date(2026, 11, 29))
"""
PLOT_CELLS = [
    ("code", "import matplotlib\nbefore = matplotlib.get_backend()\nprint(before)"),
    ("code", WORLD + "from slotwise.plot import availability\navailability(week, gone)"),
    ("code", "import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.show()"),
    ("code", "print(matplotlib.get_backend() == before)"),
]


def test_plot_leaves_the_kernels_backend_alone(tmp_path):
    """In a fresh kernel the plot shows, and pyplot figures drawn after it still show."""
    notebook = run(PLOT_CELLS, cwd=tmp_path)
    backend = printed(notebook, "before = matplotlib.get_backend()").strip()
    shown_plot = [set(o.get("data", {})) for o in outputs(notebook, "availability(week, gone)")]
    shown_pyplot = [set(o.get("data", {})) for o in outputs(notebook, "plt.plot(")]

    assert "inline" in backend
    assert any("image/png" in found for found in shown_plot)
    assert any("image/png" in found for found in shown_pyplot)
    assert "True" == printed(notebook, "== before").strip()
