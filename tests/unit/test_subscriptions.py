"""Customer subscription operations: list, create, get, update, delete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from slotwise import (
    Customer,
    FieldRequired,
    InconsistentFields,
    InvalidFormat,
    NaiveDatetime,
    NotFound,
    Subscription,
    Unauthorized,
    Workspace,
)
from slotwise.testing import ManualClock

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
PLAN_START = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def customer(ws: Workspace) -> Customer:
    """A customer of the company."""
    return ws.customers.create(first_name="Ann", email="ann@example.com")


@pytest.fixture
def their_subscription(other_ws: Workspace) -> Subscription:
    """A subscription of another company's customer."""
    theirs = other_ws.customers.create(first_name="Zed")
    return other_ws.subscriptions.create(theirs.id, customer_plan_id="gold")


class TestCreate:
    def test_plan_with_trial(self, ws: Workspace, customer: Customer):
        """A trial starts at the plan start; the record names the customer and plan."""
        trial_end = PLAN_START + timedelta(days=14)

        subscription = ws.subscriptions.create(
            customer.id,
            customer_plan_id="gold",
            customer_plan_name="Gold",
            plan_start=PLAN_START,
            trial_period_end=trial_end,
        )

        assert (
            subscription.customer_id,
            subscription.customer_plan_id,
            subscription.customer_plan_name,
            subscription.plan_start,
            subscription.trial_period_start,
            subscription.trial_period_end,
        ) == (customer.id, "gold", "Gold", PLAN_START, PLAN_START, trial_end)

    def test_without_trial_has_no_trial_dates(self, ws: Workspace, customer: Customer):
        """Without a trial end, both trial dates are empty."""
        subscription = ws.subscriptions.create(
            customer.id, customer_plan_id="gold", plan_start=PLAN_START
        )

        assert (subscription.trial_period_start, subscription.trial_period_end) == (None, None)

    def test_plan_start_defaults_to_the_clock(
        self, ws: Workspace, customer: Customer, clock: ManualClock
    ):
        """An omitted plan start is the clock's now."""
        subscription = ws.subscriptions.create(customer.id, customer_plan_id="gold")

        assert clock.now() == subscription.plan_start

    def test_datetimes_are_stored_in_utc(self, ws: Workspace, customer: Customer):
        """Aware datetimes in any zone are stored as the same instant in UTC."""
        local_start = datetime(2026, 3, 29, 10, 0, tzinfo=AMSTERDAM)

        subscription = ws.subscriptions.create(
            customer.id, customer_plan_id="gold", plan_start=local_start
        )

        assert subscription.plan_start == local_start
        assert subscription.plan_start is not None
        assert subscription.plan_start.tzinfo == UTC
        assert datetime(2026, 3, 29, 8, 0, tzinfo=UTC) == subscription.plan_start

    def test_naive_plan_start_is_refused(self, ws: Workspace, customer: Customer):
        """A naive plan start raises NaiveDatetime and stores nothing."""
        with pytest.raises(NaiveDatetime) as info:
            ws.subscriptions.create(
                customer.id, customer_plan_id="gold", plan_start=datetime(2026, 2, 1, 9, 0)
            )

        assert info.value.field == "plan_start"
        assert ws.subscriptions.list(customer.id).total == 0

    def test_naive_trial_end_is_refused(self, ws: Workspace, customer: Customer):
        """A naive trial end raises NaiveDatetime and stores nothing."""
        with pytest.raises(NaiveDatetime) as info:
            ws.subscriptions.create(
                customer.id,
                customer_plan_id="gold",
                plan_start=PLAN_START,
                trial_period_end=datetime(2026, 2, 15),
            )

        assert info.value.field == "trial_period_end"
        assert ws.subscriptions.list(customer.id).total == 0

    def test_date_instead_of_datetime_is_refused(self, ws: Workspace, customer: Customer):
        """A date without a time is not a datetime and is refused."""
        with pytest.raises(InvalidFormat):
            ws.subscriptions.create(
                customer.id,
                customer_plan_id="gold",
                plan_start=PLAN_START.date(),  # type: ignore[arg-type]
            )

    def test_trial_end_boundary(self, ws: Workspace, customer: Customer):
        """A trial may end at the plan start; one second earlier is refused and stores nothing."""
        same = ws.subscriptions.create(
            customer.id, customer_plan_id="a", plan_start=PLAN_START, trial_period_end=PLAN_START
        )

        assert same.trial_period_end == PLAN_START
        with pytest.raises(InconsistentFields):
            ws.subscriptions.create(
                customer.id,
                customer_plan_id="b",
                plan_start=PLAN_START,
                trial_period_end=PLAN_START - timedelta(seconds=1),
            )
        assert [same] == list(ws.subscriptions.list(customer.id).data)

    def test_plan_id_is_required(self, ws: Workspace, customer: Customer):
        """A blank plan id raises FieldRequired and stores nothing."""
        with pytest.raises(FieldRequired) as info:
            ws.subscriptions.create(customer.id, customer_plan_id=" ")

        assert info.value.field == "customer_plan_id"
        assert ws.subscriptions.list(customer.id).total == 0

    def test_other_company_customer_is_unauthorized(self, ws: Workspace, other_ws: Workspace):
        """Subscribing another company's customer raises Unauthorized and stores nothing."""
        theirs = other_ws.customers.create(first_name="Zed")

        with pytest.raises(Unauthorized):
            ws.subscriptions.create(theirs.id, customer_plan_id="gold")

        assert other_ws.subscriptions.list(theirs.id).total == 0

    def test_missing_customer_is_not_found(self, ws: Workspace):
        """Subscribing an unknown customer raises NotFound."""
        with pytest.raises(NotFound):
            ws.subscriptions.create("nope", customer_plan_id="gold")


