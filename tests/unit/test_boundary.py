"""
The boundary every operation passes (issue 9): declared inputs only, typed refusals, no trace.

One class per fault the issue reproduced; each test failed before the boundary existed.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest

from slotwise import (
    BusinessHours,
    FieldRequired,
    FieldTooLong,
    Holiday,
    InvalidChoice,
    InvalidFormat,
    Location,
    NaiveDatetime,
    NotAuthenticated,
    NotFound,
    OutOfRange,
    Principal,
    RepeatRule,
    Scheduler,
    SlotwiseError,
    Unauthorized,
    UnexpectedField,
    ValidationError,
    Workspace,
)
from slotwise.model import RECORD_KINDS
from slotwise.operations._boundary import is_declared
from slotwise.operations._inputs import converter
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds


def _records(scheduler: Scheduler) -> str:
    """Every record of every kind, as text: equal text means an unchanged store."""
    with scheduler.store.read() as reader:
        return repr([reader.find(kind, company_id=None) for kind in RECORD_KINDS])


def _refused(scheduler: Scheduler, error: type[SlotwiseError], call: Callable[[], Any]) -> str:
    """Run *call*, expect *error*, check the store is unchanged; return the message."""
    before = _records(scheduler)

    with pytest.raises(error) as caught:
        call()

    assert before == _records(scheduler)
    return str(caught.value)


def _operations(ws: Workspace) -> list[Any]:
    """Every public method of every operation group of *ws*."""
    groups = [value for name, value in vars(ws).items() if name != "principal"]
    return [
        getattr(group, name)
        for group in groups
        for name in dir(group)
        if not name.startswith("_") and inspect.ismethod(getattr(group, name))
    ]


@pytest.fixture
def two(scheduler: Scheduler, ws: Workspace, location: Location) -> Workspace:
    """Company B with a location, a service, a resource and a customer, beside company A."""
    other = scheduler.create_company(name="Beta", timezone="UTC")
    wb = scheduler.for_company(other.id)
    wb.locations.create(name="B main")
    wb.services.create(name="B cut", duration=30, reason="r")
    wb.resources.create(name="Bea", reason="r")
    wb.customers.create(first_name="Bo", email="bo@beta.example")
    return wb


class TestEveryOperationIsDeclared:
    def test_every_public_operation_runs_behind_the_boundary(self, ws: Workspace):
        """Each public method of each operation group of a Workspace is wrapped."""
        methods = _operations(ws)

        assert [] == [m.__qualname__ for m in methods if not is_declared(m)]
        assert len(methods) > 100

    def test_platform_calls_run_behind_the_boundary(self, scheduler: Scheduler):
        """The scheduler's own calls and its API token calls are wrapped too."""
        calls = [
            scheduler.create_company,
            scheduler.companies_of_user,
            scheduler.as_principal,
            scheduler.for_company,
            *(
                getattr(scheduler.tokens, name)
                for name in dir(scheduler.tokens)
                if not name.startswith("_")
            ),
        ]

        assert [] == [call.__qualname__ for call in calls if not is_declared(call)]

    def test_every_declaration_compiles(self, ws: Workspace):
        """Each operation's hints, and those of every record it takes, have an input rule."""
        records: set[type] = set()

        def walk(hint: Any) -> None:
            for arg in typing.get_args(hint):
                walk(arg)
            if typing.get_origin(hint) is typing.Unpack:
                for key_hint in typing.get_type_hints(typing.get_args(hint)[0]).values():
                    walk(key_hint)
            if isinstance(hint, type) and attrs.has(hint) and hint not in records:
                records.add(hint)
                hints = typing.get_type_hints(hint)
                for field in attrs.fields(hint):
                    if field.init:
                        converter(hints[field.name], name=field.name)
                        walk(hints[field.name])

        for method in _operations(ws):
            hints = typing.get_type_hints(method.__wrapped__)
            hints.pop("return", None)
            for name, hint in hints.items():
                if typing.get_origin(hint) is not typing.Unpack:
                    converter(hint, name=name)
                walk(hint)

        names = {record.__name__ for record in records}
        assert {"Holiday", "RepeatRule", "LocationSettings", "ReminderSchedule"} <= names

    def test_help_shows_the_declared_signature(self, ws: Workspace):
        """The wrapper keeps the operation's own signature and docstring."""
        signature = inspect.signature(ws.services.get)

        assert ["service_id"] == list(signature.parameters)
        assert "GET /setup/v1/services/{id}" in (ws.services.get.__doc__ or "")


