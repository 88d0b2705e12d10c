"""Countries and states from ISO 3166 (pycountry, optional extra ``geo``)."""

from __future__ import annotations

import sys

import pycountry
import pytest

from slotwise import InvalidFormat, MissingDependency, NotFound, Workspace
from slotwise.operations.geography import Country, State


class TestCountries:
    def test_every_iso_country_with_two_letter_codes(self, ws: Workspace):
        """countries() lists every ISO 3166-1 country once, by two-letter code, sorted by code."""
        countries = ws.geography.countries()
        codes = [country.code for country in countries]

        assert len(pycountry.countries) == len(countries)
        assert sorted(codes) == codes
        assert len(set(codes)) == len(codes)
        assert all(len(code) == 2 and code.isupper() for code in codes)

    def test_names(self, ws: Workspace):
        """Names are ISO short names, or the common name where ISO's is formal."""
        by_code = {country.code: country for country in ws.geography.countries()}

        assert Country(code="NL", name="Netherlands") == by_code["NL"]
        assert Country(code="BO", name="Bolivia") == by_code["BO"]


class TestStates:
    def test_us_states(self, ws: Workspace):
        """states('US') lists the subdivisions with their own code and the country code."""
        states = ws.geography.states("US")
        california = next(state for state in states if state.code == "CA")

        assert State(code="CA", name="California", country="US") == california
        assert california.iso_code == "US-CA"
        codes = [state.code for state in states]
        assert sorted(codes) == codes
        assert {"CA", "NY", "DC", "PR"} <= set(codes)

    def test_country_code_ignores_case(self, ws: Workspace):
        """A lower-case country code gives the same list."""
        assert ws.geography.states("US") == ws.geography.states("us")

    def test_only_first_level_subdivisions(self, ws: Workspace):
        """Only top-level subdivisions are listed (the UK's nations, not its counties)."""
        names = {state.name for state in ws.geography.states("GB")}

        assert {"England", "Scotland", "Northern Ireland"} <= names
        assert len(names) == 4

    def test_country_without_subdivisions_is_empty(self, ws: Workspace):
        """A country with no ISO 3166-2 subdivisions gives an empty list."""
        assert ws.geography.states("AQ") == []

    def test_unknown_country_is_not_found(self, ws: Workspace):
        """A well-formed code no country has raises NotFound."""
        with pytest.raises(NotFound) as info:
            ws.geography.states("xx")

        assert (info.value.kind, info.value.record_id) == ("Country", "XX")

    @pytest.mark.parametrize("country", ["U", "USA", "U1", "", "ÜS"])
    def test_malformed_code_is_refused(self, ws: Workspace, country: str):
        """Only two ASCII letters are a country code; one or three letters are refused."""
        with pytest.raises(InvalidFormat) as info:
            ws.geography.states(country)

        assert info.value.field == "country"


class TestMissingDependency:
    def test_countries_without_pycountry(self, ws: Workspace, monkeypatch: pytest.MonkeyPatch):
        """Without pycountry, countries() raises MissingDependency naming the geo extra."""
        monkeypatch.setitem(sys.modules, "pycountry", None)

        with pytest.raises(MissingDependency) as info:
            ws.geography.countries()

        assert (info.value.feature, info.value.extra) == ("countries and states", "geo")
        assert isinstance(info.value, ImportError)

    def test_states_without_pycountry(self, ws: Workspace, monkeypatch: pytest.MonkeyPatch):
        """Without pycountry, states() raises MissingDependency naming the geo extra."""
        monkeypatch.setitem(sys.modules, "pycountry", None)

        with pytest.raises(MissingDependency) as info:
            ws.geography.states("US")

        assert info.value.extra == "geo"
