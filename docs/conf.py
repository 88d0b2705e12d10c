"""Sphinx configuration of the slotwise documentation site (MyST Markdown, furo)."""

from __future__ import annotations

from slotwise._version import VERSION

project = "slotwise"
author = "slotwise developers"
release = VERSION
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown"}
html_theme = "furo"
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
exclude_patterns = ["_build"]