class TestUpdatesKeepIdentity:
    """Fault 1: update keywords reached attrs.evolve and crossed tenants (decision 35)."""

    @pytest.mark.parametrize("keyword", ["id", "company_id", "location_id"])
    def test_service_identity_cannot_change(
        self, scheduler: Scheduler, ws: Workspace, location: Location, two: Workspace, keyword: str
    ):
        """services.update(id=B's id) and friends are refused and change nothing."""
        mine = ws.services.create(name="A cut", duration=30, reason="r")
        theirs = two.services.list().data[0]

        message = _refused(
            scheduler,
            UnexpectedField,
            lambda: ws.services.update(mine.id, **{keyword: theirs.id}),  # type: ignore[misc]
        )

        assert keyword in message
        assert "B cut" not in message

    def test_company_id_cannot_be_rewritten(self, scheduler: Scheduler, ws: Workspace, two):
        """company.update(id=...) is refused: B's company keeps its name."""
        b_id = two.company.get().id

        _refused(scheduler, UnexpectedField, lambda: ws.company.update(id=b_id))  # type: ignore[call-arg]

        assert "Beta" == two.company.get().name

    def test_primary_flag_needs_its_own_operation(
        self, scheduler: Scheduler, ws: Workspace, location: Location
    ):
        """locations.update(is_primary=False) is refused; make_primary moves the flag in one step."""
        branch = ws.locations.create(name="Branch")

        _refused(
            scheduler,
            UnexpectedField,
            lambda: ws.locations.update(location.id, is_primary=False),  # type: ignore[call-arg]
        )
        ws.locations.make_primary(branch.id)

        assert [False, True] == [loc.is_primary for loc in ws.locations.list().data]

    def test_limited_principal_cannot_choose_the_primary(
        self, scheduler: Scheduler, ws: Workspace, location: Location
    ):
        """The primary location is company-wide: a location-limited principal is refused."""
        branch = ws.locations.create(name="Branch")
        limited = scheduler.for_company(ws.company.get().id, location_ids=frozenset({branch.id}))

        _refused(scheduler, Unauthorized, lambda: limited.locations.make_primary(branch.id))

    @pytest.mark.parametrize("keyword", ["target_id", "location_id", "id", "company_id"])
    def test_block_stays_on_its_target(
        self, scheduler: Scheduler, ws: Workspace, location: Location, two: Workspace, keyword
    ):
        """A block update cannot move the block onto another target, location or company."""
        resource = ws.resources.create(name="Ana", reason="r")
        block = ws.resources.create_block(
            resource.id, start_date=date(2026, 1, 5), end_date=date(2026, 1, 5), reason="x"
        )

        _refused(
            scheduler,
            UnexpectedField,
            lambda: ws.resources.update_block(block.id, **{keyword: "9"}),  # type: ignore[misc]
        )

    def test_subscription_keeps_its_customer(self, scheduler: Scheduler, ws: Workspace, location):
        """subscriptions.update(customer_id=...) is refused."""
        customer = ws.customers.create(first_name="Al", email="al@a.example")
        subscription = ws.subscriptions.create(customer.id, customer_plan_id="gold")

        _refused(
            scheduler,
            UnexpectedField,
            lambda: ws.subscriptions.update(subscription.id, customer_id="x"),  # type: ignore[call-arg]
        )

    def test_misspelt_keyword_gets_a_suggestion(
        self, scheduler: Scheduler, ws: Workspace, location
    ):
        """A mistyped keyword names itself and the close match instead of a TypeError."""
        message = _refused(
            scheduler,
            UnexpectedField,
            lambda: ws.services.create(nme="Cut", duration=30, reason="r"),  # type: ignore[call-arg]
        )

        assert "nme" in message
        assert "did you mean 'name'" in message


