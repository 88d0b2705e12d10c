"""Pagination: offset and limit rules, and the envelope's figures."""

from __future__ import annotations

from types import SimpleNamespace

import attrs
import pytest

from slotwise import (
    AppointmentStatus,
    InvalidFormat,
    ListQuery,
    Location,
    OutOfRange,
    Workspace,
)
from slotwise.paging import check_window, paginate
from slotwise.storage.listing import Listed, as_page


class TestPaginate:
    def test_defaults_give_the_first_twenty(self):
        """Without offset and limit a page holds the first 20 records."""
        page = paginate(list(range(45)), url="/x")

        assert (page.data, page.count, page.total, page.has_more, page.object) == (
            tuple(range(20)),
            20,
            45,
            True,
            "list",
        )

    def test_last_page_has_no_more(self):
        """The page that reaches the end says has_more is false."""
        page = paginate(list(range(45)), url="/x", offset=40, limit=20)

        assert (page.data, page.has_more) == ((40, 41, 42, 43, 44), False)

    def test_limit_boundaries(self):
        """limit 1 and 100 are accepted; 0 and 101 are refused naming the field and range."""
        assert paginate([1, 2], url="/x", limit=1).count == 1
        assert paginate(list(range(200)), url="/x", limit=100).count == 100
        for bad in (0, 101):
            with pytest.raises(OutOfRange) as info:
                paginate([], url="/x", limit=bad)

            assert (info.value.field, info.value.allowed) == ("limit", "between 1 and 100")

    def test_offset_boundaries(self):
        """offset 0 is accepted and -1 refused; an offset past the end gives an empty page."""
        assert paginate([1], url="/x", offset=5).data == ()
        with pytest.raises(OutOfRange) as info:
            paginate([1], url="/x", offset=-1)

        assert info.value.field == "offset"

    def test_custom_maximum(self):
        """A list with a larger maximum (consumer services: 500) accepts up to it."""
        assert paginate(list(range(600)), url="/x", limit=500, max_limit=500).count == 500
        with pytest.raises(OutOfRange):
            paginate([], url="/x", limit=501, max_limit=500)


class TestStoredPages:
    # Lists whose page the store reads (Reader.page) check the window before reading.
    def test_as_page_keeps_the_store_total(self):
        """as_page() wraps one page and the store's total; has_more follows from them."""
        page = as_page(Listed([4, 5], 9), ListQuery(company_id="co", offset=3, limit=2), url="/x")

        assert ((4, 5), 9, 2, True) == (page.data, page.total, page.count, page.has_more)

    @pytest.mark.parametrize(
        ("offset", "limit", "field"), [(-1, 20, "offset"), (0, 0, "limit"), (0, 101, "limit")]
    )
    def test_check_window_names_the_field(self, offset: int, limit: int, field: str):
        """check_window() raises OutOfRange naming offset or limit."""
        with pytest.raises(OutOfRange) as caught:
            check_window(offset, limit)

        assert field == caught.value.field

    def test_a_bad_window_is_refused_before_an_unknown_filter(self, ws: Workspace):
        """appointments.list(limit=0, service_id=<unknown>) raises OutOfRange, not NotFound."""
        with pytest.raises(OutOfRange) as caught:
            ws.appointments.list(service_id="no-such-service", limit=0)

        assert "limit" == caught.value.field

    def test_email_filters_ignore_surrounding_space_and_case(
        self, ws: Workspace, location: Location
    ):
        """customers.list(email=" ANN@x.org ") finds ann@x.org; the page holds it and counts 1."""
        ws.customers.create(first_name="Ann", email="ann@example.org")
        ws.customers.create(first_name="Bob", email="bob@example.org")

        page = ws.customers.list(email="  ANN@Example.org ")

        assert (["Ann"], 1) == ([c.first_name for c in page.data], page.total)


class TestListQuery:
    # The list read's query value (slotwise.ListQuery) refuses what it cannot mean.
    @pytest.mark.parametrize(
        ("changes", "error", "field"),
        [
            ({"company_id": None}, InvalidFormat, "company_id"),
            ({"company_id": ""}, InvalidFormat, "company_id"),
            ({"location_id": 7}, InvalidFormat, "location_id"),
            ({"offset": -1}, OutOfRange, "offset"),
            ({"limit": 0}, OutOfRange, "limit"),
            ({"limit": True}, OutOfRange, "limit"),
        ],
    )
    def test_bad_values_raise_typed_errors(self, changes, error, field):
        """Each bad value raises its typed error naming the field."""
        fields = {"company_id": "co", **changes}

        with pytest.raises(error) as caught:
            ListQuery(**fields)

        assert field == caught.value.field

    def test_matches_is_the_reference_meaning(self):
        """equal (enums by value), contains, folded and one_of, all of them at once."""
        record = SimpleNamespace(
            company_id="co",
            location_id="loc",
            status=AppointmentStatus.BOOKED,
            resource_ids=("r1", "r2"),
            email="  Ann@Example.org",
        )
        query = ListQuery(
            company_id="co",
            location_id="loc",
            equal={"status": "BK"},
            contains={"resource_ids": "r2"},
            folded={"email": "ann@example.org"},
            one_of={"location_id": {"loc", "other"}},
        )

        assert query.matches(record)
        assert not attrs.evolve(query, one_of={"location_id": set()}).matches(record)
        assert not attrs.evolve(query, company_id="other").matches(record)
