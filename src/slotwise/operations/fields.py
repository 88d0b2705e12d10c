"""
Definitions of appointment custom fields and booking fields, per location.

Spec: Appointment custom field and booking field definitions; GET
/consumer/v1/appointments/customfields and /bookingfields. The setup operations that define
them are not shown in the spec; these are slotwise's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Required, TypedDict, Unpack

import attrs

from slotwise.errors import DuplicateRecord
from slotwise.model import FieldDefinition, FieldKind, FieldType
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.storage.protocol import Reader

from ._partial import resolved

__all__ = [
    "BookingFieldList",
    "CustomFieldList",
    "FieldDefinitionChanges",
    "FieldDefinitionFields",
    "FieldOperations",
]


class _FieldCommon(TypedDict, total=False):
    type: FieldType | str
    required: bool
    choices: Sequence[str]
    sort_order: int


class FieldDefinitionFields(_FieldCommon, total=False):
    """
    Fields of a new definition: ``name`` and ``label`` are required.

    ``location_id`` defaults to the primary location; ``kind`` to ``FieldKind.CUSTOM``, whose
    names are ``field1`` .. ``field10``.
    """

    location_id: str | None
    kind: FieldKind | str
    name: Required[str]
    label: Required[str]


class FieldDefinitionChanges(_FieldCommon, total=False):
    """Fields a definition update may change; its location and kind are fixed."""

    name: str
    label: str


@attrs.frozen(kw_only=True)
class CustomFieldList:
    """
    A location's custom field definitions: the spec's ``{object, total, customFields}``.

    .. versionadded:: 0.1
    """

    custom_fields: tuple[FieldDefinition, ...]
    total: int = attrs.field(
        default=attrs.Factory(lambda self: len(self.custom_fields), takes_self=True)
    )
    object: str = "customFields"


@attrs.frozen(kw_only=True)
class BookingFieldList:
    """
    A location's booking field definitions: the spec's ``{object, total, bookingFields}``.

    .. versionadded:: 0.1
    """

    booking_fields: tuple[FieldDefinition, ...]
    total: int = attrs.field(
        default=attrs.Factory(lambda self: len(self.booking_fields), takes_self=True)
    )
    object: str = "bookingFields"


@operations
@attrs.frozen
class FieldOperations:
    """
    Custom and booking field definitions at the principal's locations.

    A field name is unique within its location across both kinds, because the booking field
    list shows both kinds together and values are sent by name (spec: "Each definition has a
    field name and a type that determine how values are sent in the book operation").

    .. versionadded:: 0.1
    """

    _ctx: Context

    def define(self, **fields: Unpack[FieldDefinitionFields]) -> FieldDefinition:
        """
        Define a custom or booking field at a location.

        Raises:
            InvalidFormat: when a custom field's name is not ``field1`` .. ``field10``.
            InconsistentFields: when a select field has no choices, or another type has some.
            DuplicateRecord: when the location already has a field of that name.
            NotFound: when the location does not exist.
            Unauthorized: when the location is not the principal's.
        """
        ctx = self._ctx
        values: dict[str, Any] = dict(fields)
        location_id = values.pop("location_id", None)
        values.setdefault("kind", FieldKind.CUSTOM)
        with ctx.store.transaction() as tx:
            location = ctx.location(tx, location_id)
            definition = FieldDefinition(
                id=ctx.ids.new_id(),
                company_id=ctx.company_id,
                location_id=location.id,
                **values,
            )
            _check_name_free(tx, definition)
            tx.insert(definition)
        return definition

    def get(self, field_id: str, /) -> FieldDefinition:
        """
        Return a field definition.

        Raises:
            NotFound: when there is no such definition.
            Unauthorized: when it is not the principal's.

        .. versionadded:: 0.1
        """
        return self._ctx.configured_read(
            lambda reader: self._ctx.owned(reader, FieldDefinition, field_id, field="field_id")
        )

    def update(
        self, field_id: str, /, **changes: Unpack[FieldDefinitionChanges]
    ) -> FieldDefinition:
        """
        Change a field definition; nothing changes when a rule is broken.

        Raises:
            NotFound: when there is no such definition.
            Unauthorized: when it is not the principal's.
            DuplicateRecord: when the new name is taken at its location.
            ValidationError: as :meth:`define`.
        """
        ctx = self._ctx
        values: dict[str, Any] = dict(changes)
        with ctx.store.transaction() as tx:
            definition = ctx.owned(tx, FieldDefinition, field_id, field="field_id")
            updated = attrs.evolve(definition, **resolved(definition, values))
            _check_name_free(tx, updated)
            tx.update(updated)
        return updated

    def delete(self, field_id: str, /) -> FieldDefinition:
        """
        Delete a field definition for good and return it as it was.

        Values already saved on appointments are kept.

        Raises:
            NotFound: when there is no such definition.
            Unauthorized: when it is not the principal's.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            definition = ctx.owned(tx, FieldDefinition, field_id, field="field_id")
            tx.delete(FieldDefinition, definition.id)
        return definition

    def custom_fields(self, location_id: str | None = None) -> CustomFieldList:
        """
        Return a location's custom field definitions, by ``sort_order`` then creation order.

        Spec: GET /consumer/v1/appointments/customfields. *location_id* defaults to the
        primary location.

        Raises:
            NotFound: when the location does not exist (or the company has none).
            Unauthorized: when the location is not the principal's.
        """
        definitions = self._at(location_id)
        return CustomFieldList(
            custom_fields=tuple(d for d in definitions if d.kind is FieldKind.CUSTOM)
        )

    def booking_fields(self, location_id: str | None = None) -> BookingFieldList:
        """
        Return a location's booking fields: its booking and custom field definitions.

        Spec: GET /consumer/v1/appointments/bookingfields ("Booking fields include custom
        appointment fields"). Order: ``sort_order``, then creation order. *location_id*
        defaults to the primary location.

        Raises:
            NotFound: when the location does not exist (or the company has none).
            Unauthorized: when the location is not the principal's.
        """
        return BookingFieldList(booking_fields=tuple(self._at(location_id)))

    def _at(self, location_id: str | None) -> list[FieldDefinition]:
        ctx = self._ctx
        definitions = ctx.configured_read(
            lambda reader: _definitions_at(
                reader, ctx.company_id, ctx.location(reader, location_id).id
            )
        )
        # sorted() is stable, so equal sort orders keep creation order.
        return sorted(definitions, key=lambda definition: definition.sort_order)


def _definitions_at(reader: Reader, company_id: str, location_id: str) -> list[FieldDefinition]:
    return reader.find(FieldDefinition, company_id=company_id, location_id=location_id)


def _check_name_free(reader: Reader, definition: FieldDefinition) -> None:
    others: Iterable[FieldDefinition] = _definitions_at(
        reader, definition.company_id, definition.location_id
    )
    if any(other.name == definition.name and other.id != definition.id for other in others):
        raise DuplicateRecord(kind="field definition", field="name", value=definition.name)