class TestNoPrincipal:
    """Fault 3: a workspace without a principal crashed with AttributeError (decision 37)."""

    def test_every_operation_needs_a_principal(self, scheduler: Scheduler, ws: Workspace):
        """as_principal(None) gives a workspace whose operations raise NotAuthenticated."""
        nobody = scheduler.as_principal(None)

        with pytest.raises(NotAuthenticated):
            nobody.locations.list()
        with pytest.raises(NotAuthenticated):
            nobody.company.get()

    def test_principal_of_no_company_is_refused(self, scheduler: Scheduler):
        """A principal naming a company that does not exist gets no workspace."""
        with pytest.raises(NotFound):
            scheduler.for_company("missing")
        with pytest.raises(InvalidFormat):
            scheduler.as_principal("company-1")  # type: ignore[arg-type]

    def test_principal_may_be_given_as_a_mapping(self, scheduler: Scheduler, company):
        """A plain mapping of Principal's fields is structured into one."""
        workspace = scheduler.as_principal({"company_id": company.id})  # type: ignore[arg-type]

        assert Principal(company_id=company.id) == workspace.principal


class TestPoisonedValues:
    """Fault 4: values that crashed or were stored and crashed every later query."""

    @pytest.mark.parametrize(
        "start",
        [
            datetime(1, 1, 1, tzinfo=UTC),
            datetime(9999, 12, 31, 23, tzinfo=UTC),
            datetime(1899, 12, 31, 23, tzinfo=UTC),
        ],
    )
    def test_instants_outside_the_years_are_refused(
        self, scheduler: Scheduler, ws: Workspace, service, start: datetime
    ):
        """appointments.create near year 1 or 9999 is OutOfRange, not OverflowError."""
        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.appointments.create(service.id, start, start + timedelta(minutes=30)),
        )

    def test_instant_far_east_of_utc_in_year_9998_is_refused(
        self, scheduler: Scheduler, ws: Workspace, service
    ):
        """The bound holds in UTC too: 9999-01-01 00:30 at +14:00 is still year 9998 in UTC."""
        start = datetime(1899, 12, 31, 23, 30, tzinfo=ZoneInfo("Pacific/Kiritimati"))

        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.appointments.create(service.id, start, start + timedelta(minutes=30)),
        )

    def test_block_from_year_one_is_refused(self, scheduler: Scheduler, ws: Workspace, resource):
        """A weekly block starting 0001-01-01 is refused instead of poisoning availability."""
        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.resources.create_block(
                resource.id,
                start_date=date(1, 1, 1),
                end_date="never",
                repeat=RepeatRule(frequency="W", weekdays="1"),
            ),
        )

    def test_deep_options_are_refused(self, scheduler: Scheduler, ws: Workspace, location):
        """options nested 1,000 deep is OutOfRange, not RecursionError."""
        deep: list[Any] = []
        for _ in range(1000):
            deep = [deep]

        message = _refused(
            scheduler,
            OutOfRange,
            lambda: ws.services.create(name="X", duration=30, reason="r", options={"k": deep}),
        )

        assert "32 levels" in message

    def test_options_over_64_kib_are_refused(self, scheduler: Scheduler, ws: Workspace, location):
        """A 20 MB options value is refused by its JSON size, before any store sees it."""
        huge = {f"k{i}": "x" * 1000 for i in range(20_000)}

        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.services.create(name="X", duration=30, reason="r", options=huge),
        )

    def test_bogus_settings_scope_is_invalid_choice(
        self, scheduler: Scheduler, ws: Workspace, location
    ):
        """set_settings_scope(loc, "bogus") lists the allowed scopes."""
        message = _refused(
            scheduler, InvalidChoice, lambda: ws.locations.set_settings_scope(location.id, "bogus")
        )

        assert "'company', 'location'" in message

    def test_holiday_date_as_text_is_refused(self, scheduler: Scheduler, ws: Workspace, location):
        """A Holiday whose date is text is refused (it used to be stored and ignored)."""
        with pytest.raises(InvalidFormat):
            Holiday(date="2026-12-25")  # type: ignore[arg-type]
        message = _refused(
            scheduler,
            InvalidFormat,
            lambda: ws.locations.set_holidays(location.id, [{"date": "2026-12-25"}]),  # type: ignore[list-item]
        )

        assert "holidays[0].date" in message

    @pytest.mark.parametrize(
        ("keyword", "value"),
        [
            ("business_hours", {"mon": "9-5"}),
            ("business_hours", "9-5"),
            ("settings", {"booking_timer_mins": "ten"}),
            ("reminders", "daily"),
        ],
    )
    def test_nested_records_of_the_wrong_shape_are_refused(
        self, scheduler: Scheduler, ws: Workspace, location, keyword: str, value: object
    ):
        """Nested records given as the wrong dict or a string never reach the store."""
        _refused(
            scheduler,
            ValidationError,
            lambda: ws.locations.update(location.id, **{keyword: value}),  # type: ignore[misc]
        )
        ws.availability.days(
            ws.services.create(name="C", duration=30, reason="r").id,
            date(2026, 1, 5),
            date(2026, 1, 6),
        )

    def test_nested_records_may_be_plain_mappings(self, ws: Workspace, location):
        """A mapping of a record's fields is structured into the record."""
        updated = ws.locations.update(
            location.id,
            holidays=[{"date": date(2026, 12, 25), "name": "Christmas"}],  # type: ignore[list-item]
            business_hours={"mon": {"start_time": 800, "end_time": 1200}},  # type: ignore[typeddict-item]
        )

        assert (Holiday(date=date(2026, 12, 25), name="Christmas"),) == updated.holidays
        assert isinstance(updated.business_hours, BusinessHours)

    def test_weekly_repeat_given_as_text_is_refused(self, scheduler: Scheduler, ws, resource):
        """repeat="W" is refused: a repeat rule is a RepeatRule or a mapping of its fields."""
        _refused(
            scheduler,
            InvalidFormat,
            lambda: ws.resources.create_block(
                resource.id,
                start_date=date(2026, 1, 5),
                end_date="never",
                repeat="W",  # type: ignore[arg-type]
            ),
        )

    @pytest.mark.parametrize(
        ("repeat", "error", "field"),
        [
            ({"frequency": "W", "weekdays": None}, FieldRequired, "repeat.weekdays"),
            ({"frequency": "W", "weekdays": 10**30}, OutOfRange, "repeat.weekdays"),
            ({"frequency": "W", "weekdays": [[1]]}, InvalidFormat, "repeat.weekdays[0]"),
            ({"frequency": "W", "weekdays": object()}, InvalidFormat, "repeat.weekdays"),
            ({"frequency": object()}, InvalidChoice, "repeat.frequency"),
        ],
    )
    def test_fields_with_their_own_converter_are_bounded(
        self, scheduler: Scheduler, ws: Workspace, resource, repeat, error, field: str
    ):
        """A mapping field read by the record's own converter is bounded, never a TypeError."""
        message = _refused(
            scheduler,
            error,
            lambda: ws.resources.create_block(
                resource.id, start_date=date(2026, 1, 5), end_date="never", repeat=repeat
            ),
        )

        assert message.startswith(field)

    def test_converter_forms_still_work(self, ws: Workspace, resource):
        """Weekdays as the spec's digit string stay accepted inside a mapping."""
        block = ws.resources.create_block(
            resource.id,
            start_date=date(2026, 1, 5),
            end_date="never",
            repeat={"frequency": "W", "weekdays": "135"},  # type: ignore[arg-type]
        )

        assert RepeatRule(frequency="W", weekdays="135") == block.repeat

    def test_principal_mapping_of_the_wrong_shape(self, scheduler: Scheduler, company):
        """A principal mapping with an object for location ids is InvalidFormat, not TypeError."""
        with pytest.raises(InvalidFormat, match=r"principal\.location_ids"):
            scheduler.as_principal(
                {"company_id": company.id, "location_ids": object()}  # type: ignore[arg-type]
            )


