"""
Running notebooks as a user does: percent-format scripts (``# %%`` cells) turned into notebooks
with nbformat and executed by nbclient in a fresh kernel that imports this slotwise.
"""

from __future__ import annotations

import os
import pathlib
from html.parser import HTMLParser
from typing import Any

import slotwise

KERNEL_TIMEOUT = 180
"""Seconds a cell may take (a cold kernel imports pandas, polars and matplotlib)."""


def cells_of(source: str) -> list[tuple[str, str]]:
    """Return the ``(kind, text)`` cells of a percent-format script (``code`` or ``markdown``)."""
    cells: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        if line.startswith("# %%"):
            cells.append(("markdown" if "[markdown]" in line else "code", []))
        elif cells:
            cells[-1][1].append(line)
    found = []
    for kind, lines in cells:
        if kind == "markdown":
            lines = [line[2:] if line.startswith("# ") else line.lstrip("#") for line in lines]
        text = "\n".join(lines).strip()
        if text:
            found.append((kind, text))
    return found


def run(
    cells: list[tuple[str, str]], *, cwd: pathlib.Path, env: dict[str, str] | None = None
) -> Any:
    """
    Execute *cells* in a fresh ``python3`` kernel and return the executed notebook.

    The kernel imports the slotwise these tests import (the source tree or the installed
    wheel): its parent folder leads ``PYTHONPATH``. ``MPLBACKEND`` is left unset so the kernel
    picks Jupyter's inline backend as it does for a user.
    """
    import nbclient
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.cells = [
        nbformat.v4.new_markdown_cell(text)
        if kind == "markdown"
        else nbformat.v4.new_code_cell(text)
        for kind, text in cells
    ]
    kernel_env = {key: value for key, value in os.environ.items() if key != "MPLBACKEND"}
    package_parent = str(pathlib.Path(slotwise.__file__).resolve().parents[1])
    kernel_env["PYTHONPATH"] = os.pathsep.join(
        [package_parent, *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    kernel_env.update(env or {})
    client = nbclient.NotebookClient(
        notebook,
        timeout=KERNEL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
    )
    client.execute(env=kernel_env)
    return notebook


def outputs(notebook: Any, marker: str) -> list[Any]:
    """Return the outputs of the first code cell whose source contains *marker*."""
    cell = next(c for c in notebook.cells if c.cell_type == "code" and marker in c.source)
    return list(cell.outputs)


def data(notebook: Any, marker: str, mime: str) -> Any:
    """Return the *mime* data that the cell with *marker* displayed or returned."""
    found = [o["data"][mime] for o in outputs(notebook, marker) if mime in o.get("data", {})]
    assert found, f"no {mime} output in the cell with {marker!r}"
    return found[-1]


def printed(notebook: Any, marker: str) -> str:
    """Return what the cell with *marker* printed to stdout."""
    return "".join(
        o.get("text", "") for o in outputs(notebook, marker) if o.get("name") == "stdout"
    )


class GridCells(HTMLParser):
    """Table captions and cells (class, title, text; ``<br>`` as a newline)."""

    def __init__(self) -> None:
        super().__init__()
        self.captions: list[str] = []
        self.cells: list[list[str]] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        """Open a caption or a cell."""
        found = dict(attrs)
        if tag == "caption":
            self._in = "caption"
            self.captions.append("")
        elif tag == "td":
            self._in = "td"
            self.cells.append([found.get("class") or "", found.get("title") or "", ""])
        elif tag == "br" and self._in == "td":
            self.cells[-1][2] += "\n"

    def handle_endtag(self, tag):
        """Close it."""
        if tag in ("caption", "td"):
            self._in = None

    def handle_data(self, data):
        """Add text to what is open."""
        if self._in == "caption":
            self.captions[-1] += data
        elif self._in == "td":
            self.cells[-1][2] += data


def parse_grid(markup: str) -> GridCells:
    """Return the captions and cells of the grids in *markup*."""
    parser = GridCells()
    parser.feed(markup)
    return parser