class TestList:
    def test_lists_only_that_customers_subscriptions(self, ws: Workspace, customer: Customer):
        """A customer's list holds its own subscriptions in creation order, with the spec's url."""
        bob = ws.customers.create(first_name="Bob")
        gold = ws.subscriptions.create(customer.id, customer_plan_id="gold")
        ws.subscriptions.create(bob.id, customer_plan_id="silver")
        extra = ws.subscriptions.create(customer.id, customer_plan_id="extra")

        page = ws.subscriptions.list(customer.id)

        assert [gold, extra] == list(page.data)
        assert f"/consumer/v1/customers/{customer.id}/subscriptions" == page.url

    def test_paging(self, ws: Workspace, customer: Customer):
        """The list pages with offset and limit."""
        for plan in ("a", "b", "c"):
            ws.subscriptions.create(customer.id, customer_plan_id=plan)

        page = ws.subscriptions.list(customer.id, offset=2, limit=1)

        assert (
            [s.customer_plan_id for s in page.data],
            page.total,
            page.has_more,
        ) == (["c"], 3, False)

    def test_other_company_customer_is_unauthorized(
        self, ws: Workspace, their_subscription: Subscription
    ):
        """Listing another company's customer's subscriptions raises Unauthorized."""
        with pytest.raises(Unauthorized):
            ws.subscriptions.list(their_subscription.customer_id)

    def test_missing_customer_is_not_found(self, ws: Workspace):
        """Listing an unknown customer's subscriptions raises NotFound."""
        with pytest.raises(NotFound):
            ws.subscriptions.list("nope")