class TestManyAtOnce:
    """create_many and update_many take TypedDict items, checked key by key like keywords."""

    def test_identity_inside_create_many_is_refused(self, scheduler: Scheduler, ws: Workspace):
        """An id among a new location's fields is UnexpectedField naming the item's key."""
        message = _refused(
            scheduler,
            UnexpectedField,
            lambda: ws.locations.create_many([{"name": "X", "id": "evil"}]),  # type: ignore[typeddict-unknown-key]
        )

        assert message.startswith("locations[0].id cannot be set here")

    def test_identity_inside_update_many_is_refused(
        self, scheduler: Scheduler, ws: Workspace, resource, two: Workspace
    ):
        """A company_id among a resource's changes is refused and nothing moves."""
        message = _refused(
            scheduler,
            UnexpectedField,
            lambda: ws.resources.update_many(
                [(resource.id, {"company_id": two.principal.company_id})]  # type: ignore[typeddict-unknown-key]
            ),
        )

        assert message.startswith("updates[0][1].company_id")

    def test_item_values_are_typed(self, scheduler: Scheduler, ws: Workspace, resource):
        """Each key of an item is converted by its own rule."""
        message = _refused(
            scheduler,
            InvalidFormat,
            lambda: ws.resources.update_many([(resource.id, {"name": 5})]),  # type: ignore[typeddict-item]
        )

        assert message.startswith("updates[0][1].name must be a string")

    def test_item_must_be_a_mapping(self, scheduler: Scheduler, ws: Workspace):
        """A string where a location's fields belong is InvalidFormat."""
        _refused(
            scheduler,
            InvalidFormat,
            lambda: ws.locations.create_many(["x"]),  # type: ignore[list-item]
        )

    def test_required_item_keys(self, scheduler: Scheduler, ws: Workspace):
        """A new location without its name is FieldRequired naming the item."""
        message = _refused(scheduler, FieldRequired, lambda: ws.locations.create_many([{}]))

        assert message.startswith("locations[0].name")


