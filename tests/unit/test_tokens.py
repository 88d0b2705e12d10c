"""API tokens of the HTTP service by Python call (decision 39): issue, list, revoke, authenticate."""

from __future__ import annotations

from datetime import timedelta

import pytest

from slotwise import (
    FieldRequired,
    InvalidFormat,
    InvalidReference,
    MemoryStore,
    NotAuthenticated,
    NotFound,
    OutOfRange,
    Principal,
    Scheduler,
)
from slotwise.model import ApiToken
from slotwise.operations.tokens import hash_token, random_token
from slotwise.storage._memory_units import MemoryReader
from slotwise.testing import ManualClock, SequentialIds, SequentialTokens
from tests.conftest import START


@pytest.fixture
def clock() -> ManualClock:
    """A clock standing at the suite's start."""
    return ManualClock(START)


@pytest.fixture
def scheduler(clock: ManualClock) -> Scheduler:
    """A scheduler whose tokens are predictable."""
    return Scheduler(
        MemoryStore(), clock=clock, ids=SequentialIds(), token_source=SequentialTokens()
    )


@pytest.fixture
def company_id(scheduler: Scheduler) -> str:
    """A company with two locations."""
    company = scheduler.create_company(name="Acme", timezone="UTC")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="One")
    ws.locations.create(name="Two")
    return company.id


def _locations(scheduler: Scheduler, company_id: str) -> list[str]:
    return [location.id for location in scheduler.for_company(company_id).locations.list().data]


class TestIssue:
    def test_token_is_shown_once_and_only_its_hash_is_kept(
        self, scheduler: Scheduler, company_id: str
    ):
        """The issued secret is returned; the store holds its SHA-256 and nothing else of it."""
        issued = scheduler.tokens.create(Principal(company_id=company_id), label="front desk")

        with scheduler.store.read() as reader:
            stored = reader.find(ApiToken, company_id=company_id)
        assert "sw_test_" + "1".zfill(32) == issued.token
        assert [issued.record] == stored
        assert hash_token(issued.token) == stored[0].token_hash
        assert issued.token not in repr(stored) + repr(issued)

    def test_token_authenticates_as_its_principal(self, scheduler: Scheduler, company_id: str):
        """A token limited to one location authenticates as that principal, named by its label."""
        first = _locations(scheduler, company_id)[0]
        issued = scheduler.tokens.create(
            Principal(company_id=company_id, location_ids=frozenset({first})), label="desk one"
        )

        principal = scheduler.tokens.authenticate(issued.token)

        assert (
            Principal(company_id=company_id, location_ids=frozenset({first}), user="desk one")
            == principal
        )
        assert [first] == [
            location.id for location in scheduler.as_principal(principal).locations.list().data
        ]

    def test_default_tokens_are_32_random_bytes(self):
        """The default source gives long, different tokens (URL-safe base64 of 32 bytes)."""
        tokens = {random_token() for _ in range(50)}

        assert 50 == len(tokens)
        assert all(len(token) >= 3 + 43 for token in tokens)

    def test_unknown_company_is_not_found(self, scheduler: Scheduler):
        """A token for a company that does not exist is refused."""
        with pytest.raises(NotFound):
            scheduler.tokens.create(Principal(company_id="nope"), label="x")

    def test_foreign_location_is_refused(self, scheduler: Scheduler, company_id: str):
        """A token limited to another company's location is refused, and nothing is kept."""
        other = scheduler.create_company(name="Other", timezone="UTC")
        theirs = scheduler.for_company(other.id).locations.create(name="Theirs")

        with pytest.raises(InvalidReference, match="location_ids"):
            scheduler.tokens.create(
                Principal(company_id=company_id, location_ids=frozenset({theirs.id})), label="x"
            )
        assert [] == scheduler.tokens.list(company_id)

    def test_expiry_must_be_in_the_future(
        self, scheduler: Scheduler, company_id: str, clock: ManualClock
    ):
        """An expiry at or before now is OutOfRange naming expires_at, its times in ISO 8601."""
        with pytest.raises(OutOfRange, match="expires_at") as refused:
            scheduler.tokens.create(
                Principal(company_id=company_id), label="x", expires_at=clock.now()
            )

        assert clock.now().isoformat() in refused.value.message
        assert "datetime" not in refused.value.message

    @pytest.mark.parametrize(
        ("arguments", "error"),
        [
            ({"label": ""}, FieldRequired),
            ({"label": "x" * 256}, ValueError),
            ({"label": 5}, InvalidFormat),
            ({"label": "x", "scope": "all"}, ValueError),
        ],
    )
    def test_bad_arguments_are_refused(
        self, scheduler: Scheduler, company_id: str, arguments: dict[str, object], error: type
    ):
        """The label is required text of at most 255 characters; unknown keywords are refused."""
        with pytest.raises(error):
            scheduler.tokens.create(Principal(company_id=company_id), **arguments)  # type: ignore[arg-type]
        assert [] == scheduler.tokens.list(company_id)


