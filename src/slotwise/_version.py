"""The installed distribution's version: ``pyproject.toml`` is the one place it is written."""

from __future__ import annotations

from importlib import metadata

__all__ = ["VERSION"]

try:
    VERSION = metadata.version("slotwise")
except metadata.PackageNotFoundError:  # a source tree on sys.path, never installed
    VERSION = "0+unknown"