class TestWrongTypes:
    """Fault 5: wrong Python types reached the store or the standard library."""

    @pytest.mark.parametrize("bad", [["x"], {"x": 1}, 5, b"x", "", None])
    def test_ids_must_be_non_empty_strings(self, scheduler: Scheduler, ws: Workspace, bad: object):
        """An id given as a list, a dict, a number, bytes or empty text is a ValidationError."""
        _refused(scheduler, ValidationError, lambda: ws.services.get(bad))  # type: ignore[arg-type]

    def test_filters_are_typed(self, scheduler: Scheduler, ws: Workspace, location):
        """customers.list(name=5) and appointments.list(email=5) are InvalidFormat."""
        _refused(scheduler, InvalidFormat, lambda: ws.customers.list(name=5))  # type: ignore[arg-type]
        _refused(scheduler, InvalidFormat, lambda: ws.appointments.list(email=5))  # type: ignore[arg-type]

    def test_round_robin_is_a_choice(self, scheduler: Scheduler, ws: Workspace, service):
        """availability.times(round_robin="bogus") is InvalidChoice."""
        _refused(
            scheduler,
            InvalidChoice,
            lambda: ws.availability.times(
                service.id,
                date(2026, 1, 5),
                date(2026, 1, 5),
                round_robin="bogus",  # type: ignore[typeddict-item]
            ),
        )

    def test_mark_delivered_needs_ids(self, scheduler: Scheduler, ws: Workspace):
        """outbox.mark_delivered(None) is refused as a missing value."""
        _refused(scheduler, FieldRequired, lambda: ws.outbox.mark_delivered(None))  # type: ignore[arg-type]

    def test_missing_required_fields_are_named(self, scheduler: Scheduler, ws: Workspace, location):
        """A missing name or time zone is FieldRequired, not a TypeError."""
        _refused(scheduler, FieldRequired, lambda: ws.services.create(duration=30, reason="r"))  # type: ignore[call-arg]
        _refused(scheduler, FieldRequired, lambda: ws.resources.create(reason="r"))  # type: ignore[call-arg]
        _refused(scheduler, FieldRequired, lambda: scheduler.create_company(name="X"))  # type: ignore[call-arg]

    def test_naive_datetime_is_refused(self, scheduler: Scheduler, ws: Workspace, service):
        """A naive start is NaiveDatetime."""
        naive = datetime(2026, 1, 6, 9)

        _refused(
            scheduler,
            NaiveDatetime,
            lambda: ws.appointments.create(service.id, naive, naive + timedelta(minutes=30)),
        )

    def test_too_many_positional_arguments(self, scheduler: Scheduler, ws: Workspace):
        """An extra positional argument is UnexpectedField, not TypeError."""
        _refused(scheduler, UnexpectedField, lambda: ws.services.get("1", "2"))  # type: ignore[call-arg]


