"""
iCalendar (RFC 5545) export and import (extra ``slotwise[ics]``).

Export (:func:`export_appointments`, :func:`export_resource`, module ``slotwise.ics._export``):
appointments become ``VEVENT``\\ s whose ``UID`` is the id of the appointment's first record
(``<id>@slotwise``): a reschedule makes a new record, and the calendar event it belongs to keeps
its UID with ``SEQUENCE`` raised by one per move and once more on cancel, so calendar clients
update the event instead of adding one. Blocks and allocations become events of their first
occurrence with their repeat rule as ``RRULE`` (``UNTIL`` a UTC date-time), in the location's zone
with its ``VTIMEZONE``; the location's holidays are all-day events. The ``icalendar`` library
writes the text.

Import (:class:`IcsBusyTime`, module ``slotwise.ics._import``): a
:class:`~slotwise.availability.busy.BusyTimeProvider` that reads busy time from ``.ics`` data the
host supplies (bytes, a file, or a callable returning either), so a resource's external calendar
can block availability without a provider account. ``recurring-ical-events`` expands the rules
(``RRULE``, ``RDATE``, ``EXDATE``, ``RECURRENCE-ID`` overrides) and ``x-wr-timezone`` reads
Google's ``X-WR-TIMEZONE``. A calendar that cannot be read fails only its own resource.

.. versionadded:: 0.1
"""

from __future__ import annotations

from slotwise.errors import MissingDependency

try:
    import icalendar  # noqa: F401 -- the extra's check, before the modules that need it
    import recurring_ical_events  # noqa: F401
    import x_wr_timezone  # noqa: F401
except ImportError as missing:  # pragma: no cover - exercised without the extra
    raise MissingDependency(feature="iCalendar export and import", extra="ics") from missing

from ._export import export_appointments as export_appointments
from ._export import export_resource as export_resource
from ._import import IcsBusyTime as IcsBusyTime
from ._import import Source as Source
from ._import import Unreadable as Unreadable

__all__ = ["IcsBusyTime", "Source", "Unreadable", "export_appointments", "export_resource"]

for _public in (IcsBusyTime, export_appointments, export_resource):
    # Documented (autodoc) and shown in reprs as ``slotwise.ics.X``, wherever it is defined.
    _public.__module__ = __name__
del _public
