"""
The package's layers import only downwards (docs/design.md states the order).

Every ``import`` in ``src/slotwise`` — at module level or inside a function — is read from the
source, so a new module is checked without editing this test; one placed in no layer fails it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import slotwise

PACKAGE = Path(slotwise.__file__).parent

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "slotwise.errors",
        "slotwise.clock",
        "slotwise._time",
        "slotwise.paging",
        "slotwise.tables",
        "slotwise._version",
        "slotwise._settings",
    ),
    ("slotwise.model",),
    ("slotwise.rules",),
    ("slotwise.storage",),
    ("slotwise.availability",),
    ("slotwise.operations",),
    ("slotwise.booking",),
    ("slotwise.scheduler",),
    ("slotwise.http", "slotwise.webhooks", "slotwise.ics", "slotwise.plot", "slotwise._figure"),
    (
        "slotwise.testing",
        "slotwise.demo",
        "slotwise.cli",
        "slotwise._cli_parser",
        "slotwise.__main__",
    ),
)
"""From the bottom up: a module may import its own layer and those listed before it."""

_TOP = len(LAYERS)


def _layer(module: str) -> int | None:
    if module == "slotwise":
        return _TOP  # the public re-exports sit above everything
    best: tuple[int, int] | None = None
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module == prefix or module.startswith(prefix + ".")
            if inside and (best is None or len(prefix) > best[1]):
                best = (rank, len(prefix))
    return None if best is None else best[0]


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((name, path))
    return found


def _imports(name: str, path: Path) -> list[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    imported = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            imported.append(target)
    return [module for module in imported if module.split(".")[0] == "slotwise"]


MODULES = _modules()


@pytest.mark.parametrize(("name", "path"), MODULES, ids=[name for name, _ in MODULES])
def test_imports_point_down_the_layers(name: str, path: Path):
    """A module imports only from its own layer or lower ones."""
    rank = _layer(name)
    assert rank is not None, f"{name} is in no layer: add it to docs/design.md and LAYERS"
    upward = [module for module in _imports(name, path) if (_layer(module) or 0) > rank]

    assert [] == upward


def test_every_layer_names_a_real_package():
    """The layer table names only modules that exist, so it cannot silently go stale."""
    names = {name for name, _ in MODULES}
    missing = [
        prefix
        for prefixes in LAYERS
        for prefix in prefixes
        if not any(name == prefix or name.startswith(prefix + ".") for name in names)
    ]

    assert [] == missing