class TestEveryReproducedCallSite:
    """Fault 4 named more call sites than appointments.create: each is refused the same way."""

    @pytest.fixture
    def booked(self, ws: Workspace, service, resource):
        """A booked appointment at the first offered time."""
        week = ws.availability.times(service.id, date(2026, 1, 5), date(2026, 1, 9))
        first = week.available_times[0]
        return ws.appointments.create(service.id, first.start, first.end, resource_id=resource.id)

    @pytest.mark.parametrize(
        "start", [datetime(1, 1, 1, 9, tzinfo=UTC), datetime(9999, 12, 31, 9, tzinfo=UTC)]
    )
    def test_reschedule_near_the_ends_of_time(
        self, scheduler: Scheduler, ws: Workspace, booked, start: datetime
    ):
        """reschedule to year 1 or 9999 is OutOfRange, not OverflowError."""
        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.appointments.reschedule(
                booked.id, start=start, end=start + timedelta(minutes=30)
            ),
        )

    @pytest.mark.parametrize(
        ("start", "end"),
        [(date(1, 1, 1), date(1, 1, 7)), (date(9999, 12, 25), date(9999, 12, 31))],
    )
    def test_availability_near_the_ends_of_time(
        self, scheduler: Scheduler, ws: Workspace, service, start: date, end: date
    ):
        """availability.times near year 1 or 9999 is OutOfRange, not OverflowError."""
        _refused(scheduler, OutOfRange, lambda: ws.availability.times(service.id, start, end))

    @pytest.mark.parametrize(
        "when", [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, tzinfo=UTC)]
    )
    def test_subscriptions_near_the_ends_of_time(
        self, scheduler: Scheduler, ws: Workspace, location, when: datetime
    ):
        """subscriptions.create and update near year 1 or 9999 are OutOfRange."""
        customer = ws.customers.create(first_name="Cy", email="cy@example.com")
        plan = ws.subscriptions.create(customer.id, customer_plan_id="gold")

        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.subscriptions.create(customer.id, customer_plan_id="p", plan_start=when),
        )
        _refused(scheduler, OutOfRange, lambda: ws.subscriptions.update(plan.id, plan_start=when))

    @pytest.mark.parametrize("hours", ["9-5", {"mon": "9-5"}, {"mon": {"start": 900}}])
    def test_weekly_hours_of_the_wrong_shape(
        self, scheduler: Scheduler, ws: Workspace, service, resource, hours: object
    ):
        """Service availability and resource weekly hours of the wrong shape never reach a store."""
        _refused(
            scheduler,
            ValidationError,
            lambda: ws.services.update(service.id, availability=hours),  # type: ignore[arg-type]
        )
        _refused(
            scheduler,
            ValidationError,
            lambda: ws.resources.update(resource.id, weekly_hours=hours),  # type: ignore[arg-type]
        )
        _refused(
            scheduler,
            ValidationError,
            lambda: ws.services.create(name="X", duration=30, reason="r", availability=hours),  # type: ignore[arg-type]
        )

        assert ws.availability.times(service.id, date(2026, 1, 5), date(2026, 1, 6)).available_times

    @pytest.mark.parametrize("schedule", ["daily", {"emails": "daily"}, [1, 2]])
    def test_reminders_of_the_wrong_shape(
        self, scheduler: Scheduler, ws: Workspace, location, schedule: object
    ):
        """A reminder schedule given as text or the wrong dict is refused."""
        _refused(
            scheduler,
            ValidationError,
            lambda: ws.locations.set_reminders(location.id, schedule),  # type: ignore[arg-type]
        )


