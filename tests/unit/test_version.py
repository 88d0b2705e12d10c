"""``slotwise.__version__`` is the installed distribution's version, written once in pyproject."""

from __future__ import annotations

from importlib import metadata

import slotwise


def test_version_is_read_from_the_installed_metadata():
    """The package reports the version pip installed, not a copy kept by hand."""
    assert metadata.version("slotwise") == slotwise.__version__
