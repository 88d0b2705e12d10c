"""
Countries and their states, for address forms (spec: GET /consumer/v1/customers/countries and
/consumer/v1/customers/states).

The data comes from the maintained ``pycountry`` package (ISO 3166-1 and ISO 3166-2), an
optional extra: ``pip install 'slotwise[geo]'``. It is imported only when a list is asked for,
so ``import slotwise`` works without it.
"""

from __future__ import annotations

from types import ModuleType

import attrs

from slotwise.errors import InvalidFormat, MissingDependency, NotFound
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context

__all__ = ["Country", "GeographyOperations", "State"]


@attrs.frozen(kw_only=True)
class Country:
    """
    A country: its two-letter ISO 3166-1 code and its name.

    .. versionadded:: 0.1
    """

    code: str
    name: str


@attrs.frozen(kw_only=True)
class State:
    """
    A first-level subdivision of a country (state, province, region) from ISO 3166-2.

    ``code`` is the subdivision's own part (``"CA"``); ``country`` is the two-letter country
    code (``"US"``); :attr:`iso_code` joins them (``"US-CA"``).

    .. versionadded:: 0.1
    """

    code: str
    name: str
    country: str

    @property
    def iso_code(self) -> str:
        """Return the full ISO 3166-2 code, such as ``"US-CA"``."""
        return f"{self.country}-{self.code}"


def _pycountry() -> ModuleType:
    try:
        # Imported on use: pycountry is an optional extra (STYLE rule 3).
        import pycountry
    except ImportError:
        raise MissingDependency(feature="countries and states", extra="geo") from None
    return pycountry


@operations
@attrs.frozen
class GeographyOperations:
    """
    Reference lists of countries and states.

    These read no records of any company, so they need no tenant check.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def countries(self) -> list[Country]:
        """
        Return every ISO 3166-1 country, ordered by code.

        Spec: GET /consumer/v1/customers/countries. The name is the common name where ISO's
        short name is formal (``"BO"``: "Bolivia", not "Bolivia, Plurinational State of").

        Raises:
            MissingDependency: when the ``geo`` extra (pycountry) is not installed.
        """
        pycountry = _pycountry()
        countries = [
            Country(code=country.alpha_2, name=getattr(country, "common_name", country.name))
            for country in pycountry.countries
        ]
        return sorted(countries, key=lambda country: country.code)

    def states(self, country: str) -> list[State]:
        """
        Return the first-level subdivisions of *country*, ordered by code.

        Spec: GET /consumer/v1/customers/states. Only top-level subdivisions are listed
        (England, not its counties; French regions, not departments). A country without
        subdivisions gives an empty list.

        Args:
            country: a two-letter ISO 3166-1 code, in any case.

        Raises:
            InvalidFormat: when *country* is not two letters.
            NotFound: when no country has that code.
            MissingDependency: when the ``geo`` extra (pycountry) is not installed.
        """
        if (
            not isinstance(country, str)
            or len(country) != 2
            or not (country.isascii() and country.isalpha())
        ):
            raise InvalidFormat(
                field="country", expected="a two-letter ISO 3166-1 code", value=country
            )
        pycountry = _pycountry()
        code = country.upper()
        if pycountry.countries.get(alpha_2=code) is None:
            raise NotFound(kind="Country", record_id=code)
        subdivisions = pycountry.subdivisions.get(country_code=code) or []
        states = [
            State(code=subdivision.code.split("-", 1)[1], name=subdivision.name, country=code)
            for subdivision in subdivisions
            if subdivision.parent_code is None
        ]
        return sorted(states, key=lambda state: state.code)
