"""
``pip install 'slotwise[http]'`` gives a server where every endpoint works (issue 21).

A fresh process that may import only the packages the core's dependencies and the ``http``
extra bring in (every other installed distribution's modules raise ``ModuleNotFoundError``, as
in an environment with only ``[http]``) builds ``slotwise serve``'s app and its uvicorn
configuration and answers the endpoints that import optional packages on use: countries and
states, ``/docs``, the SQL store. The CI step that installs only ``[http]`` in a fresh
environment and runs the README's session proves the same for real.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("litestar")
pytest.importorskip("sqlalchemy")
pytest.importorskip("pycountry")
packaging_requirements = pytest.importorskip("packaging.requirements")

from tests.http._served import child_environment  # noqa: E402 -- after the extras are known

ROOT = Path(__file__).resolve().parents[2]

_SERVE = r"""
import importlib.abc, json, os, sys

BLOCKED = frozenset(json.loads(os.environ["SLOTWISE_TEST_BLOCKED"]))


class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} ([http] lacks it)", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
import asyncio
import httpx, uvicorn
from slotwise import Scheduler
from slotwise.demo import seed
from slotwise.http import app_from_environment
from slotwise.storage.sql import SQLStore
import os

store = SQLStore(os.environ["SLOTWISE_DB"])
token = seed(Scheduler(store)).token
store.close()
# What `slotwise serve` runs: uvicorn's configuration loads the app, its loop and protocols.
config = uvicorn.Config("slotwise.http:app_from_environment", factory=True)
config.load()
app = app_from_environment()

async def ask():
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://x", headers=headers) as c:
        paths = ["/consumer/v1/customers/countries", "/consumer/v1/customers/states?country=US",
                 "/docs", "/docs/assets/swagger-ui.css", "/setup/v1/services", "/healthz"]
        return {path: (await c.get(path)).status_code for path in paths}

print(json.dumps(asyncio.run(ask())))
"""


def _name(requirement: str) -> str:
    return packaging_requirements.Requirement(requirement).name.lower().replace("_", "-")


def _closure(requirements: list[str]) -> set[str]:
    """Return the installed distributions *requirements* bring in, with their dependencies."""
    seen: set[str] = set()
    pending = [(packaging_requirements.Requirement(text), "") for text in requirements]
    while pending:
        requirement, extra = pending.pop()
        if requirement.marker and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = requirement.name.lower().replace("_", "-")
        extras = set(requirement.extras)
        key = f"{name}[{','.join(sorted(extras))}]"
        if key in seen:
            continue
        seen.add(key)
        seen.add(name)
        if name == "slotwise":
            continue
        for text in importlib.metadata.distribution(name).requires or []:
            dependency = packaging_requirements.Requirement(text)
            for wanted in extras or {""}:
                pending.append((dependency, wanted))
    return {key for key in seen if "[" not in key}


def _declared() -> tuple[list[str], list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["dependencies"], project["optional-dependencies"]["http"]


def test_the_http_extra_names_the_sql_and_geo_packages():
    """The http extra itself lists the SQL store's and the geography's packages."""
    _, http = _declared()

    assert {"sqlalchemy", "cattrs", "pycountry", "swagger-ui-py"} <= {_name(r) for r in http}


def test_serving_needs_only_what_the_http_extra_installs(tmp_path: Path):
    """With only core + [http] importable, serve's app and every optional endpoint answer 200."""
    core, http = _declared()
    installed = _closure([*core, *http])
    owners = importlib.metadata.packages_distributions()
    blocked = sorted(
        module
        for module, distributions in owners.items()
        if module != "slotwise"
        and not any(d.lower().replace("_", "-") in installed for d in distributions)
    )
    environment = {
        **child_environment(),
        "SLOTWISE_DB": f"sqlite:///{tmp_path / 'extra.db'}",
        "SLOTWISE_TEST_BLOCKED": json.dumps(blocked),
    }
    done = subprocess.run(
        [sys.executable, "-c", _SERVE], capture_output=True, text=True, env=environment, timeout=300
    )

    assert 0 == done.returncode, done.stderr[-3000:]
    statuses = json.loads(done.stdout.splitlines()[-1])
    assert dict.fromkeys(statuses, 200) == statuses
    assert {"pytest", "hypothesis"} <= set(blocked)  # the blocking is real
