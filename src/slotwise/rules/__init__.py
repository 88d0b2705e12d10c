"""
Pure rules over the model: repeat-rule expansion (``repeat``), interval algebra (``intervals``),
which webhook destinations are acceptable (``destinations``) and what a signing key stands for
(``signing_keys``).

Nothing here reads a store or a clock; every function is a pure function of its arguments.
"""

from __future__ import annotations
