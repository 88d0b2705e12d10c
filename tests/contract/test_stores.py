"""Every shipped store, through the ``store`` fixture: slotwise's own operations run on it."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from slotwise import Calendar, Company, FieldTooLong, Location, Scheduler
from slotwise.errors import SlotUnavailable
from slotwise.model import Appointment, AppointmentStatus, Operation, Trigger
from slotwise.storage.protocol import Store
from slotwise.testing import ManualClock, SequentialIds

NY = ZoneInfo("America/New_York")


class TestSchedulerOnStore:
    def test_setup_operations_write_through_the_store(self, store: Store, clock: ManualClock):
        """A company and a location created by operations are stored and read back equal."""
        scheduler = Scheduler(store, clock=clock, ids=SequentialIds())
        company = scheduler.create_company(name="Acme Spa", timezone="America/New_York")
        ws = scheduler.for_company(company.id)

        location = ws.locations.create(name="Downtown")

        with store.read() as reader:
            stored = (reader.get(Company, company.id), reader.get(Location, location.id))
            calendar = reader.get(Calendar, location.primary_calendar_id or "")
        assert (company, location) == stored
        assert calendar is not None
        assert location == ws.locations.get(location.id)

    def test_failed_bulk_operation_writes_nothing(self, store: Store, clock: ManualClock):
        """A bulk create refused on its second item leaves no location or calendar behind."""
        scheduler = Scheduler(store, clock=clock, ids=SequentialIds())
        company = scheduler.create_company(name="Acme Spa", timezone="America/New_York")
        ws = scheduler.for_company(company.id)

        with pytest.raises(FieldTooLong):
            ws.locations.create_many([{"name": "Downtown"}, {"name": "x" * 51}])

        with store.read() as reader:
            found = (
                reader.find(Location, company_id=company.id),
                reader.find(Calendar, company_id=company.id),
            )
        assert ([], []) == found


class TestBookingOnStore:
    def test_book_and_cancel_write_through_the_store(self, store: Store, clock: ManualClock):
        """Setup, a booking, a refused double booking and a cancel run on the store end to end."""
        scheduler = Scheduler(store, clock=clock, ids=SequentialIds())
        company = scheduler.create_company(name="Acme Spa", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Downtown")
        service = ws.services.create(name="Cut", duration=30, reason="r")
        resource = ws.resources.create(name="Ana", reason="r")
        start = datetime(2026, 1, 6, 9, 0, tzinfo=NY)
        end = start + timedelta(minutes=30)

        booked = ws.appointments.create(
            service.id,
            start,
            end,
            resource_id=resource.id,
            name="Ann Lee",
            email="ann@example.com",
            complete_booking="BK",
        )
        with pytest.raises(SlotUnavailable):
            ws.appointments.create(
                service.id,
                start,
                end,
                resource_id=resource.id,
                name="Bo Park",
                email="bo@example.com",
                complete_booking="BK",
            )
        cancelled = ws.appointments.cancel(booked.id)
        rebooked = ws.appointments.create(
            service.id,
            start,
            end,
            resource_id=resource.id,
            name="Bo Park",
            email="bo@example.com",
            complete_booking="BK",
        )

        with store.read() as reader:
            stored = reader.get(Appointment, booked.id)
            overlapping = reader.appointments_overlapping(
                location_id=booked.location_id, resource_ids=[resource.id], start=start, end=end
            )
            history = [entry.operation for entry in reader.audit_of(booked.id)]
            triggers = [
                event.trigger
                for event in reader.undelivered_events(company_id=company.id, limit=100)
            ]
        assert cancelled == stored
        assert AppointmentStatus.CANCELLED == cancelled.status
        assert {booked.id, rebooked.id} == {a.id for a in overlapping}
        assert [Operation.CREATE_BOOKED, Operation.CANCEL] == history
        assert [
            Trigger.RESOURCE_CREATED,
            Trigger.CUSTOMER_CREATED,
            Trigger.BOOKING_CONFIRMATION,
            Trigger.CANCEL_RESERVATION_CONFIRMATION,
            Trigger.CUSTOMER_CREATED,
            Trigger.BOOKING_CONFIRMATION,
        ] == triggers
