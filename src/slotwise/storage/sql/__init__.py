"""
``SQLStore``: slotwise's records in SQLite, PostgreSQL or MariaDB, on SQLAlchemy 2 Core.

Needs the extra ``slotwise[sql]`` (SQLAlchemy and cattrs), plus a driver: ``slotwise[postgres]``
(psycopg 3) or ``slotwise[mariadb]`` (PyMySQL); SQLite uses the standard library. Importing
``slotwise`` never imports this module, so the drivers stay optional. See ``docs/sql.md``.
"""

from __future__ import annotations

from slotwise.errors import MissingDependency

try:
    import cattrs  # noqa: F401
    import sqlalchemy  # noqa: F401
except ImportError:
    raise MissingDependency(feature="slotwise.storage.sql", extra="sql") from None

from ._schema import SCHEMA_VERSION as SCHEMA_VERSION
from ._schema import metadata as metadata
from ._store import POOL_MODES as POOL_MODES
from ._store import PoolMode as PoolMode
from ._store import SQLStore as SQLStore
from ._versions import SchemaState as SchemaState
from ._versions import SchemaStatus as SchemaStatus
from ._versions import schema_status as schema_status

__all__ = [
    "POOL_MODES",
    "SCHEMA_VERSION",
    "PoolMode",
    "SQLStore",
    "SchemaState",
    "SchemaStatus",
    "metadata",
    "schema_status",
]
