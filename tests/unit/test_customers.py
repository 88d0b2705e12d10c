"""Customer operations: create, get, update, list, look-up by e-mail and name splitting."""

from __future__ import annotations

from datetime import timedelta

import pytest

from slotwise import (
    Address,
    Company,
    CustomerKind,
    DuplicateRecord,
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    InconsistentFields,
    InvalidFormat,
    InvalidTimeZone,
    NotFound,
    OutOfRange,
    Scheduler,
    Unauthorized,
    Workspace,
)
from slotwise.operations.customers import split_name
from slotwise.testing import ManualClock


class TestCreate:
    def test_person_gets_id_company_and_clock_time(
        self, ws: Workspace, company: Company, clock: ManualClock
    ):
        """A new person customer carries the company id and the clock's now as created_at."""
        customer = ws.customers.create(first_name="Ann", last_name="Lee", email="ann@example.com")

        assert (customer.company_id, customer.kind, customer.created_at) == (
            company.id,
            CustomerKind.PERSON,
            clock.now(),
        )
        assert customer.display_name == "Ann Lee"

    def test_created_at_follows_the_clock(self, ws: Workspace, clock: ManualClock):
        """created_at is read from the injected clock, never the system clock."""
        later = clock.advance(timedelta(hours=3))

        customer = ws.customers.create(first_name="Ann")

        assert later == customer.created_at

    def test_business_customer_needs_business_name(self, ws: Workspace):
        """A business customer is created with a business name and refused without one."""
        business = ws.customers.create(kind=CustomerKind.BUSINESS, business_name="Lee & Co")

        assert business.display_name == "Lee & Co"
        with pytest.raises(InconsistentFields) as info:
            ws.customers.create(kind="business", first_name="Ann")
        assert info.value.field == "business_name"

    def test_person_needs_a_name(self, ws: Workspace):
        """A person with neither first nor last name is refused; nothing is stored."""
        with pytest.raises(InconsistentFields):
            ws.customers.create(email="nobody@example.com")

        assert ws.customers.list().total == 0

    def test_last_name_alone_is_enough(self, ws: Workspace):
        """A person with only a last name is accepted."""
        customer = ws.customers.create(last_name="Lee")

        assert customer.display_name == "Lee"

    def test_phone_length_boundaries(self, ws: Workspace):
        """Phones of 7 and 15 characters are accepted; 6 and 16 are refused (spec: Limits)."""
        assert ws.customers.create(first_name="A", phone="1234567").phone == "1234567"
        assert ws.customers.create(first_name="B", phone="+31 20 123 4567").phone == (
            "+31 20 123 4567"
        )
        with pytest.raises(FieldTooShort) as short:
            ws.customers.create(first_name="C", phone="123456")
        with pytest.raises(FieldTooLong) as long:
            ws.customers.create(first_name="D", phone="1234567890123456")

        assert (short.value.field, short.value.limit, short.value.requested) == ("phone", 7, 6)
        assert (long.value.field, long.value.limit, long.value.requested) == ("phone", 15, 16)
        assert ws.customers.list().total == 2

    @pytest.mark.parametrize("email", ["ann", "ann@example", "ann lee@example.com", "@example.com"])
    def test_invalid_email_is_refused(self, ws: Workspace, email: str):
        """An e-mail without one '@', a dotted domain, or with spaces is refused; nothing is stored."""
        with pytest.raises(InvalidFormat) as info:
            ws.customers.create(first_name="Ann", email=email)

        assert info.value.field == "email"
        assert ws.customers.list().total == 0

    def test_email_length_boundary(self, ws: Workspace):
        """A 254-character e-mail address is accepted; 255 characters are refused."""
        domain = "@example.com"
        ok = "a" * (254 - len(domain)) + domain

        assert ws.customers.create(first_name="Ann", email=ok).email == ok
        with pytest.raises(InvalidFormat):
            ws.customers.create(first_name="Bob", email="b" + ok)

    def test_duplicate_email_is_refused_ignoring_case(self, ws: Workspace):
        """A second customer with the same e-mail in any case is refused; the store is unchanged."""
        first = ws.customers.create(first_name="Ann", email="ann@example.com")

        with pytest.raises(DuplicateRecord) as info:
            ws.customers.create(first_name="Annie", email="ANN@Example.com")

        assert (info.value.field, info.value.value) == ("email", "ANN@Example.com")
        assert [first] == list(ws.customers.list().data)

    def test_same_email_in_another_company_is_allowed(self, ws: Workspace, other_ws: Workspace):
        """E-mail uniqueness is per company: another company may have a customer with it."""
        ws.customers.create(first_name="Ann", email="ann@example.com")

        theirs = other_ws.customers.create(first_name="Ann", email="ann@example.com")

        assert theirs.email == "ann@example.com"

    def test_customers_without_email_are_not_constrained(self, ws: Workspace):
        """Several customers without an e-mail address may coexist."""
        ws.customers.create(first_name="Ann")
        ws.customers.create(first_name="Ann")

        assert ws.customers.list().total == 2

    def test_timezone_must_be_an_iana_name(self, ws: Workspace):
        """A customer zone is an IANA name; anything else is refused and nothing is stored."""
        assert ws.customers.create(first_name="A", timezone="Europe/Amsterdam").timezone == (
            "Europe/Amsterdam"
        )
        with pytest.raises(InvalidTimeZone):
            ws.customers.create(first_name="B", timezone="Mars/Olympus")

        assert ws.customers.list().total == 1

    def test_address_is_kept(self, ws: Workspace):
        """A customer's postal address is stored as given."""
        address = Address(city="Utrecht", country="NL")

        assert address == ws.customers.create(first_name="Ann", address=address).address


