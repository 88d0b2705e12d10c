"""Hypothesis state machines (STYLE rule 33)."""

from __future__ import annotations
