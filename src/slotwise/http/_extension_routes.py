"""
slotwise's own paths (decision 46): the records the spec shows only as side effects or lists.

Every row is marked ``extension`` (OpenAPI tag ``slotwise extensions``), so a client tells the
spec's interface from slotwise's additions; the paths follow the spec's style (plural nouns,
``{id}`` placeholders, the spec's own path where it shows another method of the same record).
"""

from __future__ import annotations

from typing import Final

from slotwise.model import Customer, FieldDefinition, Location

from ._row import CONSUMER, SETUP, Method, Route, row

__all__ = ["EXTENSION_ROUTES"]

C = CONSUMER
S = SETUP


def _x(method: Method, path: str, operation: str, summary: str, **options: object) -> Route:
    return row(method, path, operation, summary, extension=True, **options)


EXTENSION_ROUTES: Final[tuple[Route, ...]] = (
    # -- availability -------------------------------------------------------------------------
    _x(
        "GET",
        f"{C}/availability/{{serviceId}}/explain",
        "availability.explain",
        "Why a time is or is not offered: every reason, from the same calculator",
    ),
    # -- customers (the spec shows only their subscriptions) -----------------------------------
    _x("GET", f"{C}/customers", "customers.list", "List customers"),
    _x(
        "POST",
        f"{C}/customers",
        "customers.create",
        "Create a customer",
        record=Customer,
        status=201,
    ),
    _x("GET", f"{C}/customers/{{id}}", "customers.get", "Get a customer"),
    _x(
        "PUT",
        f"{C}/customers/{{id}}",
        "customers.update",
        "Change a customer",
        record=Customer,
        patch_from="customers.get",
    ),
    _x(
        "DELETE",
        f"{C}/customers/{{id}}",
        "customers.delete",
        "Delete a customer and its subscriptions (refused while appointments name it)",
    ),
    # -- field definitions (the spec shows only their lists) ----------------------------------
    _x(
        "POST",
        f"{S}/fields",
        "fields.define",
        "Define a custom or booking field at a location",
        record=FieldDefinition,
        status=201,
    ),
    _x("GET", f"{S}/fields/{{id}}", "fields.get", "Get a field definition"),
    _x(
        "PUT",
        f"{S}/fields/{{id}}",
        "fields.update",
        "Change a field definition",
        record=FieldDefinition,
        patch_from="fields.get",
    ),
    _x("DELETE", f"{S}/fields/{{id}}", "fields.delete", "Delete a field definition"),
    # -- resources ----------------------------------------------------------------------------
    _x("GET", f"{S}/resources/{{id}}", "resources.get", "Get a resource (setup view)"),
    # -- calendars ----------------------------------------------------------------------------
    _x("GET", f"{S}/calendars/blocks/{{id}}", "calendars.get_block", "Get a calendar block"),
    _x("GET", f"{S}/calendars/{{id}}/blocks", "calendars.list_blocks", "A calendar's blocks"),
    _x(
        "DELETE",
        f"{S}/calendars/{{id}}",
        "calendars.delete",
        "Delete a calendar that is not primary, with its blocks",
    ),
    _x(
        "DELETE",
        f"{S}/calendars/blocks/{{id}}",
        "calendars.delete_block",
        "Delete a calendar block",
    ),
    # -- services -----------------------------------------------------------------------------
    _x(
        "DELETE",
        f"{S}/services/{{id}}",
        "services.delete",
        "Delete a service with its blocks and allocations (refused while in use)",
    ),
    _x("GET", f"{S}/services/block/{{id}}", "services.get_block", "Get a service block"),
    _x("DELETE", f"{S}/services/block/{{id}}", "services.delete_block", "Delete a service block"),
    _x(
        "GET",
        f"{S}/services/allocations/{{id}}",
        "services.get_allocation",
        "Get a service allocation",
    ),
    _x(
        "DELETE",
        f"{S}/services/allocations/{{id}}",
        "services.delete_allocation",
        "Delete a service allocation",
    ),
    _x(
        "GET",
        f"{S}/services/{{id}}/allocations",
        "services.list_allocations",
        "An event-type service's allocations",
    ),
    # -- service groups -----------------------------------------------------------------------
    _x(
        "PUT",
        f"{S}/servicegroups/{{id}}",
        "service_groups.update",
        "Change a service group",
        patch_from="service_groups.get",
    ),
    _x("DELETE", f"{S}/servicegroups/{{id}}", "service_groups.delete", "Delete a service group"),
    # -- locations ----------------------------------------------------------------------------
    _x(
        "PUT",
        f"{S}/locations/{{id}}",
        "locations.update",
        "Change a location (its id in the path: fields, or a JSON Patch)",
        record=Location,
        patch_from="locations.get",
    ),
    _x(
        "DELETE",
        f"{S}/locations/{{id}}",
        "locations.delete",
        "Delete a location and what only it owns (refused while in use, or primary)",
    ),
    # -- the company --------------------------------------------------------------------------
    _x("GET", f"{S}/companies", "company.get", "Get the caller's company"),
    _x(
        "GET",
        f"{S}/company/{{id}}",
        "company.get",
        "Get a company (the caller's own)",
        path_params=(),
        company_in_path=True,
    ),
    # -- webhook deliveries (decision 38) -----------------------------------------------------
    _x(
        "GET",
        f"{S}/webhooks/deliveries",
        "outbox.deliveries",
        "Webhook deliveries: events with their delivery state",
    ),
    _x(
        "PUT",
        f"{S}/webhooks/deliveries/{{id}}/redeliver",
        "outbox.redeliver",
        "Send an event's webhook again",
    ),
    _x(
        "PUT",
        f"{S}/webhooks/enable",
        "company.enable_webhook_url",
        "Send webhooks again to a URL that answered 410 Gone",
    ),
)
"""slotwise's own method+path pairs, by the record they manage."""