class TestAuthenticate:
    def test_unknown_expired_and_revoked_tokens_fail_alike(
        self, scheduler: Scheduler, company_id: str, clock: ManualClock
    ):
        """Each raises NotAuthenticated with the same message, which never quotes the token."""
        principal = Principal(company_id=company_id)
        expiring = scheduler.tokens.create(
            principal, label="a", expires_at=clock.now() + timedelta(hours=1)
        )
        revoked = scheduler.tokens.create(principal, label="b")
        scheduler.tokens.revoke(revoked.record.id)
        clock.advance(timedelta(hours=1))

        messages = []
        for token in ("sw_unknown_" + "0" * 32, expiring.token, revoked.token):
            with pytest.raises(NotAuthenticated) as caught:
                scheduler.tokens.authenticate(token)
            messages.append(str(caught.value))
            assert token not in str(caught.value)

        assert 1 == len(set(messages))

    def test_token_works_until_just_before_it_expires(
        self, scheduler: Scheduler, company_id: str, clock: ManualClock
    ):
        """A token expiring at t authenticates at t - 1 second and not at t."""
        issued = scheduler.tokens.create(
            Principal(company_id=company_id), label="a", expires_at=clock.now() + timedelta(hours=1)
        )
        clock.advance(timedelta(minutes=59, seconds=59))
        scheduler.tokens.authenticate(issued.token)
        clock.advance(timedelta(seconds=1))

        with pytest.raises(NotAuthenticated):
            scheduler.tokens.authenticate(issued.token)


class TestListAndRevoke:
    def test_list_is_per_company_in_creation_order(self, scheduler: Scheduler, company_id: str):
        """A company's tokens, revoked ones included, in the order they were issued."""
        other = scheduler.create_company(name="Other", timezone="UTC")
        first = scheduler.tokens.create(Principal(company_id=company_id), label="first")
        scheduler.tokens.create(Principal(company_id=other.id), label="theirs")
        second = scheduler.tokens.create(Principal(company_id=company_id), label="second")
        scheduler.tokens.revoke(first.record.id)

        listed = scheduler.tokens.list(company_id)

        assert [first.record.id, second.record.id] == [token.id for token in listed]
        assert listed[0].revoked_at is not None

    def test_listing_an_unknown_company_is_not_found(self, scheduler: Scheduler, company_id: str):
        """A mistyped company id is NotFound naming it, not an empty list; a company without
        tokens lists none."""
        with pytest.raises(NotFound) as refused:
            scheduler.tokens.list("TYPO")

        assert ("Company", "TYPO") == (refused.value.kind, refused.value.record_id)
        assert [] == scheduler.tokens.list(company_id)

    def test_revoking_twice_changes_nothing(
        self, scheduler: Scheduler, company_id: str, clock: ManualClock
    ):
        """The second revoke returns the token as the first left it."""
        issued = scheduler.tokens.create(Principal(company_id=company_id), label="a")
        once = scheduler.tokens.revoke(issued.record.id)
        clock.advance(timedelta(hours=1))

        assert once == scheduler.tokens.revoke(issued.record.id)
        assert START == once.revoked_at

    def test_unknown_token_id_is_not_found(self, scheduler: Scheduler):
        """Revoking a token that does not exist is NotFound."""
        with pytest.raises(NotFound):
            scheduler.tokens.revoke("nope")


