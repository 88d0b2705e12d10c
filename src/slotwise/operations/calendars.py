"""
Calendar operations: create, get, list, update, and calendar blocks.

A calendar carries a location's booking grid (``interval``) and its location-level booking limit
(``bookings_per_slot``, spec: Booking-limit related fields). Every location gets a primary
calendar when it is created; calendars created here are never primary.
"""

from __future__ import annotations

from typing import Any, Required, TypedDict, Unpack

import attrs

from slotwise.model import Block, BlockTarget, Calendar, WeeklyHours
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.paging import DEFAULT_LIMIT, AllPages, Page, check_window
from slotwise.storage.listing import Listed, ListQuery, as_page
from slotwise.storage.protocol import Reader

from ._deletion import delete_calendar
from ._partial import resolved
from .windows import (
    TargetWindows,
    WindowChanges,
    WindowFields,
)

__all__ = ["CalendarChanges", "CalendarFields", "CalendarOperations"]


class _CalendarCommon(TypedDict, total=False):
    interval: int
    bookings_per_slot: int


class CalendarFields(_CalendarCommon, total=False):
    """
    Fields of a new calendar: ``name`` is required.

    ``location_id`` defaults to the primary location; ``availability`` ``None`` or omitted means
    24x7; ``type`` is ``"resource"`` (default) or ``"service"``.
    """

    name: Required[str]
    location_id: str | None
    type: str
    availability: WeeklyHours | None


class CalendarChanges(_CalendarCommon, total=False):
    """Fields a calendar update may change (spec: PUT /setup/v1/calendars/{id})."""

    name: str
    availability: WeeklyHours


@operations
@attrs.frozen
class CalendarOperations(AllPages[Calendar]):
    """
    Calendars of the principal's locations, and their blocks.

    .. versionadded:: 0.1
    """

    _ctx: Context

    @property
    def _windows(self) -> TargetWindows:
        return TargetWindows(self._ctx, BlockTarget.CALENDAR, "/setup/v1/calendars/{id}/blocks")

    def create(self, **fields: Unpack[CalendarFields]) -> Calendar:
        """
        Create a calendar that is not primary (spec: POST /setup/v1/calendars).

        Returns:
            The new calendar; without ``availability`` it is open 24x7 (spec: "defaults to 24x7
            availability when none supplied").

        Raises:
            NotFound: when ``location_id`` names no location, or the company has none yet.
            Unauthorized: when the location is not the principal's.
            OutOfRange: when ``bookings_per_slot`` is outside 1..20.
            InvalidChoice: when ``interval`` is not 1, 5, 10, 15, 20, 30 or 60.
        """
        ctx = self._ctx
        location_id = fields.get("location_id")
        values: dict[str, Any] = {k: v for k, v in fields.items() if k != "location_id"}
        if values.get("availability") is None:
            values["availability"] = WeeklyHours.always()
        with ctx.store.transaction() as tx:
            location = ctx.location(tx, location_id)
            calendar = Calendar(
                id=ctx.ids.new_id(),
                company_id=ctx.company_id,
                location_id=location.id,
                primary=False,
                **values,
            )
            tx.insert(calendar)
        return calendar

    def get(self, calendar_id: str, /) -> Calendar:
        """
        Return a calendar (spec: GET /setup/v1/calendars/{id}).

        Raises:
            NotFound: when no calendar has *calendar_id*.
            Unauthorized: when it is not the principal's.
        """
        return self._ctx.configured_read(
            lambda reader: self._ctx.owned(reader, Calendar, calendar_id, field="calendar_id")
        )

    def list(
        self, *, location_id: str | None = None, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Calendar]:
        """
        List the calendars of one location, in creation order (spec: GET /setup/v1/calendars).

        Args:
            location_id: the location; ``None`` means the primary location (spec: Endpoints,
                "locationId filters default to the first business location").

        Raises:
            OutOfRange: when *offset* or *limit* is outside its range (decision 31).
        """
        ctx = self._ctx
        check_window(offset, limit)

        def read(reader: Reader) -> tuple[ListQuery, Listed[Calendar]]:
            location = ctx.location(reader, location_id)
            query = ListQuery(
                company_id=ctx.company_id, location_id=location.id, offset=offset, limit=limit
            )
            return query, reader.page(Calendar, query)

        query, listed = ctx.configured_read(read)
        return as_page(listed, query, url="/setup/v1/calendars")

    def update(self, calendar_id: str, /, **changes: Unpack[CalendarChanges]) -> Calendar:
        """
        Change a calendar (spec: PUT /setup/v1/calendars/{id}); omitted fields keep their values.

        ``bookings_per_slot`` is the location-level booking limit used when a service sets none.

        Raises:
            OutOfRange: when ``bookings_per_slot`` is outside 1..20; nothing is changed.
            InvalidChoice: when ``interval`` is not an allowed slot interval.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            calendar = ctx.owned(tx, Calendar, calendar_id, field="calendar_id")
            updated = attrs.evolve(calendar, **resolved(calendar, changes))
            tx.update(updated)
        return updated

    def delete(self, calendar_id: str, /) -> Calendar:
        """
        Delete a calendar that is not primary, with its blocks, and return it as it was.

        A slotwise extension (decision 46). A location's primary calendar goes only with its
        location; a calendar that appointments name stays (the booking history).

        Raises:
            NotFound: when no calendar has *calendar_id*.
            Unauthorized: when it is not the principal's.
            RecordInUse: when it is its location's primary calendar, or appointments name
                it; nothing is changed.

        .. versionadded:: 0.1
        """
        return delete_calendar(self._ctx, calendar_id)

    # -- blocks -------------------------------------------------------------------------------

    def create_block(self, calendar_id: str, /, **fields: Unpack[WindowFields]) -> Block:
        """
        Block time on a calendar (spec: POST /setup/v1/calendars/{id}/blocks).

        The block applies at the calendar's location.

        Raises:
            InvalidTimeRange: when ``start_time`` is not less than ``end_time`` (spec: Errors 6).
            InvalidDateRange: when ``start_date`` is after ``end_date``.
            NotFound, Unauthorized: when the calendar is unknown or not the principal's.
        """
        calendar = self.get(calendar_id)
        return self._windows.create(
            Block, target_id=calendar.id, location_id=calendar.location_id, fields=fields
        )

    def update_block(self, block_id: str, /, **changes: Unpack[WindowChanges]) -> Block:
        """
        Change a calendar block (spec: PUT /setup/v1/calendars/blocks/{id}).

        Omitted times and reason are preserved.

        Raises:
            NotFound: when the block is unknown, deleted or not a calendar block.
            ValidationError: for invalid dates or times; nothing is changed.
        """
        return self._windows.update(Block, block_id, changes)

    def get_block(self, block_id: str, /) -> Block:
        """
        Return one live calendar block.

        Raises:
            NotFound: when it is unknown, deleted or not a calendar block.
        """
        return self._windows.get(Block, block_id)

    def list_blocks(
        self, calendar_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Block]:
        """Return the live blocks of a calendar, in creation order."""
        calendar = self.get(calendar_id)
        return self._windows.list(Block, calendar.id, offset=offset, limit=limit)

    def delete_block(self, block_id: str, /) -> Block:
        """
        Delete a calendar block: it is kept with ``deleted`` true and no longer applied.

        Raises:
            NotFound: when it is unknown, already deleted or not a calendar block.
        """
        return self._windows.delete(Block, block_id)
