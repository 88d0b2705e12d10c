"""Print the README's HTTP session (the bash block after the marker) as a script CI runs.

The block is printed as written, after one line that stops the session's background server
however the session ends (so a failing step cannot leave it running and CI waiting on it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MARKER = "<!-- .ci/run runs the next block as written"
BLOCK = re.compile(r"```bash\n(?P<body>.*?)```", re.DOTALL)


def session(readme: str) -> str:
    """Return the bash block that follows the marker in *readme*."""
    at = readme.find(MARKER)
    if at < 0:
        raise SystemExit(f"README.md has no {MARKER!r} marker")
    found = BLOCK.search(readme, at)
    if found is None:
        raise SystemExit("README.md has no bash block after the session marker")
    return found["body"]


if __name__ == "__main__":
    text = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md").read_text()
    print("trap 'kill $(jobs -p) 2> /dev/null || true' EXIT")
    print(session(text), end="")
