"""
A custom booking API on FastAPI that calls slotwise directly (not slotwise's own HTTP service).

A small business's website needs four calls, shaped its own way: the services, a day's free
times, book and cancel. ``create_app(workspace)`` builds them on one company's
``slotwise.Workspace``; every slotwise error becomes an answer with the error's HTTP status and
its ``to_dict()`` body (``code``, ``message``, ``field``...), so a taken slot is a 409 and a bad
e-mail a 400 naming the field. Run as a script it tries the API with FastAPI's TestClient and
prints what each call answered; ``--serve`` serves it on http://127.0.0.1:8000 (see ``/docs``).

Run it: ``pip install '.[examples]' && python examples/custom_api.py [--serve]``
"""

from __future__ import annotations

import sys
from datetime import UTC, date, datetime, timedelta
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from pydantic import BaseModel

from slotwise import Appointment, RoundRobin, Scheduler, SlotwiseError, Workspace
from slotwise.testing import ManualClock, SequentialIds


class ServiceOut(BaseModel):
    """A bookable service as the website shows it."""

    id: str
    name: str
    minutes: int


class FreeTime(BaseModel):
    """One bookable start, in the location's time, with who would serve it."""

    start: datetime
    staff: str


class BookingIn(BaseModel):
    """What the booking form sends."""

    service_id: str
    start: datetime
    name: str
    email: str


class BookingOut(BaseModel):
    """A booking as the website shows it: its id, status and times."""

    id: str
    status: str
    start: datetime
    end: datetime


def _booking(workspace: Workspace, appointment: Appointment) -> BookingOut:
    # Appointments keep UTC; the website shows the location's own time (as availability does).
    zone = ZoneInfo(workspace.locations.get(appointment.location_id).timezone)
    return BookingOut(
        id=appointment.id,
        status=appointment.status.value,
        start=appointment.start.astimezone(zone),
        end=appointment.end.astimezone(zone),
    )


def create_app(workspace: Workspace) -> FastAPI:
    """Return the website's booking API over one company's workspace."""
    app = FastAPI(title="Acme Spa bookings")
    staff = {resource.id: resource.name for resource in workspace.resources.list().data}

    @app.exception_handler(SlotwiseError)
    async def refused(request: Request, error: SlotwiseError) -> JSONResponse:
        """Answer a slotwise error with its HTTP status and its data."""
        return JSONResponse(status_code=error.http_status, content=error.to_dict())

    @app.get("/services")
    def services() -> list[ServiceOut]:
        """List the bookable services."""
        return [
            ServiceOut(id=service.id, name=service.name, minutes=service.duration)
            for service in workspace.services.list().data
        ]

    @app.get("/services/{service_id}/free")
    def free(service_id: str, day: Annotated[date, Query()]) -> list[FreeTime]:
        """List one day's bookable starts of a service."""
        times = workspace.availability.times(service_id, day, day, round_robin=RoundRobin.NONE)
        return [
            FreeTime(start=slot.start, staff=staff.get(slot.resource_id or "", "anyone"))
            for slot in times.available_times
        ]

    @app.post("/bookings", status_code=201)
    def book(form: BookingIn) -> BookingOut:
        """Book a service at a start, for the person on the form."""
        service = workspace.services.get(form.service_id)
        appointment = workspace.appointments.create(
            service.id,
            form.start,
            form.start + timedelta(minutes=service.duration),
            name=form.name,
            email=form.email,
            complete_booking="BK",
        )
        return _booking(workspace, appointment)

    @app.delete("/bookings/{booking_id}")
    def cancel(booking_id: str) -> BookingOut:
        """Cancel a booking."""
        return _booking(workspace, workspace.appointments.cancel(booking_id))

    return app


def demo_workspace() -> Workspace:
    """Acme Spa with one massage and two therapists, on a fixed clock (Monday 08:00 New York)."""
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 23, 13, tzinfo=UTC)), ids=SequentialIds()
    )
    company = scheduler.create_company(name="Acme Spa", timezone="America/New_York")
    acme = scheduler.for_company(company.id)
    acme.locations.create(name="Downtown")
    massage = acme.services.create(name="Massage", duration=60, reason="menu")
    for name in ("Ana", "Ben"):
        acme.resources.create(name=name, reason="team", linked_service_ids=[massage.id])
    return acme


def main() -> None:
    """Try every call with the TestClient and print what each answered."""
    client = TestClient(create_app(demo_workspace()))
    [massage] = client.get("/services").json()
    print(f"GET /services: {massage['name']}, {massage['minutes']} min")

    day = "2026-11-24"
    free = client.get(f"/services/{massage['id']}/free", params={"day": day}).json()
    first = free[0]
    print(f"GET /services/{{id}}/free?day={day}: {len(free)} free times, first {first['start']}")

    form = {"service_id": massage["id"], "start": first["start"]}
    answers = [
        client.post("/bookings", json={**form, "name": name, "email": email})
        for name, email in (("Ann Lee", "ann@example.com"), ("Bo Chen", "bo@example.com"))
    ]
    print(f"POST /bookings twice at {first['start']}: {[a.status_code for a in answers]}")
    third = client.post("/bookings", json={**form, "name": "Cy Dunn", "email": "cy@example.com"})
    print(f"POST /bookings, a third person then: {third.status_code} {third.json()['code']}")
    bad = client.post("/bookings", json={**form, "name": "Di Ross", "email": "not an e-mail"})
    print(f"POST /bookings, a bad e-mail: {bad.status_code} field={bad.json()['field']}")
    cancelled = client.delete(f"/bookings/{answers[0].json()['id']}")
    print(f"DELETE /bookings/{{id}}: {cancelled.status_code} {cancelled.json()['status']}")

    assert [answer.json()["status"] for answer in answers] == ["BK", "BK"]  # Ana, then Ben
    assert (third.status_code, bad.status_code, cancelled.json()["status"]) == (409, 400, "CN")


if __name__ == "__main__":
    if "--serve" in sys.argv:
        import uvicorn

        uvicorn.run(create_app(demo_workspace()), host="127.0.0.1", port=8000)
    else:
        main()