class TestGet:
    def test_get_returns_the_subscription(self, ws: Workspace, customer: Customer):
        """get returns the subscription as created."""
        subscription = ws.subscriptions.create(customer.id, customer_plan_id="gold")

        assert subscription == ws.subscriptions.get(subscription.id)

    def test_other_company_is_unauthorized(self, ws: Workspace, their_subscription: Subscription):
        """Another company's subscription raises Unauthorized."""
        with pytest.raises(Unauthorized) as info:
            ws.subscriptions.get(their_subscription.id)

        assert info.value.field == "subscription_id"

    def test_missing_subscription_is_not_found(self, ws: Workspace):
        """An unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.subscriptions.get("nope")


class TestUpdate:
    @pytest.fixture
    def trial(self, ws: Workspace, customer: Customer) -> Subscription:
        """A subscription starting at PLAN_START with a 14-day trial."""
        return ws.subscriptions.create(
            customer.id,
            customer_plan_id="gold",
            plan_start=PLAN_START,
            trial_period_end=PLAN_START + timedelta(days=14),
        )

    def test_changes_plan_and_keeps_the_rest(self, ws: Workspace, trial: Subscription):
        """Changing the plan id keeps the dates."""
        updated = ws.subscriptions.update(trial.id, customer_plan_id="platinum")

        assert ("platinum", trial.plan_start, trial.trial_period_end) == (
            updated.customer_plan_id,
            updated.plan_start,
            updated.trial_period_end,
        )
        assert updated == ws.subscriptions.get(trial.id)

    def test_trial_start_follows_a_new_plan_start(self, ws: Workspace, trial: Subscription):
        """Moving the plan start moves the trial start with it, stored in UTC."""
        new_start = datetime(2026, 2, 3, 10, 0, tzinfo=AMSTERDAM)

        updated = ws.subscriptions.update(trial.id, plan_start=new_start)

        assert (new_start, new_start) == (updated.plan_start, updated.trial_period_start)
        assert updated.trial_period_start is not None
        assert updated.trial_period_start.tzinfo == UTC

    def test_earlier_plan_and_trial_together(self, ws: Workspace, trial: Subscription):
        """Plan start and trial end may both move before the old trial start in one update."""
        start = PLAN_START - timedelta(days=30)
        end = PLAN_START - timedelta(days=20)

        updated = ws.subscriptions.update(trial.id, plan_start=start, trial_period_end=end)

        assert (start, start, end) == (
            updated.plan_start,
            updated.trial_period_start,
            updated.trial_period_end,
        )

    def test_clearing_trial_end_clears_the_trial(self, ws: Workspace, trial: Subscription):
        """A trial end of None removes both trial dates."""
        updated = ws.subscriptions.update(trial.id, trial_period_end=None)

        assert (updated.trial_period_start, updated.trial_period_end) == (None, None)

    def test_plan_start_cannot_be_cleared(self, ws: Workspace, trial: Subscription):
        """A plan start of None is refused; the record is unchanged."""
        with pytest.raises(FieldRequired):
            ws.subscriptions.update(trial.id, plan_start=None)  # type: ignore[arg-type]

        assert trial == ws.subscriptions.get(trial.id)

    def test_naive_datetime_is_refused(self, ws: Workspace, trial: Subscription):
        """A naive trial end raises NaiveDatetime; the record is unchanged."""
        with pytest.raises(NaiveDatetime):
            ws.subscriptions.update(trial.id, trial_period_end=datetime(2026, 3, 1))

        assert trial == ws.subscriptions.get(trial.id)

    def test_plan_start_after_trial_end_is_refused(self, ws: Workspace, trial: Subscription):
        """A plan start at the trial end is accepted, one second later refused unchanged."""
        assert trial.trial_period_end is not None
        end = trial.trial_period_end

        with pytest.raises(InconsistentFields):
            ws.subscriptions.update(trial.id, plan_start=end + timedelta(seconds=1))
        assert trial == ws.subscriptions.get(trial.id)
        assert end == ws.subscriptions.update(trial.id, plan_start=end).trial_period_start

    def test_other_company_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, their_subscription: Subscription
    ):
        """Updating another company's subscription raises Unauthorized and changes nothing."""
        with pytest.raises(Unauthorized):
            ws.subscriptions.update(their_subscription.id, customer_plan_id="mine")

        assert their_subscription == other_ws.subscriptions.get(their_subscription.id)

    def test_missing_subscription_is_not_found(self, ws: Workspace):
        """Updating an unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.subscriptions.update("nope", customer_plan_id="gold")


class TestDelete:
    def test_delete_removes_and_returns_the_record(self, ws: Workspace, customer: Customer):
        """Delete is permanent and returns the record as it was."""
        subscription = ws.subscriptions.create(customer.id, customer_plan_id="gold")

        deleted = ws.subscriptions.delete(subscription.id)

        assert subscription == deleted
        assert ws.subscriptions.list(customer.id).total == 0
        with pytest.raises(NotFound):
            ws.subscriptions.get(subscription.id)

    def test_other_company_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, their_subscription: Subscription
    ):
        """Deleting another company's subscription raises Unauthorized and keeps it."""
        with pytest.raises(Unauthorized):
            ws.subscriptions.delete(their_subscription.id)

        assert their_subscription == other_ws.subscriptions.get(their_subscription.id)

    def test_missing_subscription_is_not_found(self, ws: Workspace):
        """Deleting an unknown id (or one already deleted) raises NotFound."""
        with pytest.raises(NotFound):
            ws.subscriptions.delete("nope")
