"""
What appointment changes leave behind: outbox events, queued reminders and audit entries.

All three are plain records a store keeps next to the appointments, written in the same unit of
work as the change they describe (decision 27), so an event is never lost and never sent for a
change that did not commit.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import attrs

from slotwise.errors import InvalidFormat

from ._checks import as_utc, check_aware, check_choice, check_int, check_text, to_enum
from ._enum import SpecEnum
from ._frozen import PLAIN_TYPES as _PLAIN
from ._frozen import FrozenJSON, freeze_json
from ._trusted import trusted_constructor
from .appointments import AppointmentStatus

__all__ = [
    "AuditEntry",
    "FrozenJSON",
    "Operation",
    "OutboxEvent",
    "QueuedReminder",
    "ReminderChannel",
    "Trigger",
    "freeze_json",
    "from_json_data",
    "to_json_data",
]

_R = TypeVar("_R")


class Trigger(SpecEnum):
    """
    The kind of an outbox event, valued by its webhook trigger name (decision 27).

    .. versionadded:: 0.1
    """

    BOOKING_CONFIRMATION = "BookingConfirmation"
    """An appointment became booked: created with BK, a hold booked, a reservation confirmed."""
    RESCHEDULE_CONFIRMATION = "RescheduleConfirmation"
    CANCEL_RESERVATION_CONFIRMATION = "CancelReservationConfirmation"
    CUSTOMER_CREATED = "CustomerCreated"
    CUSTOMER_UPDATED = "CustomerUpdated"
    RESOURCE_CREATED = "ResourceCreated"
    RESOURCE_UPDATED = "ResourceUpdated"
    EMAIL_REMINDER = "EmailReminder"
    SMS_REMINDER = "SmsReminder"


class Operation(SpecEnum):
    """
    What was done to an appointment: the columns of the transition table.

    ``slotwise.booking.transitions`` maps ``(status, operation)`` to the next status; audit
    entries record the operation by this value.

    .. versionadded:: 0.1
    """

    CREATE_HOLD = "create_hold"
    """Create without ``complete_booking`` (or with ``IN``): a hold (decision 19)."""
    CREATE_BOOKED = "create_booked"
    """Create with ``complete_booking="BK"``."""
    CREATE_RESERVED = "create_reserved"
    """Create with ``complete_booking="RS"``."""
    BOOK = "book"
    RESERVE = "reserve"
    CONFIRM = "confirm"
    UNDO_CONFIRM = "undo_confirm"
    CANCEL = "cancel"
    RESCHEDULE = "reschedule"
    """Moves a booked appointment: the old record becomes RE, a new BK record is created."""
    NO_SHOW = "no_show"
    DELETE = "delete"
    EXPIRE = "expire"
    """The sweep deleting a hold whose timer ran out."""


ReminderChannel = Literal["email", "sms"]
"""How a reminder reaches the customer."""


# -- JSON-ready, read-only payloads ------------------------------------------------------------


def _trusted(items: dict[str, Any]) -> FrozenJSON:
    # Values are already frozen: skip FrozenJSON.__init__'s second walk.
    frozen = FrozenJSON.__new__(FrozenJSON)
    dict.update(frozen, items)
    return frozen


def _same(value: Any) -> Any:
    return value


def _iso(value: Any) -> Any:
    return value.isoformat()


def _enum_value(value: Any) -> Any:
    return to_json_data(value.value)


def _record(names: tuple[str, ...], rare: frozenset[str] = frozenset()) -> Any:
    """
    Return the converter of one attrs class: a function made for its fields, as attrs makes
    ``__init__``, reading each field once and keeping plain values and turning dates into text
    without a call (every booking builds an event of the appointment's ~40 fields).

    The *rare* fields (kept in the record's ``_rare`` slot, ``slotwise.model._rare``) are read
    from that slot at once: ``None`` in place, then the few that are set.
    """
    rest = "else _v.isoformat() if _v.__class__ in _dated else _convert(_v))"
    items = ", ".join(
        f"{name!r}: None"
        if name in rare
        else f"{name!r}: (_v if (_v := value.{name}).__class__ in _plain {rest}"
        for name in names
    )
    lines = [f"    data = _trusted({{{items}}})"]
    if rare:
        lines += [
            "    rare = value._rare",
            "    if rare is not None:",
            "        for index in range(0, len(rare), 2):",
            "            _v = rare[index + 1]",
            f"            _set(data, rare[index], (_v if _v.__class__ in _plain {rest})",
        ]
    source = "def convert(value):\n" + "\n".join(lines) + "\n    return data\n"
    namespace: dict[str, Any] = {
        "_trusted": _trusted,
        "_plain": frozenset(_PLAIN),
        "_dated": frozenset({datetime, date}),
        "_convert": to_json_data,
        "_set": dict.__setitem__,
    }
    exec(compile(source, f"<slotwise event converter {names[:1]}>", "exec"), namespace)
    return namespace["convert"]


def _mapping(value: Any) -> FrozenJSON:
    return _trusted({str(key): to_json_data(item) for key, item in value.items()})


def _sequence(value: Any) -> tuple[Any, ...]:
    return tuple([to_json_data(item) for item in value])


def _converter(kind: type[Any]) -> Any:
    """Return how values of *kind* become JSON data (worked out once per type)."""
    if kind is FrozenJSON or kind in _PLAIN:
        return _same
    if issubclass(kind, float):
        return freeze_json
    if issubclass(kind, datetime | date):
        return _iso
    if issubclass(kind, enum.Enum):
        return _enum_value
    if attrs.has(kind):
        names = tuple(field.name for field in attrs.fields(kind))
        # Only names the class really keeps in ``_rare`` (a property, not a slot of its own).
        kept: frozenset[str] = getattr(kind, "rare_names", frozenset())
        rare = frozenset(
            name for name in kept if isinstance(inspect.getattr_static(kind, name), property)
        )
        return _record(names, rare)
    if issubclass(kind, Mapping):
        return _mapping
    if issubclass(kind, str | bool | int):
        return freeze_json
    if issubclass(kind, Iterable):
        return _sequence
    return str


_CONVERTERS: dict[type[Any], Any] = {}


def to_json_data(value: object) -> Any:
    """
    Return *value* as read-only JSON-ready data (what :func:`freeze_json` accepts and keeps).

    attrs records become :class:`FrozenJSON` objects of all their fields, datetimes and dates
    ISO 8601 text, enums their values, mappings :class:`FrozenJSON`, other iterables tuples;
    anything else its ``str()``. ``json.dumps`` (or any JSON encoder) writes the result as it
    is: the way to turn a record, a :class:`~slotwise.Page` or an availability answer into
    JSON in an application of your own. Datetimes keep their zone: records keep UTC (an
    appointment's ``start``), availability answers the zone asked for (the location's by
    default); names are the Python field names.

    .. versionadded:: 0.1
    """
    kind = type(value)
    convert = _CONVERTERS.get(kind)
    if convert is None:
        convert = _CONVERTERS[kind] = _converter(kind)
    return convert(value)


def from_json_data(kind: type[_R], data: Mapping[str, Any]) -> _R:
    """
    Return the attrs record of *kind* that :func:`to_json_data` turned into *data*.

    The inverse, for reading a record back from an event's payload: ISO 8601 text becomes
    datetimes and dates again, nested records their classes; keys that are not fields are
    ignored, missing fields take their defaults, and the record's own converters and validators
    run as for any other caller.

    .. versionadded:: 0.1
    """
    hints = _hints(kind)
    values = {
        (field.alias or field.name): _load(hints[field.name], data[field.name])
        for field in attrs.fields(kind)  # type: ignore[arg-type]
        if field.init and field.name in data
    }
    return kind(**values)


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(kind: type[Any]) -> dict[str, Any]:
    hints = _HINTS.get(kind)
    if hints is None:
        hints = _HINTS[kind] = typing.get_type_hints(kind)
    return hints


def _load(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        for member in typing.get_args(hint):
            if (
                member is datetime
                or member is date
                or (isinstance(member, type) and attrs.has(member))
            ):
                return _load(member, value)
            if typing.get_origin(member) is tuple:
                return _load(member, value)
        return value
    if hint is datetime and isinstance(value, str):
        return datetime.fromisoformat(value)
    if hint is date and isinstance(value, str):
        return date.fromisoformat(value)
    if origin is tuple and isinstance(value, list | tuple):
        item = typing.get_args(hint)[0]
        return tuple(_load(item, one) for one in value)
    if isinstance(hint, type) and attrs.has(hint) and isinstance(value, Mapping):
        return from_json_data(hint, value)
    return value


class DeferredPayload:
    """
    An event's payload not built yet: ``build(*args)`` returns it (decision 49: "payloads
    serialised when first read").

    Given as an :class:`OutboxEvent`'s ``payload``, it is called the first time the event's
    ``payload`` is read, from the immutable records in *args*, and the event keeps what it
    returned; every reader (equality, ``repr``, pickling, ``attrs.evolve``, a store encoding
    the row, a C encoder such as msgspec reading the event's attributes) gets the whole payload.
    An event nobody reads (most of ``MemoryStore``'s, until their delivery) never builds it.
    """

    __slots__ = ("args", "build")

    def __init__(self, build: Callable[..., Mapping[str, Any]], *args: object) -> None:
        self.build = build
        self.args = args


def _payload(value: Mapping[str, Any] | DeferredPayload | None) -> FrozenJSON:
    if value.__class__ is DeferredPayload:
        return value  # type: ignore[return-value]  # built and frozen when first read
    frozen = freeze_json(value or {})
    if not isinstance(frozen, FrozenJSON):
        raise InvalidFormat(field="payload", expected="a mapping", value=value)
    return frozen


def _to_trigger(value: object) -> Trigger:
    return to_enum(Trigger, value, field="trigger")


def _to_operation(value: object) -> Operation:
    return to_enum(Operation, value, field="operation")


def _to_optional_status(value: object) -> AppointmentStatus | None:
    return None if value is None else to_enum(AppointmentStatus, value, field="status")


def _deferred_payload_slot() -> type:
    """
    Return the base class that keeps ``OutboxEvent.payload`` in its slot ``_payload``: a
    property builds a :class:`DeferredPayload` there on the first read and keeps the result.

    attrs reuses a base class's descriptor for a name listed in its ``__slots__`` (as
    ``slotwise.model._rare`` does), so ``payload`` stays an attrs field in every respect.
    """

    class PayloadSlot:
        __slots__ = ("_payload",)

    store = PayloadSlot._payload.__set__  # type: ignore[attr-defined]

    def get(self: Any) -> Any:
        value = self._payload
        if value.__class__ is DeferredPayload:
            # Concurrent first reads build equal payloads from the same immutable records.
            value = _payload(value.build(*value.args))
            store(self, value)
        return value

    PayloadSlot.payload = property(get, store, doc="The event's payload.")  # type: ignore[attr-defined]
    setattr(PayloadSlot, "__slots__", ("_payload", "payload"))  # noqa: B010
    return PayloadSlot


if TYPE_CHECKING:
    _PayloadSlot = object
else:
    _PayloadSlot = _deferred_payload_slot()


@attrs.frozen(kw_only=True)
class OutboxEvent(_PayloadSlot):
    """
    One event waiting for (or done with) delivery to the company's webhooks (decision 27).

    ``sequence`` orders a store's events: strictly increasing in the order units of work drew
    them (``Transaction.next_sequence()``, or the database as the event's row is written:
    ``slotwise.storage.batched.insert_numbered``), with gaps where a unit of work that drew one
    did not commit.
    ``entity_id`` is the appointment, customer or resource the event is about. ``payload`` is
    read-only JSON-ready data (see :func:`freeze_json`). ``delivered_at`` is ``None`` until the
    host marks the event delivered.

    ``location_id`` is the location of the record the event is about (the appointment's or the
    resource's); ``None`` marks a company-wide event (``CustomerCreated``, ``CustomerUpdated``),
    which only principals of the whole company see (decision 37).

    Delivery state (decision 38; the webhook sender keeps it): ``attempts`` made so far;
    ``next_attempt_at``, when the next is due (``None``: at ``created_at``); ``lease_owner`` and
    ``lease_until``, the sender that claimed the event and until when no other may
    (:meth:`~slotwise.Transaction.claim_deliveries`); ``last_status`` and ``last_error``, the
    last attempt's HTTP status or failure; ``failed_at``, set when no attempt is left (or the URL
    answered 410), until the event is redelivered.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str | None = None
    sequence: int = attrs.field(validator=check_int(low=1))
    trigger: Trigger = attrs.field(converter=_to_trigger)
    entity_id: str
    payload: Mapping[str, Any] = attrs.field(factory=dict, converter=_payload, hash=False)
    created_at: datetime = attrs.field(converter=as_utc, validator=check_aware)
    delivered_at: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=check_aware
    )
    attempts: int = attrs.field(default=0, validator=check_int(low=0, high=1000))
    next_attempt_at: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=check_aware
    )
    lease_owner: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    lease_until: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=check_aware
    )
    last_status: int | None = attrs.field(
        default=None, validator=check_int(low=0, high=999, optional=True)
    )
    last_error: str | None = attrs.field(default=None, validator=check_text(max_len=2000))
    failed_at: datetime | None = attrs.field(default=None, converter=as_utc, validator=check_aware)

    @property
    def due_at(self) -> datetime | None:
        """When the next delivery attempt is due; ``None`` once delivered or failed."""
        if self.delivered_at is not None or self.failed_at is not None:
            return None
        return self.next_attempt_at or self.created_at

    @property
    def delivery_status(self) -> Literal["pending", "delivered", "failed"]:
        """``delivered``, ``failed`` (no attempt left, or its URL gone), else ``pending``."""
        if self.delivered_at is not None:
            return "delivered"
        return "failed" if self.failed_at is not None else "pending"


