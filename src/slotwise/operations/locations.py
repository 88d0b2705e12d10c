"""
Location operations: create (single and bulk), update, get, list, holidays, settings scope,
reminder schedule and the services usable at a location.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Required, TypedDict, Unpack

import attrs

from slotwise.errors import DuplicateRecord, SlotwiseError
from slotwise.model import (
    Address,
    BusinessHours,
    Calendar,
    Company,
    Holiday,
    Location,
    LocationSettings,
    ReminderSchedule,
    Service,
    ServiceScope,
    SettingsScope,
)
from slotwise.model._checks import check_point
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.operations._deletion import delete_location
from slotwise.paging import DEFAULT_LIMIT, AllPages, Page, paginate
from slotwise.storage.protocol import Reader, Transaction

from ._partial import renamed, resolved

__all__ = ["LocationChanges", "LocationFields", "LocationOperations", "LocationSettingsEntry"]


@attrs.frozen(kw_only=True)
class LocationSettingsEntry:
    """
    One location's settings in force, as the deprecated consumer settings list shows them.

    ``business_id`` is the deprecated alias of ``location_id`` (decision 33), returned beside it.

    .. versionadded:: 0.1
    """

    company_id: str
    location_id: str
    settings: LocationSettings
    object: str = "settings"

    @property
    def business_id(self) -> str:
        """Return the deprecated alias of ``location_id``."""
        return self.location_id


class _LocationCommon(TypedDict, total=False):
    timezone: str
    friendly_id: str | None
    phone: str | None
    fax: str | None
    email: str | None
    website: str | None
    logo: str | None
    address: Address
    latitude: float | None
    longitude: float | None
    business_hours: BusinessHours
    holidays: Sequence[Holiday]
    settings: LocationSettings
    reminders: ReminderSchedule


class LocationFields(_LocationCommon, total=False):
    """Fields of a new location: ``name`` is required; ``timezone`` defaults to the company's."""

    name: Required[str]


class LocationChanges(_LocationCommon, total=False):
    """Fields a location update may change."""

    name: str


