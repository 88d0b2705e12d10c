"""``python -m slotwise``: the command line (see :mod:`slotwise.cli`)."""

from __future__ import annotations

import sys

from slotwise.cli import main

sys.exit(main())