@attrs.frozen(kw_only=True)
class QueuedReminder:
    """
    One reminder to send before an appointment (decision 28).

    ``ordinal`` 1 is the first reminder of its channel, 2 the second. ``due_at`` is the
    appointment's start minus the reminder's lead time (UTC). ``sent_at`` is ``None`` until the
    host marks it sent.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str
    appointment_id: str
    channel: ReminderChannel = attrs.field(validator=check_choice("email", "sms"))
    ordinal: int = attrs.field(validator=check_choice(1, 2))
    due_at: datetime = attrs.field(converter=as_utc, validator=check_aware)
    sent_at: datetime | None = attrs.field(default=None, converter=as_utc, validator=check_aware)


@attrs.frozen(kw_only=True)
class AuditEntry:
    """
    One change of one appointment: who did what, when, and the status before and after.

    ``status_before`` is ``None`` for a new record; ``status_after`` is ``None`` when the change
    deleted the record. ``modified_by`` is the principal's ``user`` (``None`` when unnamed).

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str
    appointment_id: str
    operation: Operation = attrs.field(converter=_to_operation)
    modified_on: datetime = attrs.field(converter=as_utc, validator=check_aware)
    modified_by: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    status_before: AppointmentStatus | None = attrs.field(
        default=None, converter=_to_optional_status
    )
    status_after: AppointmentStatus | None = attrs.field(
        default=None, converter=_to_optional_status
    )


trusted_audit_entry = trusted_constructor(AuditEntry)
"""
Build an :class:`AuditEntry` from valid values without checking them again (see ``_trusted``):
members for ``operation`` and the statuses, an aware UTC ``modified_on`` within decision 36's
years, a ``modified_by`` its validator accepted.
"""
