"""Enum base whose repr is valid Python, so Hypothesis failure programs paste into tests."""

from __future__ import annotations

import enum


class SpecEnum(enum.Enum):
    """An enum valued by the spec's code, with a ``Class.MEMBER`` repr."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"
