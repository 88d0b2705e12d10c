"""Every shipped store, through the ``store`` fixture: slotwise's own operations run on it."""

from __future__ import annotations

import pytest

from slotwise import Calendar, Company, FieldTooLong, Location, Scheduler
from slotwise.storage.protocol import Store
from slotwise.testing import ManualClock, SequentialIds


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
