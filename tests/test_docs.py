"""The docs agree with the code: every error is documented, every endpoint row is real."""

from __future__ import annotations

import pathlib
import re

import slotwise.errors

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_every_error_is_documented_with_its_code_and_status():
    """docs/errors.md has a row per error class with the class's code and HTTP status."""
    text = (DOCS / "errors.md").read_text()
    for name in slotwise.errors.__all__:
        error = getattr(slotwise.errors, name)
        row = re.search(rf"^\| `{name}` \| `([^`]+)` \| (\d+) \|", text, re.MULTILINE)

        assert row is not None, f"{name} missing from docs/errors.md"
        assert (error.code, error.http_status) == (row.group(1), int(row.group(2)))


def test_every_documented_error_exists():
    """docs/errors.md lists no error class that the code does not have."""
    text = (DOCS / "errors.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", text, re.MULTILINE))

    assert documented == set(slotwise.errors.__all__)


def _endpoint_rows() -> list[tuple[str, str]]:
    """Return (endpoint, proof) for every proof cell of docs/endpoints.md's tables."""
    text = (DOCS / "endpoints.md").read_text()
    rows = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if (
            not line.startswith("| ")
            or len(cells) < 3
            or cells[0].startswith(("Method", "What", "---"))
        ):
            continue
        rows += [(cells[0], proof) for proof in cells[2:]]
    return rows


def test_every_spec_endpoint_has_a_row():
    """Each method+path in the spec's endpoint tables appears in docs/endpoints.md."""
    spec = ROOT.parent / "shared" / "spec" / "scheduling-service.md"
    if not spec.exists():  # a checkout without the shared spec beside it
        return
    documented = (DOCS / "endpoints.md").read_text()
    for line in spec.read_text().splitlines():
        for method, path in re.findall(r"\b(GET|POST|PUT|DELETE) (/[\w/{}.-]+)", line):
            assert f"{method} {path}" in documented or path.endswith("/..."), f"{method} {path}"


def test_every_endpoint_proof_exists():
    """Each proof in docs/endpoints.md names a test file (and class or test) that exists."""
    rows = _endpoint_rows()

    assert len(rows) > 80
    for endpoint, proof in rows:
        if proof.startswith("issue "):
            continue
        node = re.fullmatch(r"`(tests/[\w/]+\.py)((?:::\w+)*)`", proof)
        assert node is not None, f"{endpoint}: proof {proof!r} is not a test node id"
        source = (ROOT / node.group(1)).read_text()
        for part in node.group(2).split("::")[1:]:
            assert re.search(rf"^\s*(?:class|def) {part}\b", source, re.MULTILINE), (
                f"{endpoint}: {part} not found in {node.group(1)}"
            )
