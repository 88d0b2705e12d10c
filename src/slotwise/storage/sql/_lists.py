"""
The statements of ``SQLStore``'s list read (``Reader.page``): which filters a column answers,
and one cached ``SELECT ... LIMIT`` / ``COUNT`` pair per shape of query.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, select

from slotwise.model import Allocation, Appointment, Block, Customer, OutboxEvent
from slotwise.storage.listing import ListQuery

from ._schema import RECORD_TABLES, Instant, appointment_resources, lookup_key

__all__ = ["list_shape", "list_statements"]

_LINK = appointment_resources

# The list read's filters with a column (or a link table) to answer them; any other filter is
# answered by matching the documents of the rows the columns select.
_LIST_COLUMNS: dict[tuple[type[Any], str, str], str] = {
    (Appointment, "equal", "service_id"): "service_id",
    (Appointment, "equal", "customer_id"): "customer_id",
    (Appointment, "equal", "status"): "status",
    (Appointment, "folded", "email"): "email_key",
    (Customer, "folded", "email"): "email_key",
    (OutboxEvent, "equal", "delivery_status"): "delivery_status",
    (Block, "equal", "target_id"): "target_id",
    (Allocation, "equal", "target_id"): "target_id",
}
_LIST_STATEMENTS: dict[tuple[Any, ...], tuple[Any, Any, Any]] = {}


def list_shape(kind: type[Any], query: ListQuery) -> tuple[tuple[Any, ...], dict[str, Any], bool]:
    """
    Return the shape of *query*'s statements (their cache key), their parameters, and whether
    some filter has no column (so the documents must be matched in Python).
    """
    shape: list[Any] = [kind, query.location_id is not None]
    parameters: dict[str, Any] = {"company_id": query.company_id, "location_id": query.location_id}
    residual = False
    for family, filters in (("equal", query.equal), ("folded", query.folded)):
        for name, value in filters.items():
            column = _LIST_COLUMNS.get((kind, family, name))
            if column is None:
                residual = True
            elif value is None:
                shape.append((column, None))
            else:
                shape.append((column, "value"))
                parameters[f"filter_{column}"] = (
                    lookup_key(str(value)) if family == "folded" else value
                )
    for name, member in query.contains.items():
        if kind is Appointment and name == "resource_ids":
            shape.append(("resource", "value"))
            parameters["filter_resource"] = member
        else:
            residual = True
    table = RECORD_TABLES[kind]
    for name, choices in query.one_of.items():
        column = (
            "location_id" if name == "location_id" else _LIST_COLUMNS.get((kind, "equal", name))
        )
        if column is None or column not in table.c or None in choices:
            residual = True
        else:
            shape.append((column, "choices"))
            parameters[f"choices_{column}"] = sorted(str(choice) for choice in choices)
    if query.starting is not None:
        if "start_at" in table.c:
            shape.append(("start_at", "range"))
            parameters["starting_from"], parameters["starting_until"] = query.starting
        else:
            residual = True
    shape.append(("order", "newest" if query.newest_first else "oldest"))
    return tuple(shape), parameters, residual


def list_statements(shape: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    """The statements of one shape, built once: every row, one page of rows, the count."""
    built = _LIST_STATEMENTS.get(shape)
    if built is not None:
        return built
    kind, located, *filters = shape
    table = RECORD_TABLES[kind]
    conditions = [table.c.company_id == bindparam("company_id")]
    if located:
        conditions.append(table.c.location_id == bindparam("location_id"))
    newest = False
    for column, value in filters:
        if column == "order":
            newest = value == "newest"
        elif value == "range":
            column_ = table.c[column]
            conditions.append(column_ >= bindparam("starting_from", type_=Instant()))
            conditions.append(column_ < bindparam("starting_until", type_=Instant()))
        elif value == "choices":
            conditions.append(table.c[column].in_(bindparam(f"choices_{column}", expanding=True)))
        elif column == "resource":
            taking = select(_LINK.c.appointment_id).where(
                _LINK.c.resource_id == bindparam("filter_resource")
            )
            conditions.append(table.c.id.in_(taking))
        elif value is None:
            conditions.append(table.c[column].is_(None))
        else:
            conditions.append(table.c[column] == bindparam(f"filter_{column}"))
    rows = (
        select(table.c.doc)
        .where(*conditions)
        .order_by(table.c.seq.desc() if newest else table.c.seq)
    )
    window = rows.offset(bindparam("offset")).limit(bindparam("limit"))
    count = select(func.count()).select_from(table).where(*conditions)
    built = _LIST_STATEMENTS[shape] = (rows, window, count)
    return built
