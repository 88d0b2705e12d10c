"""A statement's SQL and parameters planned once per shape, as SQLAlchemy expands them per call."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")  # an extra: the core-only run has no SQL store

from sqlalchemy.dialects import mysql, postgresql, sqlite

from slotwise.model import Block
from slotwise.storage.sql._binding import _PLANS, _compiled, _expanded, bound
from slotwise.storage.sql._statements import (
    _AT_LOCATION,
    _STATEMENTS,
    _VERSION,
    _taking_resources,
)

START = datetime(2026, 1, 6, 5, tzinfo=UTC)
DIALECTS = [
    pytest.param(sqlite.pysqlite.dialect(), id="sqlite"),  # qmark: positional, names repeat
    pytest.param(postgresql.psycopg.dialect(), id="postgresql"),  # pyformat: a dict
    pytest.param(mysql.pymysql.dialect(), id="mariadb"),  # format: positional
]


class _Conn:
    """What ``bound`` asks of a connection: its dialect and execution options."""

    def __init__(self, dialect: Any, translate: dict[Any, Any] | None = None) -> None:
        self.dialect = dialect
        self._options = {"schema_translate_map": translate} if translate else {}

    def get_execution_options(self) -> dict[str, Any]:
        return self._options


def _sqlalchemy(conn: Any, statement: Any, values: dict[str, Any]) -> tuple[str, Any]:
    """What SQLAlchemy's own expansion of *values* gives, on every call."""
    translate = conn.get_execution_options().get("schema_translate_map") or {}
    schema = tuple(sorted(translate.items(), key=repr)) if translate else ()
    return _expanded(_compiled(conn, statement, values, translate, schema), values)


def _cases() -> list[tuple[Any, dict[str, Any]]]:
    window = {"first": date(2026, 1, 6), "last": date(2026, 1, 12)}
    return [
        (_VERSION, {"company_id": "co"}),
        (_VERSION, {"company_id": "other"}),
        (_STATEMENTS[Block]["touching"], {"targets": [], **window}),
        (_STATEMENTS[Block]["touching"], {"targets": ["a"], **window}),
        (_STATEMENTS[Block]["touching"], {"targets": ["a", "b", "c"], **window}),
        (_STATEMENTS[Block]["touching"], {"targets": ["x", "y", "z"], **window}),
        (
            _taking_resources(2, False, True),
            {
                "start": START,
                "end": START + timedelta(days=7),
                "company_id": "co",
                "resource_0": "r0",
                "resource_1": "r1",
            },
        ),
        (
            _AT_LOCATION[False],
            {"location_id": "loc", "start": START, "end": START + timedelta(hours=1)},
        ),
    ]


class TestBound:
    @pytest.mark.parametrize("dialect", DIALECTS)
    def test_every_shape_binds_as_sqlalchemy_expands_it(self, dialect: Any):
        """SQL text and converted parameters equal SQLAlchemy's, for each IN-list length."""
        conn = _Conn(dialect)
        for statement, values in _cases():
            expected = _sqlalchemy(conn, statement, values)

            assert expected == bound(conn, statement, values)  # type: ignore[arg-type]
            assert expected == bound(conn, statement, values)  # type: ignore[arg-type]

    def test_a_shape_is_planned_once_per_list_length(self):
        """The plan is kept per statement, value names and list lengths, not per value."""
        conn = _Conn(sqlite.pysqlite.dialect())
        statement = _STATEMENTS[Block]["touching"]
        window = {"first": date(2026, 1, 6), "last": date(2026, 1, 12)}
        _PLANS.clear()
        for targets in (["a"], ["b"], ["a", "b"], ["c", "d"]):
            bound(conn, statement, {"targets": targets, **window})  # type: ignore[arg-type]

        assert 2 == len(_PLANS)
        assert all(plan is not None for plan in _PLANS.values())

    def test_the_schema_map_is_part_of_the_shape(self):
        """Two schemas, two SQL texts: a plan never serves another schema's statement."""
        dialect = postgresql.psycopg.dialect()
        texts = {
            bound(_Conn(dialect, {None: schema}), _VERSION, {"company_id": "co"})[0]  # type: ignore[arg-type]
            for schema in ("one", "two")
        }

        assert 2 == len(texts)
        assert all("one." in text or "two." in text for text in texts)

    def test_a_list_bound_whole_takes_sqlalchemys_path(self):
        """A list value that is not an IN list (a statement that binds it whole) is not planned."""
        from sqlalchemy import bindparam, literal_column, select

        statement = select(literal_column("1")).where(bindparam("whole") == bindparam("whole"))
        conn = _Conn(postgresql.psycopg.dialect())
        values = {"whole": [1, 2]}

        assert _sqlalchemy(conn, statement, values) == bound(conn, statement, values)  # type: ignore[arg-type]
        assert [1, 2] == bound(conn, statement, values)[1]["whole"]  # type: ignore[arg-type]
