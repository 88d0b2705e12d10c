"""
``explain`` agrees with ``times`` and ``unavailable`` on random businesses (issue 14).

For the first searched day of random businesses (the listing property's cases), every quarter
hour and every listed start is explained for each resource: ``offered`` is exactly "listed for
that resource", a time that is not offered always has a reason (a stretch of ``unavailable`` that
overlaps it, or "off the grid" with the nearest starts around it, each offered itself), and every
reason given does overlap the candidate.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings

from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import Reason
from tests.oracle import Business

from .test_listing_agrees_with_booking import cases, day_minutes, listed, workspace

EXAMPLES = 60 if settings().max_examples <= 300 else settings().max_examples


@settings(max_examples=EXAMPLES)
@given(case=cases())
def test_explain_agrees_with_the_listing(case: tuple[Business, AvailabilityQuery, datetime]):
    """Offered exactly when listed; a reason (overlapping) or the grid whenever not offered."""
    business, query, now = case
    day = query.start_date
    ws = workspace(business, now)
    slots = listed(ws, business, day)
    offered = {(slot.start.astimezone(UTC), slot.resource_id) for slot in slots}
    starts = sorted({*day_minutes(business, day), *(start for start, _ in offered)})
    duration = timedelta(minutes=business.service.duration)
    padded = duration + timedelta(minutes=business.service.padding)
    appointment_ids = {appointment.id for appointment in business.appointments}
    gone = ws.availability.unavailable(
        business.service.id, day, day, location_id=business.location.id
    ).unavailable_times
    for resource in business.resources:
        for start in starts[:: max(1, len(starts) // 24)]:
            found = ws.availability.explain(
                business.service.id,
                start,
                resource_id=resource.id,
                location_id=business.location.id,
            )

            assert found.offered == ((start, resource.id) in offered), (start, resource.id)
            if found.offered:
                continue
            assert found.reasons or found.off_grid, (start, resource.id)
            for reason in found.reasons:
                assert reason.start < start + padded
                assert reason.end > start
                if reason.start >= start + duration:
                    assert reason.reason_code in (Reason.FULLY_BOOKED, Reason.EXTERNAL_BUSY)
                if reason.reason_code is Reason.FULLY_BOOKED:
                    assert "appointment" == reason.entity_type, reason
                    assert reason.entity_id in appointment_ids, reason
            if found.off_grid:
                assert not [
                    stretch
                    for stretch in gone
                    if stretch.resource_id == resource.id
                    and stretch.reason_code in (Reason.FULLY_BOOKED, Reason.EXTERNAL_BUSY)
                    and stretch.start < start + padded
                    and stretch.end > start
                ], (start, resource.id)
                assert len(found.nearest) <= 2
                for moment in found.nearest:  # the nearest starts are themselves offered
                    again = ws.availability.explain(
                        business.service.id,
                        moment,
                        resource_id=resource.id,
                        location_id=business.location.id,
                    )
                    assert again.offered, (moment, resource.id)
