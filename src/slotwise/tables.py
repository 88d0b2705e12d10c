"""
Results as tables: ``records()``, ``to_pandas()`` and ``to_polars()`` (issue 14).

Every availability result and every page of records can be read as rows: flat dicts with
snake_case keys (a nested record's fields are prefixed with its name: ``address_city``), aware
datetimes as they are (in the zone the query asked for), enum values as their codes, sequences as
lists. ``to_pandas()`` / ``to_polars()`` build a DataFrame from those rows, importing the library
only when called (extras ``slotwise[pandas]``, ``slotwise[polars]``): datetime columns keep their
zone, and code columns (``reason_code``, ``status``, ...) are categorical.

.. versionadded:: 0.1
"""

from __future__ import annotations

import enum
import html
import re
import types
import typing
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from typing import Any, ClassVar, Final, Literal

import attrs

from slotwise.errors import MissingDependency

__all__ = [
    "Table",
    "Tabular",
    "appointments_html",
    "flat_record",
    "frame_of",
    "page_html",
    "polars_frame_of",
    "schema_of",
]

_PAGE_COLUMNS: Final = 8


def page_html(caption: str, rows: list[dict[str, Any]]) -> str:
    """Return rows as a plain HTML table: the first eight plain columns, every row."""
    columns = [
        name
        for name in (rows[0] if rows else {})
        if all(not isinstance(row.get(name), list | dict) for row in rows)
    ][:_PAGE_COLUMNS]
    head = "".join(f"<th>{html.escape(name)}</th>" for name in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_text(row.get(n)))}</td>" for n in columns) + "</tr>"
        for row in rows
    )
    return (
        f"<table class='sw-page'><caption>{html.escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def appointments_html(caption: str, appointments: Iterable[Any]) -> str | None:
    """
    Return a week grid of appointments (a column per date, a row per hour), or ``None``.

    Each cell lists the appointments starting in that hour, in their own stored zone (UTC):
    ``10:00 BK Ann Lee``, coloured by status. ``None`` when the records are not appointments
    (no ``start`` and ``status``).
    """
    items = list(appointments)
    if not items or not all(hasattr(a, "start") and hasattr(a, "status") for a in items):
        return None
    cells: dict[tuple[Any, int], list[tuple[str, str]]] = {}
    for appointment in items:
        start = appointment.start
        names = " ".join(n for n in (appointment.first_name, appointment.last_name) if n)
        label = f"{start:%H:%M} {appointment.status.value} {names}".strip()
        cells.setdefault((start.date(), start.hour), []).append((appointment.status.value, label))
    dates = sorted({day for day, _ in cells})
    first, last = dates[0], dates[-1]
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    hours = sorted({hour for _, hour in cells})
    head = "".join(f"<th>{day:%a %d %b}</th>" for day in days)
    rows = []
    for hour in range(hours[0], hours[-1] + 1):
        row = []
        for day in days:
            found = cells.get((day, hour), [])
            row.append(
                "<td>"
                + "<br>".join(
                    f"<span class='sw-{html.escape(code)}'>{html.escape(text)}</span>"
                    for code, text in found
                )
                + "</td>"
            )
        rows.append(f"<tr><th>{hour:02d}:00</th>{''.join(row)}</tr>")
    return (
        f"<table class='sw-page sw-grid'><caption>{html.escape(caption)}</caption>"
        f"<thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    return str(value)


def flat_record(value: Any, *, codes: set[str] | None = None) -> dict[str, Any]:
    """
    Return the attrs record *value* as one flat dict (nested records' fields prefixed).

    Names of columns holding enum codes are added to *codes* when it is given.
    """
    row: dict[str, Any] = {}
    _flatten(value, "", row, codes if codes is not None else set())
    return row


def _flatten(value: Any, prefix: str, row: dict[str, Any], codes: set[str]) -> None:
    for field in attrs.fields(type(value)):
        if field.name.startswith("_"):
            continue
        item = getattr(value, field.name)
        name = f"{prefix}{field.name}"
        if attrs.has(type(item)):
            _flatten(item, f"{name}_", row, codes)
        elif isinstance(item, enum.Enum):
            row[name] = item.value
            codes.add(name)
        elif isinstance(item, tuple | list | frozenset | set):
            row[name] = [_plain(element) for element in item]
        elif isinstance(item, Mapping):
            row[name] = {str(key): _plain(element) for key, element in item.items()}
        else:
            row[name] = item


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if attrs.has(type(value)):
        return flat_record(value)
    return value


Table = list[dict[str, Any]] | dict[str, list[Any]]
"""A result's table: its rows (one flat dict each), or its columns (one list each, by name)."""


def _column_of(table: Table, column: str) -> list[Any]:
    """Return the values of *column* in *table*, one per row (``None`` where a row has none)."""
    if isinstance(table, dict):
        return table[column]
    return [row.get(column) for row in table]


def _is_empty(table: Table) -> bool:
    """Tell whether *table* has no rows (columns: no column, or empty ones)."""
    if isinstance(table, dict):
        return not table or not next(iter(table.values()))
    return not table


def _datetime_zones(table: Table) -> dict[str, str]:
    """Return the columns holding only datetimes, each with its zone (``UTC`` when mixed)."""
    zones: dict[str, set[str]] = {}
    other: set[str] = set()
    if isinstance(table, dict):
        for column, values in table.items():
            present = [value for value in values if value is not None]
            if present and all(isinstance(value, datetime) for value in present):
                # The zone objects first (few, hashed by identity), then their names.
                zones[column] = {str(tz) for tz in {value.tzinfo for value in present}}
            elif present:
                other.add(column)
    else:
        for row in table:
            for column, value in row.items():
                if isinstance(value, datetime):
                    zones.setdefault(column, set()).add(str(value.tzinfo))
                elif value is not None:
                    other.add(column)
    return {
        column: found.pop() if len(found) == 1 else "UTC"
        for column, found in zones.items()
        if column not in other
    }


Kind = Literal["datetime", "date", "int", "optional int", "float", "bool", "str", "code", "list"]
"""What a column holds, as far as a DataFrame's dtype is concerned."""


def schema_of(kind: type, extra: Iterable[str] = ()) -> dict[str, Kind]:
    """
    Return the columns of *kind*'s rows (as :func:`flat_record` makes them) and what each holds.

    *extra* names text columns a result adds (``resource_name``). An empty result's frame is
    built from this, so it has the same columns and dtypes as a full one.
    """
    columns: dict[str, Kind] = {}
    _schema(kind, "", columns)
    columns.update(dict.fromkeys(extra, "str"))
    return columns


def _schema(kind: type, prefix: str, columns: dict[str, Kind]) -> None:
    hints = typing.get_type_hints(kind)
    for field in attrs.fields(kind):
        if field.name.startswith("_"):
            continue
        hint = hints[field.name]
        members = [m for m in typing.get_args(hint) if m is not types.NoneType]
        optional = types.NoneType in typing.get_args(hint)
        inner = members[0] if optional and len(members) == 1 else hint
        name = f"{prefix}{field.name}"
        if isinstance(inner, type) and attrs.has(inner):
            _schema(inner, f"{name}_", columns)
        else:
            columns[name] = _kind(inner, optional)


def _kind(hint: Any, optional: bool) -> Kind:
    origin = typing.get_origin(hint)
    if origin in (tuple, list, frozenset, set):
        return "list"
    if not isinstance(hint, type):
        return "str"
    if issubclass(hint, enum.Enum):
        return "code"
    if issubclass(hint, datetime):
        return "datetime"
    if issubclass(hint, date):
        return "date"
    if issubclass(hint, bool):
        return "bool"
    if issubclass(hint, int):
        return "optional int" if optional else "int"
    if issubclass(hint, float):
        return "float"
    return "str"


_PANDAS_DTYPES: Final[dict[str, str]] = {
    "date": "datetime64[s]",
    "int": "int64",
    "optional int": "Int64",
    "float": "float64",
    "bool": "bool",
    # The installed pandas' text dtype: "object" before pandas 3, "str" from it.
    "str": "str",
    "code": "category",
    "list": "object",
}


def frame_of(
    rows: Table,
    codes: Iterable[str],
    schema: Mapping[str, Kind] | None = None,
    zone: str = "UTC",
) -> Any:
    """
    Return *rows* (or a result's columns) as a pandas DataFrame: zoned datetime columns,
    categorical codes.

    With a *schema*, the frame has its columns and dtypes even when *rows* is empty: datetimes
    are ``datetime64[us, zone]`` (*zone* when no row says), ``date`` columns
    ``datetime64[s]`` (pandas has no date dtype; seconds reach year 9999), whole numbers that
    may be missing ``Int64`` and text the installed pandas' text dtype.
    """
    try:
        import pandas
    except ImportError:
        raise MissingDependency(feature="to_pandas()", extra="pandas") from None
    schema = schema or {}
    zones = _datetime_zones(rows)

    def dtype(column: str, kind: Kind) -> Any:
        if kind == "datetime":
            return pandas.DatetimeTZDtype(unit="us", tz=zones.get(column, zone))
        return pandas.Series([], dtype=_PANDAS_DTYPES[kind]).dtype

    if _is_empty(rows) and schema:
        return pandas.DataFrame(
            {
                column: pandas.Series([], dtype=dtype(column, kind))
                for column, kind in schema.items()
            }
        )
    converted: dict[str, Any] = {}
    for column, target in zones.items():
        values = _column_of(rows, column)
        instants = pandas.to_datetime(
            [v.isoformat() if v is not None else None for v in values], utc=True
        ).tz_convert(target)
        converted[column] = instants.as_unit("us") if schema else instants
    if isinstance(rows, dict):
        # Columns: the datetime ones go in converted (pandas would convert them once more).
        frame = pandas.DataFrame(
            {column: converted.get(column, rows[column]) for column in schema or rows}
        )
    else:
        frame = pandas.DataFrame.from_records(rows, columns=list(schema) or None)
        for column, instants in converted.items():
            frame[column] = instants
    for column, kind in schema.items():
        if kind == "date":
            frame[column] = pandas.to_datetime(frame[column]).astype("datetime64[s]")
        elif kind in ("optional int", "str") and frame[column].dtype != dtype(column, kind):
            frame[column] = frame[column].astype(dtype(column, kind))
    # A code column is categorical whether or not a row holds a code (every day open: no
    # reason_code at all), so a frame's dtypes do not depend on what the range held.
    for column in {*codes, *(column for column, kind in schema.items() if kind == "code")}:
        if column in frame.columns:
            frame[column] = frame[column].astype("category")
    return frame


def polars_frame_of(
    rows: Table,
    codes: Iterable[str],
    schema: Mapping[str, Kind] | None = None,
    zone: str = "UTC",
) -> Any:
    """
    Return *rows* (or a result's columns) as a polars DataFrame: zoned datetime columns,
    categorical codes.

    With a *schema*, every column has the dtype it declares, rows or not (``Date`` for dates,
    ``String`` for a column that holds only nulls here); *zone* is the datetime columns' zone
    when no row says.
    """
    try:
        import polars
    except ImportError:
        raise MissingDependency(feature="to_polars()", extra="polars") from None
    zones = {column: _polars_zone(name) for column, name in _datetime_zones(rows).items()}
    zone = _polars_zone(zone)
    if schema:
        dtypes = {
            column: _polars_dtype(polars, kind, zones.get(column, zone))
            for column, kind in schema.items()
        }
        if _is_empty(rows):
            return polars.DataFrame(schema=dtypes)
        frame = polars.DataFrame(rows, infer_schema_length=None)
        return frame.select(
            polars.col(column).cast(dtype)
            if column not in zones
            else polars.col(column).dt.convert_time_zone(zones[column])
            for column, dtype in dtypes.items()
        )
    frame = polars.DataFrame(rows, infer_schema_length=None)
    casts = [polars.col(column).dt.convert_time_zone(target) for column, target in zones.items()]
    wanted = [c for c in codes if c in frame.columns]
    casts += [polars.col(c).cast(polars.Categorical) for c in wanted]
    return frame.with_columns(casts) if casts else frame


def _polars_zone(name: str) -> str:
    """
    Return a zone polars accepts for *name*: ``UTC-05:00`` (a query's ``tz_offset``) becomes
    ``Etc/GMT+5`` (POSIX signs); an offset of part of an hour, which polars cannot hold, is kept
    as ``UTC`` (the instants stay right, the wall times are UTC's).
    """
    match = re.fullmatch(r"UTC([+-])(\d\d):(\d\d)", name)
    if match is None:
        return name
    sign, hours, minutes = match.groups()
    if minutes != "00":
        return "UTC"
    return f"Etc/GMT{'-' if sign == '+' else '+'}{int(hours)}"


def _polars_dtype(polars: Any, kind: Kind, zone: str) -> Any:
    if kind == "datetime":
        return polars.Datetime(time_unit="us", time_zone=zone)
    return {
        "date": polars.Date,
        "int": polars.Int64,
        "optional int": polars.Int64,
        "float": polars.Float64,
        "bool": polars.Boolean,
        "str": polars.String,
        "code": polars.Categorical,
        "list": polars.List(polars.String),
    }[kind]


class Tabular:
    """
    Mixin of the results that read as tables; a class supplies :meth:`_rows`.

    A result whose rows are all one record class names it in ``_row_class``, so its frames keep
    their columns and dtypes when empty; it may add columns for people (``resource_name``) in
    :meth:`_extra`, listed in ``_extra_columns``.

    .. versionadded:: 0.1
    """

    __slots__ = ()
    _row_class: ClassVar[type | None] = None
    _extra_columns: ClassVar[tuple[str, ...]] = ()

    def _rows(self) -> Iterable[Any]:
        raise NotImplementedError

    def _extra(self, row: dict[str, Any]) -> None:
        """Add the columns for people to one row (none by default)."""

    def _zone(self) -> str:
        """Return the zone of the datetime columns when there are no rows to tell."""
        return "UTC"

    def _table(self) -> tuple[list[dict[str, Any]], set[str]]:
        codes: set[str] = set()
        rows = [flat_record(item, codes=codes) for item in self._rows()]
        for row in rows:
            self._extra(row)
        return rows, codes

    def _schema(self) -> dict[str, Kind] | None:
        kind = self._row_class
        return None if kind is None else schema_of(kind, self._extra_columns)

    def _frame_table(self) -> tuple[Table, set[str]]:
        """The table the DataFrames are built from: the rows, unless a result has columns."""
        return self._table()

    def records(self) -> list[dict[str, Any]]:
        """Return the rows: one flat dict per element, snake_case keys, aware datetimes."""
        return self._table()[0]

    def to_pandas(self) -> Any:
        """Return the rows as a pandas DataFrame (extra ``slotwise[pandas]``)."""
        table, codes = self._frame_table()
        return frame_of(table, codes, self._schema(), self._zone())

    def to_polars(self) -> Any:
        """Return the rows as a polars DataFrame (extra ``slotwise[polars]``)."""
        table, codes = self._frame_table()
        return polars_frame_of(table, codes, self._schema(), self._zone())
