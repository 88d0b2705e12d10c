"""
No module of the package over 500 lines, no class over 300 (issue 23, "the house").

A module or class past these sizes holds more than one idea (STYLE.md: each module owns one);
this test keeps the limits from being crossed again quietly. Every ``.py`` file under
``src/slotwise`` is read, so a new module is checked without editing this test.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import slotwise

PACKAGE = Path(slotwise.__file__).parent
MODULE_LINES = 500
CLASS_LINES = 300

MODULES = sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_module_is_at_most_500_lines(path: Path):
    """The module has at most 500 lines."""
    lines = len(path.read_text(encoding="utf-8").splitlines())

    assert lines <= MODULE_LINES, f"{_name(path)} has {lines} lines (at most {MODULE_LINES})"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_every_class_is_at_most_300_lines(path: Path):
    """Each class of the module, decorators and docstring included, has at most 300 lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    too_long = {
        node.name: node.end_lineno
        - min([node.lineno, *(d.lineno for d in node.decorator_list)])
        + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None
    }
    too_long = {name: lines for name, lines in too_long.items() if lines > CLASS_LINES}

    assert not too_long, f"{_name(path)}: classes over {CLASS_LINES} lines: {too_long}"


def test_the_package_has_modules():
    """The walk finds the package's modules (a wrong path would pass every test above)."""
    assert len(MODULES) > 100
    assert PACKAGE / "__init__.py" in MODULES
