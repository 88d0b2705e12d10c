"""
The spec's endpoints, one row each, onto the Python calls that serve them.

A row names the method, the path (the spec's, with its placeholders) and the operation
(``"services.update"`` is ``workspace.services.update``). Everything else -- path parameters,
query parameters, the request body, the response type -- is read from the operation's own
signature by :mod:`._app`, so this table is the whole of what the HTTP layer adds: which path
reaches which call. slotwise's own paths (decision 46) are in :mod:`._extension_routes`.
"""

from __future__ import annotations

from typing import Final

from slotwise.model import Appointment, Block, Location, Resource, Service

from ._extension_routes import EXTENSION_ROUTES
from ._row import CONSUMER, SETUP, Route
from ._row import row as _r

__all__ = ["ROUTES", "Route"]

_START_END: Final = {"start": "startDateTime", "end": "endDateTime"}

C = CONSUMER
S = SETUP

SPEC_ROUTES: Final[tuple[Route, ...]] = (
    # -- consumer: appointments ---------------------------------------------------------------
    _r("GET", f"{C}/appointments", "appointments.list", "List appointments"),
    _r(
        "POST",
        f"{C}/appointments",
        "appointments.create",
        "Create an appointment (a hold, or booked/reserved with completeBooking)",
        query=frozenset({"complete_booking"}),
        rename=_START_END,
        record=Appointment,
        status=201,
    ),
    _r("GET", f"{C}/appointments/customfields", "fields.custom_fields", "Custom field definitions"),
    _r(
        "GET",
        f"{C}/appointments/bookingfields",
        "fields.booking_fields",
        "Booking field definitions",
    ),
    _r("GET", f"{C}/appointments/{{id}}", "appointments.get", "Get an appointment"),
    _r("DELETE", f"{C}/appointments/{{id}}", "appointments.delete", "Delete a hold (IN only)"),
    _r(
        "PUT",
        f"{C}/appointments/{{id}}/book",
        "appointments.book",
        "Book a hold",
        record=Appointment,
    ),
    _r("PUT", f"{C}/appointments/{{id}}/cancel", "appointments.cancel", "Cancel an appointment"),
    _r(
        "PUT",
        f"{C}/appointments/{{id}}/reschedule",
        "appointments.reschedule",
        "Reschedule a booked appointment",
        rename=_START_END,
    ),
    _r("PUT", f"{C}/appointments/{{id}}/noshow", "appointments.no_show", "Mark a no-show"),
    _r(
        "PUT",
        f"{C}/appointments/{{id}}/reserve",
        "appointments.reserve",
        "Reserve a hold",
        record=Appointment,
    ),
    _r("PUT", f"{C}/appointments/{{id}}/confirm", "appointments.confirm", "Confirm an appointment"),
    # -- consumer: availability ---------------------------------------------------------------
    _r(
        "GET",
        f"{C}/availability/{{serviceId}}/{{startDate}}/{{endDate}}",
        "availability.times",
        "Available times of a service",
    ),
    _r(
        "GET",
        f"{C}/availability/{{serviceId}}/{{startDate}}/{{endDate}}/days",
        "availability.days",
        "Available days of a service",
    ),
    _r(
        "GET",
        f"{C}/availability/{{serviceId}}/{{startDate}}/{{endDate}}/unavailable",
        "availability.unavailable",
        "Unavailable times of a service, with reasons",
    ),
    _r(
        "GET",
        f"{C}/availability/{{appointmentId}}/reschedule",
        "availability.for_reschedule",
        "Available times to reschedule an appointment to",
    ),
    # -- consumer: customers ------------------------------------------------------------------
    _r("GET", f"{C}/customers/countries", "geography.countries", "Countries"),
    _r("GET", f"{C}/customers/states", "geography.states", "States of a country"),
    _r(
        "GET",
        f"{C}/customers/subscriptions/{{id}}",
        "subscriptions.get",
        "Get a customer subscription",
    ),
    _r(
        "PUT",
        f"{C}/customers/subscriptions/{{id}}",
        "subscriptions.update",
        "Change a customer subscription",
        patch_from="subscriptions.get",
    ),
    _r(
        "DELETE",
        f"{C}/customers/subscriptions/{{id}}",
        "subscriptions.delete",
        "Delete a customer subscription",
    ),
    _r(
        "GET",
        f"{C}/customers/{{id}}/subscriptions",
        "subscriptions.list",
        "A customer's subscriptions",
    ),
    _r(
        "POST",
        f"{C}/customers/{{id}}/subscriptions",
        "subscriptions.create",
        "Subscribe a customer to a plan",
        status=201,
    ),
    # -- consumer: locations, resources, services, groups, settings ---------------------------
    _r("GET", f"{C}/locations", "locations.list", "List locations"),
    _r("GET", f"{C}/locations/{{id}}", "locations.get", "Get a location"),
    _r("GET", f"{C}/resources", "resources.list", "List resources (consumer view)"),
    _r("GET", f"{C}/resources/{{id}}", "resources.get_consumer", "Get a resource (consumer view)"),
    _r(
        "GET",
        f"{C}/resources/{{id}}/services",
        "resources.services",
        "Services linked to a resource",
    ),
    _r("GET", f"{C}/servicegroups", "service_groups.list", "List service groups"),
    _r("GET", f"{C}/servicegroups/{{id}}", "service_groups.get", "Get a service group"),
    _r("GET", f"{C}/services", "services.list_consumer", "List services customers may book"),
    _r("GET", f"{C}/services/{{id}}", "services.get", "Get a service"),
    _r("GET", f"{C}/services/{{id}}/resources", "services.resources", "Resources taking a service"),
    _r(
        "GET",
        f"{C}/settings",
        "locations.settings_list",
        "Location settings (deprecated: read the location instead)",
        deprecated=True,
    ),
    _r("GET", f"{C}/resourcegroups", "resource_groups.list", "List resource groups"),
    _r(
        "POST",
        f"{C}/resourcegroups",
        "resource_groups.create",
        "Create a resource group",
        status=201,
    ),
    _r("GET", f"{C}/resourcegroups/{{id}}", "resource_groups.get", "Get a resource group"),
    _r(
        "PUT",
        f"{C}/resourcegroups/{{id}}",
        "resource_groups.update",
        "Change a resource group",
        patch_from="resource_groups.get",
    ),
    _r("DELETE", f"{C}/resourcegroups/{{id}}", "resource_groups.delete", "Delete a resource group"),
    # -- setup: resources ---------------------------------------------------------------------
    _r(
        "POST",
        f"{S}/resources",
        "resources.create",
        "Create a resource",
        record=Resource,
        status=201,
    ),
    _r(
        "PUT",
        f"{S}/resources/bulk",
        "resources.update_many",
        "Change several resources at once: a list of {id, ...changes}",
        whole_body="updates",
        id_key="id",
        record=Resource,
    ),
    _r("GET", f"{S}/resources/timezones", "resources.timezones", "Time zone names"),
    _r("GET", f"{S}/resources/blocks/{{id}}", "resources.get_block", "Get a resource block"),
    _r(
        "PUT",
        f"{S}/resources/block/{{id}}",
        "resources.update_block",
        "Change a resource block",
        record=Block,
        patch_from="resources.get_block",
    ),
    _r(
        "DELETE", f"{S}/resources/block/{{id}}", "resources.delete_block", "Delete a resource block"
    ),
    _r(
        "GET",
        f"{S}/resources/allocations/{{id}}",
        "resources.get_allocation",
        "Get a resource allocation",
    ),
    _r(
        "PUT",
        f"{S}/resources/allocations/{{id}}",
        "resources.update_allocation",
        "Change a resource allocation",
        patch_from="resources.get_allocation",
    ),
    _r(
        "DELETE",
        f"{S}/resources/allocations/{{id}}",
        "resources.delete_allocation",
        "Delete a resource allocation",
    ),
    _r(
        "PUT",
        f"{S}/resources/{{id}}",
        "resources.update",
        "Change a resource",
        record=Resource,
        patch_from="resources.get",
    ),
    _r("DELETE", f"{S}/resources/{{id}}", "resources.delete", "Delete a resource (recoverable)"),
    _r("PUT", f"{S}/resources/{{id}}/recover", "resources.recover", "Recover a deleted resource"),
    _r(
        "GET",
        f"{S}/resources/{{id}}/availability",
        "resources.get_availability",
        "A resource's weekly hours",
    ),
    _r(
        "PUT",
        f"{S}/resources/{{id}}/availability",
        "resources.set_availability",
        "Set a resource's weekly hours",
        whole_body="days",
    ),
    _r("GET", f"{S}/resources/{{id}}/blocks", "resources.list_blocks", "A resource's blocks"),
    _r(
        "POST",
        f"{S}/resources/{{id}}/block",
        "resources.create_block",
        "Block a resource",
        record=Block,
        status=201,
    ),
    _r(
        "GET",
        f"{S}/resources/{{id}}/allocations",
        "resources.list_allocations",
        "A resource's allocations",
    ),
    _r(
        "POST",
        f"{S}/resources/{{id}}/allocations",
        "resources.create_allocation",
        "Allocate time to a resource",
        record=Block,
        status=201,
    ),
    _r(
        "PUT",
        f"{S}/resources/{{id}}/services",
        "resources.link_services",
        "Set the services a resource takes",
    ),
    *(
        _r(
            "GET",
            f"{S}/resources/{{id}}/calendar/auth/provider{provider}/{{emailAddress}}",
            "resources.authorize_calendar",
            f"Start connecting a resource's calendar at provider {provider}",
            path_params=("resource_id", "email"),
            fixed={"provider": provider},
        )
        for provider in ("A", "B")
    ),
    # -- setup: calendars ---------------------------------------------------------------------
    _r("GET", f"{S}/calendars", "calendars.list", "List calendars"),
    _r("POST", f"{S}/calendars", "calendars.create", "Create a calendar", status=201),
    _r("GET", f"{S}/calendars/{{id}}", "calendars.get", "Get a calendar"),
    _r(
        "PUT",
        f"{S}/calendars/{{id}}",
        "calendars.update",
        "Change a calendar (bookingsPerSlot)",
        patch_from="calendars.get",
    ),
    _r(
        "POST",
        f"{S}/calendars/{{id}}/blocks",
        "calendars.create_block",
        "Block a calendar",
        record=Block,
        status=201,
    ),
    _r(
        "PUT",
        f"{S}/calendars/blocks/{{id}}",
        "calendars.update_block",
        "Change a calendar block",
        record=Block,
        patch_from="calendars.get_block",
    ),
    # -- setup: services ----------------------------------------------------------------------
    _r("GET", f"{S}/services", "services.list", "List services"),
    _r("POST", f"{S}/services", "services.create", "Create a service", record=Service, status=201),
    _r(
        "PUT",
        f"{S}/services/block/{{id}}",
        "services.update_block",
        "Change a service block",
        record=Block,
        patch_from="services.get_block",
    ),
    _r(
        "PUT",
        f"{S}/services/allocations/{{id}}",
        "services.update_allocation",
        "Change a service allocation",
        patch_from="services.get_allocation",
    ),
    _r("GET", f"{S}/services/{{id}}", "services.get", "Get a service"),
    _r(
        "PUT",
        f"{S}/services/{{id}}",
        "services.update",
        "Change a service",
        record=Service,
        patch_from="services.get",
    ),
    _r(
        "PUT",
        f"{S}/services/{{id}}/availability",
        "services.set_availability",
        "Set a service's weekly hours",
        whole_body="days",
    ),
    *(
        _r(
            "POST",
            f"{S}/services/{{id}}/{suffix}",
            "services.create_block",
            "Block a service",
            record=Block,
            status=201,
        )
        for suffix in ("block", "blocks")
    ),
    _r("GET", f"{S}/services/{{id}}/block", "services.list_blocks", "A service's blocks"),
    _r(
        "POST",
        f"{S}/services/{{id}}/allocations",
        "services.create_allocation",
        "Allocate time to an event-type service",
        record=Block,
        status=201,
    ),
    # -- setup: service groups ----------------------------------------------------------------
    _r("GET", f"{S}/servicegroups", "service_groups.list", "List service groups"),
    _r(
        "POST",
        f"{S}/servicegroups",
        "service_groups.create",
        "Create a service group",
        status=201,
    ),
    _r("GET", f"{S}/servicegroups/{{id}}", "service_groups.get", "Get a service group"),
    # -- setup: locations ---------------------------------------------------------------------
    _r(
        "POST",
        f"{S}/locations",
        "locations.create",
        "Create a location",
        record=Location,
        status=201,
    ),
    _r(
        "PUT",
        f"{S}/locations",
        "locations.update",
        "Change a location (its id in the body)",
        record=Location,
        path_params=(),
        rename={"location_id": "id"},
    ),
    _r(
        "POST",
        f"{S}/locations/bulk",
        "locations.create_many",
        "Create several locations at once",
        whole_body="locations",
        status=201,
    ),
    _r(
        "PUT",
        f"{S}/locations/{{id}}/holidays",
        "locations.set_holidays",
        "Replace a location's holidays",
    ),
    _r(
        "PUT",
        f"{S}/locations/{{id}}/settings/scope/{{settingsScope}}",
        "locations.set_settings_scope",
        "Use the location's own settings or the company's",
    ),
    _r(
        "GET",
        f"{S}/locations/{{id}}/appointmentreminders",
        "locations.get_reminders",
        "A location's reminder schedule",
    ),
    _r(
        "PUT",
        f"{S}/locations/{{id}}/appointmentreminders",
        "locations.set_reminders",
        "Set a location's reminder schedule",
        whole_body="schedule",
    ),
    _r("GET", f"{S}/locations/{{id}}/services", "locations.services", "Services at a location"),
    # -- setup: companies ---------------------------------------------------------------------
    _r("POST", f"{S}/companies", "scheduler.create_company", "Create a company", status=201),
    _r(
        "PUT",
        f"{S}/companies",
        "company.update",
        "Change the caller's company",
        patch_from="company.get",
    ),
    _r(
        "PUT",
        f"{S}/company/{{id}}",
        "company.update",
        "Change a company (webhook URLs)",
        path_params=(),
        company_in_path=True,
        patch_from="company.get",
    ),
    _r(
        "GET",
        "/setup/businessUsers/{email}/companies",
        "company.of_business_user",
        "Companies of a business user",
    ),
)
"""The spec's method+path pairs, in the spec's order."""

ROUTES: Final[tuple[Route, ...]] = (*SPEC_ROUTES, *EXTENSION_ROUTES)
"""Every method and path served: the spec's, then slotwise's extensions."""
