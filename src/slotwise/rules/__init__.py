"""
Pure rules over the model: repeat-rule expansion (``repeat``) and interval algebra (``intervals``).

Nothing here reads a store or a clock; every function is a pure function of its arguments.
"""

from __future__ import annotations
