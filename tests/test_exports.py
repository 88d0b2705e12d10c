"""The public API: everything public is exported, and `__all__` is grouped and sorted."""

from __future__ import annotations

import ast
import pathlib

import slotwise

INIT = pathlib.Path(slotwise.__file__).with_name("__init__.py")


def _groups() -> list[list[str]]:
    """Split `__all__` at its comment lines, as written in the source."""
    groups: list[list[str]] = []
    inside = False
    for line in INIT.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("__all__"):
            inside = True
            continue
        if inside and stripped == "]":
            break
        if inside and stripped.startswith("#"):
            groups.append([])
        elif inside and stripped:
            groups[-1].append(ast.literal_eval(stripped.rstrip(",")))
    return groups


def test_every_public_attribute_is_in_all():
    """Every public name the package defines or imports is listed in __all__, and vice versa."""
    public = {
        name
        for name in vars(slotwise)
        if not name.startswith("_")
        and not isinstance(getattr(slotwise, name), type(slotwise))  # submodules
        and name != "annotations"
    }

    assert set(slotwise.__all__) == public


def test_all_is_sorted_within_groups():
    """Each commented group of __all__ is sorted, and no name appears twice."""
    groups = _groups()

    assert [sorted(group) for group in groups] == groups
    assert sum(len(group) for group in groups) == len(set(slotwise.__all__))


def test_version_is_exposed():
    """The package exposes a version string."""
    assert isinstance(slotwise.__version__, str)
    assert slotwise.__version__


def test_importing_slotwise_imports_no_driver():
    """`import slotwise` pulls in no optional dependency (STYLE: backends stay in their modules)."""
    import subprocess
    import sys

    code = "import sys, slotwise; print(sorted(m for m in ('pycountry','sqlalchemy','psycopg') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert out.stdout.strip() == "[]"
