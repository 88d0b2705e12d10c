"""The docs agree with the code: every error, endpoint and public name is documented."""

from __future__ import annotations

import fcntl
import importlib
import json
import pathlib
import posixpath
import re
import subprocess
import sys
import tomllib

import pytest
from sphinx.util.inventory import InventoryFile

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


# -- the built site ------------------------------------------------------------------------------

# The modules whose names the API page documents: slotwise re-exports the core, the extras live in
# their own modules. Every ``automodule`` of docs/api.md is checked as well.
PUBLIC_MODULES = (
    "slotwise",
    "slotwise.testing",
    "slotwise.testing.contract",
    "slotwise.storage.sql",
    "slotwise.http",
    "slotwise.webhooks",
    "slotwise.ics",
    "slotwise.tables",
    "slotwise.plot",
)
# The extras that those modules need at import time (plot and tables import theirs when called).
IMPORTED_BY_THE_API_PAGE = ("sql", "http", "ics")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> tuple[int, str, pathlib.Path]:
    """
    Build the documentation site as .ci/run and the README do (warnings are errors).

    Return the exit status, the messages and the output folder. The test processes of one run
    (pytest-xdist) share one build: the first builds under a file lock, the others read it.
    """
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the run's folder, above each worker's own
    out = shared / "docs-site"
    with (shared / "docs-site.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process ends
        outcome = shared / "docs-site.json"
        if not outcome.exists():
            command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
            result = subprocess.run(
                [*command, str(DOCS), str(out)],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            outcome.write_text(json.dumps([result.returncode, result.stderr]))
        returncode, messages = json.loads(outcome.read_text())
    return returncode, messages, out


def test_the_site_builds_without_a_warning(site):
    """sphinx-build -W succeeds: every page, every autodoc import, every cross-reference."""
    returncode, messages, _ = site

    assert 0 == returncode, messages


def _documented_modules() -> list[str]:
    directives = re.findall(r"^\.\. automodule:: ([\w.]+)", (DOCS / "api.md").read_text(), re.M)
    return sorted(set(PUBLIC_MODULES) | set(directives))


def test_every_public_name_is_in_the_api_reference(site):
    """Each name of each documented module's __all__ is an object of the built API reference."""
    _, _, out = site
    with (out / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", posixpath.join)
    documented = {
        name for role, items in inventory.items() if role.startswith("py:") for name in items
    }
    missing = [
        f"{module}.{name}"
        for module in _documented_modules()
        for name in importlib.import_module(module).__all__
        if f"{module}.{name}" not in documented
    ]

    assert [] == missing, (
        f"{len(missing)} public names are not in the API reference: {', '.join(missing)}. "
        "Give each a docstring (classes, functions) or an `autodata` line in docs/api.md "
        "(constants and type aliases)."
    )


def test_the_footer_names_the_copyright_holder(site):
    """Every page's footer reads "Copyright © 2026, the slotwise developers"."""
    _, _, out = site
    footer = re.search(r"Copyright &#169;([^<]*)<", (out / "index.html").read_text())

    assert footer is not None
    assert "2026, the slotwise developers" == footer.group(1).strip()


def test_the_docs_extra_installs_what_the_api_page_imports():
    """`pip install '.[docs]'` brings every package that the API page's modules import."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    needed = {requirement for extra in IMPORTED_BY_THE_API_PAGE for requirement in extras[extra]}

    assert set() == needed - set(extras["docs"])


def test_every_example_is_listed_in_the_readme_and_the_docs():
    """Each examples/*.py is named in the README's list and in docs/examples.md's table."""
    readme = (ROOT / "README.md").read_text().split("## Examples", 1)[1].split("\n## ", 1)[0]
    table = (DOCS / "examples.md").read_text()
    unlisted = [
        path.name
        for path in sorted((ROOT / "examples").glob("*.py"))
        if f"`examples/{path.name}`" not in readme or f"| `{path.name}` |" not in table
    ]

    assert [] == unlisted, f"examples missing from README.md or docs/examples.md: {unlisted}"


def test_reexported_constants_carry_the_docstring_under_their_definition(site):
    """A constant re-exported elsewhere shows its own docstring, not its class's (docs/conf.py)."""
    _, _, out = site
    page = re.sub(r"<[^>]+>", "", (out / "api.html").read_text())

    assert "The end date of an open-ended repeat" in page  # slotwise.OPEN_END
    assert "Every table a SQLStore creates" in page  # slotwise.storage.sql.metadata, not MetaData's