class TestTokenCache:
    """A process trusts a token record it read for a short time (issue 23: the served API)."""

    @staticmethod
    def _lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
        """Record every token read the MemoryStore answers."""
        seen: list[str] = []
        original = MemoryReader.token_by_hash

        def token_by_hash(self, token_hash):
            seen.append(token_hash)
            return original(self, token_hash)

        monkeypatch.setattr(MemoryReader, "token_by_hash", token_by_hash)
        return seen

    def test_a_token_is_read_once_within_the_cache_time(
        self, scheduler: Scheduler, company_id: str, clock: ManualClock, monkeypatch
    ):
        """Three checks within 5 seconds read the store once; after 5 seconds it is read again."""
        issued = scheduler.tokens.create(Principal(company_id=company_id), label="a")
        seen = self._lookups(monkeypatch)

        for _ in range(3):
            scheduler.tokens.authenticate(issued.token)
        within = len(seen)
        clock.advance(timedelta(seconds=5))
        scheduler.tokens.authenticate(issued.token)

        assert (1, 2) == (within, len(seen))

    def test_revocation_here_is_at_once_elsewhere_within_the_cache_time(
        self, scheduler: Scheduler, company_id: str, clock: ManualClock
    ):
        """Revoked through this scheduler: refused at once; through another: within 5 seconds."""
        principal = Principal(company_id=company_id)
        here = scheduler.tokens.create(principal, label="here")
        elsewhere = scheduler.tokens.create(principal, label="elsewhere")
        other = Scheduler(scheduler.store, clock=clock)
        for issued in (here, elsewhere):
            scheduler.tokens.authenticate(issued.token)

        scheduler.tokens.revoke(here.record.id)
        other.tokens.revoke(elsewhere.record.id)
        with pytest.raises(NotAuthenticated):
            scheduler.tokens.authenticate(here.token)
        still_trusted = scheduler.tokens.authenticate(elsewhere.token)
        clock.advance(timedelta(seconds=5))

        assert company_id == still_trusted.company_id
        with pytest.raises(NotAuthenticated):
            scheduler.tokens.authenticate(elsewhere.token)

    def test_expiry_is_checked_on_every_call_and_unknown_tokens_are_not_remembered(
        self, clock: ManualClock
    ):
        """A remembered token still expires on time; a token unknown at first works once issued."""
        scheduler = Scheduler(
            MemoryStore(), clock=clock, ids=SequentialIds(), token_source=SequentialTokens()
        )
        company = scheduler.create_company(name="Acme", timezone="UTC")
        next_token = SequentialTokens()()  # what the scheduler's source will issue first
        with pytest.raises(NotAuthenticated):
            scheduler.tokens.authenticate(next_token)
        issued = scheduler.tokens.create(
            Principal(company_id=company.id),
            label="a",
            expires_at=clock.now() + timedelta(seconds=3),
        )
        scheduler.tokens.authenticate(issued.token)
        clock.advance(timedelta(seconds=3))

        assert next_token == issued.token
        with pytest.raises(NotAuthenticated):
            scheduler.tokens.authenticate(issued.token)

    def test_zero_turns_it_off_and_bounds_are_checked(
        self, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
    ):
        """token_cache=0 reads the store on every check; below 0 or above an hour is refused."""
        scheduler = Scheduler(MemoryStore(), clock=clock, token_cache=timedelta(0))
        company = scheduler.create_company(name="Acme", timezone="UTC")
        issued = scheduler.tokens.create(Principal(company_id=company.id), label="a")
        seen = self._lookups(monkeypatch)
        for _ in range(3):
            scheduler.tokens.authenticate(issued.token)

        assert 3 == len(seen)
        for bad in (timedelta(seconds=-1), timedelta(hours=2), 5):
            with pytest.raises(OutOfRange) as info:
                Scheduler(token_cache=bad)  # type: ignore[arg-type]
            assert "token_cache" == info.value.field