class TestBoundedWork:
    """Fault 6: one call could ask for minutes of work or for values one store refuses."""

    def test_search_spans_at_most_366_days(self, scheduler: Scheduler, ws: Workspace, service):
        """A 300-year search is OutOfRange naming end_date, at once."""
        message = _refused(
            scheduler,
            OutOfRange,
            lambda: ws.availability.times(service.id, date(2026, 1, 1), date(2326, 1, 1)),
        )

        assert message.startswith("end_date")

    def test_search_span_is_a_scheduler_setting(self, company):
        """Scheduler(max_query_days=...) moves the bound; a nonsense setting is refused."""
        small = Scheduler(
            MemoryStore(),
            clock=ManualClock(datetime(2026, 1, 5, tzinfo=UTC)),
            ids=SequentialIds(),
            max_query_days=7,
        )
        created = small.create_company(name="S", timezone="UTC")
        workspace = small.for_company(created.id)
        workspace.locations.create(name="L")
        service = workspace.services.create(name="C", duration=30, reason="r")

        workspace.availability.times(service.id, date(2026, 1, 5), date(2026, 1, 11))
        with pytest.raises(OutOfRange):
            workspace.availability.times(service.id, date(2026, 1, 5), date(2026, 1, 12))
        with pytest.raises(OutOfRange):
            Scheduler(max_query_days=0)

    def test_search_dates_end_in_9998(self, scheduler: Scheduler, ws: Workspace, service):
        """A search in 9999 is OutOfRange, not OverflowError."""
        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.availability.times(service.id, "9999-12-01", "9999-12-31"),
        )

    @pytest.mark.parametrize("bad", ["x\x00y", "x\ud800"])
    def test_text_is_valid_unicode_without_nul(self, scheduler: Scheduler, ws, location, bad: str):
        """NUL and lone surrogates are refused by every store alike, before any store."""
        _refused(
            scheduler,
            InvalidFormat,
            lambda: ws.services.create(name=bad, duration=30, reason="r"),
        )

    def test_huge_integers_are_refused(self, scheduler: Scheduler, ws: Workspace, location):
        """A 5,000-digit integer is OutOfRange and the message stays short."""
        message = _refused(
            scheduler,
            OutOfRange,
            lambda: ws.services.create(name="X", duration=10**5000, reason="r"),
        )

        assert len(message) < 200

    def test_long_strings_are_quoted_short(self, scheduler: Scheduler, ws: Workspace):
        """An error quoting a 50,000-character value stays short."""
        message = _refused(scheduler, FieldTooLong, lambda: ws.services.get("x" * 50_000))

        assert len(message) < 200

    def test_long_sequences_are_refused(self, scheduler: Scheduler, ws: Workspace, resource):
        """A sequence of more than 1,000 items is OutOfRange."""
        _refused(
            scheduler,
            OutOfRange,
            lambda: ws.resources.link_services(resource.id, [f"s{i}" for i in range(1001)]),
        )


def test_help_lists_the_keywords_an_operation_accepts():
    """help(ws.services.create) shows each keyword of **fields, required ones marked (issue 14)."""
    import pydoc

    from slotwise import Scheduler

    workspace = Scheduler().as_principal(None)
    text = pydoc.render_doc(workspace.services.create, renderer=pydoc.plaintext)

    assert "Keyword arguments (``**fields``):" in text
    assert "duration: int (required)" in text
    assert "round_robin: RoundRobin | str" in text