class TestGet:
    def test_get_returns_the_stored_customer(self, ws: Workspace):
        """get returns the customer as created."""
        customer = ws.customers.create(first_name="Ann")

        assert customer == ws.customers.get(customer.id)

    def test_missing_customer_is_not_found(self, ws: Workspace):
        """An unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.customers.get("nope")

    def test_other_company_is_unauthorized(self, ws: Workspace, other_ws: Workspace):
        """A customer of another company raises Unauthorized naming only the id sent."""
        theirs = other_ws.customers.create(first_name="Zed")

        with pytest.raises(Unauthorized) as info:
            ws.customers.get(theirs.id)

        assert (info.value.field, info.value.value) == ("customer_id", theirs.id)

    def test_location_limited_principal_sees_company_customers(
        self, scheduler: Scheduler, ws: Workspace, company: Company
    ):
        """Customers belong to the company, so a principal limited to some locations may use them."""
        customer = ws.customers.create(first_name="Ann")
        limited = scheduler.for_company(company.id, location_ids=frozenset({"somewhere"}))

        assert customer == limited.customers.get(customer.id)


class TestUpdate:
    def test_changes_given_fields_and_keeps_the_rest(self, ws: Workspace):
        """An update changes the named fields and keeps the others, created_at included."""
        customer = ws.customers.create(first_name="Ann", email="ann@example.com")

        updated = ws.customers.update(customer.id, last_name="Lee", phone="5551234")

        assert (updated.first_name, updated.last_name, updated.phone) == ("Ann", "Lee", "5551234")
        assert (updated.email, updated.created_at) == (customer.email, customer.created_at)
        assert updated == ws.customers.get(customer.id)

    def test_email_taken_by_another_customer_is_refused(self, ws: Workspace):
        """Changing to another customer's e-mail raises DuplicateRecord and changes nothing."""
        ws.customers.create(first_name="Ann", email="ann@example.com")
        bob = ws.customers.create(first_name="Bob", email="bob@example.com")

        with pytest.raises(DuplicateRecord):
            ws.customers.update(bob.id, email="Ann@example.com")

        assert bob == ws.customers.get(bob.id)

    def test_own_email_in_other_case_is_allowed(self, ws: Workspace):
        """A customer may re-case its own e-mail address."""
        ann = ws.customers.create(first_name="Ann", email="ann@example.com")

        assert ws.customers.update(ann.id, email="Ann@Example.com").email == "Ann@Example.com"

    def test_invalid_phone_leaves_the_record_unchanged(self, ws: Workspace):
        """A refused update (16-character phone) writes nothing; 15 characters are accepted."""
        ann = ws.customers.create(first_name="Ann")

        with pytest.raises(FieldTooLong):
            ws.customers.update(ann.id, phone="1" * 16)
        assert ann == ws.customers.get(ann.id)
        assert ws.customers.update(ann.id, phone="1" * 15).phone == "1" * 15

    def test_switching_to_business_needs_business_name(self, ws: Workspace):
        """Turning a person into a business without a business name is refused and changes nothing."""
        ann = ws.customers.create(first_name="Ann")

        with pytest.raises(InconsistentFields):
            ws.customers.update(ann.id, kind=CustomerKind.BUSINESS)

        assert ann == ws.customers.get(ann.id)

    def test_invalid_timezone_is_refused(self, ws: Workspace):
        """An update to a zone that is not an IANA name is refused and changes nothing."""
        ann = ws.customers.create(first_name="Ann")

        with pytest.raises(InvalidTimeZone):
            ws.customers.update(ann.id, timezone="Nowhere")

        assert ann == ws.customers.get(ann.id)

    def test_other_company_is_unauthorized(self, ws: Workspace, other_ws: Workspace):
        """Updating another company's customer raises Unauthorized and changes nothing."""
        theirs = other_ws.customers.create(first_name="Zed")

        with pytest.raises(Unauthorized):
            ws.customers.update(theirs.id, first_name="Mine")

        assert theirs == other_ws.customers.get(theirs.id)

    def test_missing_customer_is_not_found(self, ws: Workspace):
        """Updating an unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.customers.update("nope", first_name="Ann")


class TestList:
    def test_creation_order_and_paging(self, ws: Workspace):
        """Customers list in creation order with the pagination envelope."""
        for name in ("Ann", "Bob", "Cat"):
            ws.customers.create(first_name=name)

        page = ws.customers.list(offset=1, limit=1)

        assert [c.first_name for c in page.data] == ["Bob"]
        assert (page.total, page.count, page.has_more, page.url) == (
            3,
            1,
            True,
            "/consumer/v1/customers",
        )

    def test_email_filter_is_exact_and_ignores_case(self, ws: Workspace):
        """The e-mail filter matches the whole address ignoring case, never a part of it."""
        ann = ws.customers.create(first_name="Ann", email="ann@example.com")
        ws.customers.create(first_name="Joann", email="joann@example.com")

        assert [ann] == list(ws.customers.list(email="ANN@example.com").data)
        assert ws.customers.list(email="example.com").total == 0

    def test_name_filter_matches_parts_of_any_name(self, ws: Workspace):
        """The name filter matches part of a first, last, full or business name, ignoring case."""
        ws.customers.create(first_name="Ann", last_name="de Vries")
        ws.customers.create(first_name="Bob", last_name="Lee")
        ws.customers.create(kind="business", business_name="Vries Bakery")

        def names(needle: str) -> list[str]:
            return [c.display_name for c in ws.customers.list(name=needle).data]

        assert names("VRIES") == ["Ann de Vries", "Vries Bakery"]
        assert names("ann de") == ["Ann de Vries"]
        assert names("ob") == ["Bob Lee"]

    def test_other_company_customers_are_not_listed(self, ws: Workspace, other_ws: Workspace):
        """A list shows only the principal's company's customers."""
        other_ws.customers.create(first_name="Zed")

        assert ws.customers.list().total == 0

    def test_limit_boundary(self, ws: Workspace):
        """A limit of 100 is accepted; 101 is refused (decision 31)."""
        assert ws.customers.list(limit=100).limit == 100
        with pytest.raises(OutOfRange):
            ws.customers.list(limit=101)


class TestFindByEmail:
    def test_finds_ignoring_case(self, ws: Workspace):
        """find_by_email returns the customer whose address matches ignoring case."""
        ann = ws.customers.create(first_name="Ann", email="ann@example.com")

        assert ann == ws.customers.find_by_email(" Ann@EXAMPLE.com ")

    def test_none_when_absent(self, ws: Workspace):
        """find_by_email returns None when no customer has the address."""
        ws.customers.create(first_name="Ann", email="ann@example.com")

        assert ws.customers.find_by_email("bob@example.com") is None

    def test_other_company_customer_is_not_found(self, ws: Workspace, other_ws: Workspace):
        """find_by_email never returns another company's customer."""
        other_ws.customers.create(first_name="Zed", email="zed@example.com")

        assert ws.customers.find_by_email("zed@example.com") is None


class TestSplitName:
    @pytest.mark.parametrize(
        ("full", "expected"),
        [
            ("Ann", ("Ann", None)),
            ("Ann Lee", ("Ann", "Lee")),
            ("Ann Marie de Vries", ("Ann", "Marie de Vries")),
            ("  Ann   Marie\tLee ", ("Ann", "Marie Lee")),
        ],
    )
    def test_every_word_after_the_first_is_the_last_name(
        self, full: str, expected: tuple[str, str | None]
    ):
        """Names of more than two words keep every word after the first in the last name (spec)."""
        assert expected == split_name(full)

    def test_blank_name_is_required(self):
        """A blank name raises FieldRequired naming 'name'."""
        with pytest.raises(FieldRequired) as info:
            split_name("   ")

        assert info.value.field == "name"

    def test_split_name_feeds_create(self, ws: Workspace):
        """A split full name creates a person customer with those parts."""
        first, last = split_name("Ann Marie de Vries")

        customer = ws.customers.create(first_name=first, last_name=last)

        assert (customer.first_name, customer.last_name) == ("Ann", "Marie de Vries")