@operations
@attrs.frozen
class LocationOperations(AllPages[Location]):
    """
    Locations of the principal's company.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def create(self, **fields: Unpack[LocationFields]) -> Location:
        """
        Create a location with its primary calendar (spec: POST /setup/v1/locations).

        The company's first location becomes its primary location. The new calendar has
        ``bookings_per_slot`` 1 and 24x7 availability.

        Raises:
            FieldTooLong: when ``name`` is over 50 characters.
            DuplicateRecord: when ``friendly_id`` is already used in the company.
            ValidationError: for any other invalid field.
            Unauthorized: when the principal is limited to some locations (decision 37).
        """
        with self._ctx.store.transaction() as tx:
            return self._create(tx, fields)

    def create_many(self, locations: Iterable[LocationFields]) -> list[Location]:
        """
        Create several locations in one atomic step (spec: POST /setup/v1/locations/bulk).

        Either every location is created or, when one is invalid, none is.

        Raises:
            Unauthorized: when the principal is limited to some locations (decision 37).
            ValidationError: for the first invalid location, naming its place
                (``locations[1].timezone``); nothing is created.
        """
        keys = LocationFields.__required_keys__ | LocationFields.__optional_keys__
        created: list[Location] = []
        with self._ctx.store.transaction() as tx:
            for index, fields in enumerate(locations):
                try:
                    created.append(self._create(tx, fields))
                except SlotwiseError as error:
                    # A location checked after the call boundary names its place as the
                    # boundary's own checks do (``locations[1].name``).
                    heads = {key: f"locations[{index}].{key}" for key in keys}
                    raise renamed(error, heads) from error.__cause__
        return created

    def _create(self, tx: Transaction, fields: LocationFields) -> Location:
        ctx = self._ctx
        # Decision 37: the company's set of locations is a company-wide record.
        ctx.require_company_wide(field="company_id", value=ctx.company_id)
        company = ctx.owned(tx, Company, ctx.company_id, field="company_id")
        existing = tx.find(Location, company_id=ctx.company_id)
        values = dict(fields)
        values.setdefault("timezone", company.timezone)
        location = Location(
            id=ctx.ids.new_id(),
            company_id=ctx.company_id,
            is_primary=not existing,
            **values,  # type: ignore[arg-type]
        )
        _check_friendly_id_free(existing, location)
        calendar = Calendar(
            id=ctx.ids.new_id(),
            company_id=ctx.company_id,
            location_id=location.id,
            name=location.name,
            primary=True,
        )
        location = attrs.evolve(location, primary_calendar_id=calendar.id)
        tx.insert(location)
        tx.insert(calendar)
        return location

    def update(self, location_id: str, /, **changes: Unpack[LocationChanges]) -> Location:
        """
        Change fields of a location (spec: PUT /setup/v1/locations).

        Raises:
            FieldTooLong: when ``name`` is over 50 characters.
            DuplicateRecord: when ``friendly_id`` is already used in the company.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            location = ctx.owned(tx, Location, location_id, field="location_id")
            updated = attrs.evolve(location, **resolved(location, changes))
            others = [
                other
                for other in tx.find(Location, company_id=ctx.company_id)
                if other.id != location.id
            ]
            _check_friendly_id_free(others, updated)
            tx.update(updated)
        return updated

    def make_primary(self, location_id: str, /) -> Location:
        """
        Make a location the company's primary location, in one step (decision 35).

        The previous primary location stops being primary in the same unit of work, so the
        company always has exactly one. Company-scoped services keep the location they were
        created at and stay usable everywhere; locations whose settings scope is the company
        read the new primary location's settings from now on.

        Raises:
            NotFound: when no location has *location_id*.
            Unauthorized: when it is not the principal's, or the principal is limited to some
                locations (the primary location is a company-wide choice, decision 37).
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            location = ctx.owned(tx, Location, location_id, field="location_id")
            ctx.require_company_wide(field="location_id", value=location_id)
            if location.is_primary:
                return location
            for other in tx.find(Location, company_id=ctx.company_id):
                if other.is_primary:
                    tx.update(attrs.evolve(other, is_primary=False))
            updated = attrs.evolve(location, is_primary=True)
            tx.update(updated)
        return updated

    def delete(self, location_id: str, /) -> Location:
        """
        Delete a location and what only it owns, and return it as it was.

        A slotwise extension (decision 46). Its calendars (with their blocks), service and
        resource groups, field definitions, deleted resources and every block and allocation
        at it go in the same unit of work. A location that still has services, resources that
        are not deleted, or appointments stays (delete or move them first); so does the primary
        location (make another one primary first, :meth:`make_primary`).

        Raises:
            NotFound: when no location has *location_id*.
            Unauthorized: when it is not the principal's, or the principal is limited to some
                locations (the set of locations is company-wide, decision 37).
            RecordInUse: for the primary location, or one still in use; nothing is changed.

        .. versionadded:: 0.1
        """
        return delete_location(self._ctx, location_id)

    def get(self, location_id: str, /) -> Location:
        """Return a location (spec: GET /consumer/v1/locations/{id})."""
        return self._ctx.configured_read(
            lambda reader: self._ctx.owned(reader, Location, location_id, field="location_id")
        )

    def list(
        self,
        *,
        name: str | None = None,
        friendly_id: str | None = None,
        nearest_to: tuple[float, float] | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[Location]:
        """
        List the principal's locations (spec: GET /consumer/v1/locations).

        Args:
            name: keeps locations whose name contains it, ignoring case.
            friendly_id: keeps the location with exactly this friendly id.
            nearest_to: ``(latitude, longitude)``; orders by great-circle distance, locations
                without coordinates last. Otherwise the order is creation order.

        Raises:
            OutOfRange: naming ``nearest_to[0]`` for a latitude off -90..90, ``nearest_to[1]``
                for a longitude off -180..180.
        """
        locations = self._ctx.configured_read(self._ctx.visible_locations)
        if name is not None:
            needle = name.casefold()
            locations = [loc for loc in locations if needle in loc.name.casefold()]
        if friendly_id is not None:
            locations = [loc for loc in locations if loc.friendly_id == friendly_id]
        if nearest_to is not None:
            point = check_point(nearest_to, field="nearest_to")
            locations.sort(key=lambda loc: _distance_key(loc, point))
        return paginate(locations, url="/consumer/v1/locations", offset=offset, limit=limit)

    def set_holidays(self, location_id: str, /, holidays: Iterable[Holiday]) -> Location:
        """Replace a location's holidays (spec: PUT /setup/v1/locations/{id}/holidays)."""
        return self.update(location_id, holidays=tuple(holidays))

    def set_settings_scope(self, location_id: str, /, scope: SettingsScope | str) -> Location:
        """
        Choose whether a location uses its own settings or the company's (the primary location's).

        Spec: PUT /setup/v1/locations/{id}/settings/scope/{settingsScope}.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            location = ctx.owned(tx, Location, location_id, field="location_id")
            updated = attrs.evolve(location, settings_scope=SettingsScope(scope))
            tx.update(updated)
        return updated

    def effective_settings(self, location_id: str, /) -> LocationSettings:
        """Return the settings in force at a location, following its settings scope."""

        def read(reader: Reader) -> LocationSettings:
            location = self._ctx.owned(reader, Location, location_id, field="location_id")
            return settings_in_force(reader, location)

        return self._ctx.configured_read(read)

    def settings_list(
        self, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[LocationSettingsEntry]:
        """
        List the settings in force at each visible location.

        Spec: GET /consumer/v1/settings (deprecated; kept for clients that still call it).

        .. deprecated:: 0.1
            The spec deprecates the endpoint: read ``locations.effective_settings(id)`` or the
            location's ``settings``. Emits ``DeprecationWarning``.
        """
        warnings.warn(
            "settings_list() mirrors the deprecated GET /consumer/v1/settings; "
            "use locations.effective_settings(location_id)",
            DeprecationWarning,
            stacklevel=3,  # the caller of the boundary's wrapper
        )
        with self._ctx.store.read() as reader:
            entries = [
                LocationSettingsEntry(
                    company_id=location.company_id,
                    location_id=location.id,
                    settings=settings_in_force(reader, location),
                )
                for location in self._ctx.visible_locations(reader)
            ]
        return paginate(entries, url="/consumer/v1/settings", offset=offset, limit=limit)

    def get_reminders(self, location_id: str, /) -> ReminderSchedule:
        """Return the reminder schedule (spec: GET /setup/v1/locations/{id}/appointmentreminders)."""
        return self.get(location_id).reminders

    def set_reminders(self, location_id: str, /, schedule: ReminderSchedule) -> ReminderSchedule:
        """
        Replace the reminder schedule (spec: PUT /setup/v1/locations/{id}/appointmentreminders).

        The schedule's order was validated when *schedule* was built (decision 28).
        """
        return self.update(location_id, reminders=schedule).reminders

    def services(
        self, location_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Service]:
        """
        List the services usable at a location: its own and the company-scoped ones.

        Spec: GET /setup/v1/locations/{id}/services.
        """

        def read(reader: Reader) -> tuple[Location, list[Service]]:
            location = self._ctx.owned(reader, Location, location_id, field="location_id")
            return location, services_at(reader, location)

        location, services = self._ctx.configured_read(read)
        return paginate(
            services, url=f"/setup/v1/locations/{location.id}/services", offset=offset, limit=limit
        )


def services_at(reader: Reader, location: Location) -> list[Service]:
    """Return the services bookable at *location*, in creation order."""
    return [
        service
        for service in reader.find(Service, company_id=location.company_id)
        if service.location_id == location.id or service.scope is ServiceScope.COMPANY
    ]


def settings_in_force(reader: Reader, location: Location) -> LocationSettings:
    """Return *location*'s settings, or the primary location's when its scope is the company."""
    if location.settings_scope is SettingsScope.LOCATION or location.is_primary:
        return location.settings
    for other in reader.find(Location, company_id=location.company_id):
        if other.is_primary:
            return other.settings
    return location.settings


def _check_friendly_id_free(others: Iterable[Location], location: Location) -> None:
    if location.friendly_id is None:
        return
    if any(other.friendly_id == location.friendly_id for other in others):
        raise DuplicateRecord(kind="location", field="friendly_id", value=location.friendly_id)


def _distance_key(location: Location, point: tuple[float, float]) -> tuple[int, float]:
    if location.latitude is None or location.longitude is None:
        return (1, 0.0)
    lat1, lon1 = map(math.radians, point)
    lat2, lon2 = math.radians(location.latitude), math.radians(location.longitude)
    # Haversine: great-circle distance on the unit sphere; enough to order by nearness.
    half = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return (0, 2 * math.asin(math.sqrt(half)))
