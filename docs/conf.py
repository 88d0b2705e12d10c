"""Sphinx configuration of the slotwise documentation site (MyST Markdown, furo)."""

from __future__ import annotations

import sys
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer

from slotwise._version import VERSION

project = "slotwise"
author = "the slotwise developers"
copyright = f"2026, {author}"  # the footer: "Copyright © 2026, the slotwise developers"
release = VERSION
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown"}
html_theme = "furo"
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
exclude_patterns = ["_build"]

_MISSING = object()


def _exporters(name: str, obj: object) -> list[str]:
    """Return the loaded slotwise modules that bind *name* to *obj*, the deepest (defining) first."""
    found = [
        module_name
        for module_name, module in sorted(sys.modules.items())
        if module_name.split(".")[0] == "slotwise" and getattr(module, name, _MISSING) is obj
    ]
    return sorted(found, key=lambda module_name: -module_name.count("."))


def _docstring_where_defined(
    app: Sphinx, what: str, name: str, obj: object, options: Any, lines: list[str]
) -> None:
    """Give a re-exported constant or type alias the docstring written under its definition."""
    # An instance's own __doc__ is its class's (MetaData's, a tuple's): the written one wins.
    if what not in {"data", "type"}:
        return
    short = name.rpartition(".")[2]
    for module_name in _exporters(short, obj):
        try:
            attr_docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
        except PycodeError:
            continue
        if ("", short) in attr_docs:
            lines[:] = list(attr_docs["", short])
            return


def _skip_contract_tests(
    app: Sphinx, what: str, name: str, obj: object, skip: bool, options: Any
) -> bool | None:
    """Leave the store contract's test methods off the API page: the classes are its API."""
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and name.startswith("test_") and module.startswith("slotwise.testing"):
        return True
    return None


def setup(app: Sphinx) -> dict[str, bool]:
    """Register the hooks: re-exported constants' docstrings, no contract test methods."""
    app.connect("autodoc-process-docstring", _docstring_where_defined)
    app.connect("autodoc-skip-member", _skip_contract_tests)
    return {"parallel_read_safe": True}
