"""Print pip requirements pinning the core and its runtime extras to their lowest declared versions.

Used by .ci/run: each ``name>=X`` (or ``name>=X,<Y``) of ``[project] dependencies`` and of the
runtime extras becomes ``name==X``; an extra that names slotwise itself (``slotwise[sql]``) adds
nothing, its extra is listed anyway. Tool extras (test, lint, docs, examples) are not pinned: they are how
the project is checked, not what users install with it.
"""

from __future__ import annotations

import re
import sys
import tomllib

TOOL_EXTRAS = frozenset({"test", "lint", "docs", "examples"})
LOWER_BOUND = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+(?:\[[^\]]+\])?)\s*>=\s*(?P<version>[^,;\s]+)")


def lowest_pins(project: dict[str, object]) -> list[str]:
    """Return ``name==version`` for every lower-bounded requirement of the core and runtime extras."""
    requirements = list(project["dependencies"])  # type: ignore[call-overload]
    extras: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    for extra, members in extras.items():
        if extra not in TOOL_EXTRAS:
            requirements.extend(members)
    pins: dict[str, str] = {}
    for requirement in requirements:
        if requirement.startswith("slotwise["):
            continue
        match = LOWER_BOUND.match(requirement)
        if match is None:
            raise SystemExit(f"no lower bound to pin in {requirement!r}")
        pins[match["name"]] = f"{match['name']}=={match['version']}"
    return sorted(pins.values())


if __name__ == "__main__":
    with open(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml", "rb") as source:
        print("\n".join(lowest_pins(tomllib.load(source)["project"])))
