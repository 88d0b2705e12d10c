"""
Customer and customer-subscription operations.

The spec shows only the subscription endpoints under ``/consumer/v1/customers``; the customer
record and its create/get/update/list operations are slotwise's own (``docs/semantics.md``,
"Customer record"). Customers belong to the company, not to a location, so every principal of
the company may use them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Required, TypedDict, Unpack

import attrs

from slotwise._time import to_utc, zone
from slotwise.errors import DuplicateRecord, FieldRequired, InvalidFormat
from slotwise.model import Address, Company, Customer, CustomerKind, Subscription, Trigger
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.operations._deletion import delete_customer
from slotwise.paging import DEFAULT_LIMIT, AllPages, Page, check_window, paginate
from slotwise.storage.listing import ListQuery, as_page, fold
from slotwise.storage.outbox import append_event, customer_data
from slotwise.storage.protocol import Reader, Transaction

from ._partial import resolved

__all__ = [
    "CustomerChanges",
    "CustomerFields",
    "CustomerOperations",
    "SubscriptionChanges",
    "SubscriptionOperations",
    "add_customer",
    "customer_email_lock",
    "find_customer_by_email",
    "split_name",
]


class _CustomerCommon(TypedDict, total=False):
    kind: CustomerKind | str
    first_name: str | None
    last_name: str | None
    business_name: str | None
    email: str | None
    phone: str | None
    phone_type: str | None
    phone_ext: str | None
    address: Address
    timezone: str | None
    notes: str | None


class CustomerFields(_CustomerCommon, total=False):
    """
    Fields of a new customer.

    A person (the default ``kind``) needs ``first_name`` or ``last_name``; a business needs
    ``business_name``.
    """


class CustomerChanges(_CustomerCommon, total=False):
    """Fields a customer update may change; omitted fields keep their values."""


def split_name(full_name: str, /) -> tuple[str, str | None]:
    """
    Split a full name into first and last name (spec: Appointment, "Create input").

    The first word is the first name; every later word goes to the last name, so
    ``"Ann Marie de Vries"`` gives ``("Ann", "Marie de Vries")`` and ``"Ann"`` gives
    ``("Ann", None)``. Runs of whitespace between words become one space.

    Raises:
        FieldRequired: when *full_name* is blank.
        InvalidFormat: when it is not a string.

    .. versionadded:: 0.1
    """
    if not isinstance(full_name, str):
        raise InvalidFormat(field="name", expected="a string", value=full_name)
    words = full_name.split()
    if not words:
        raise FieldRequired(field="name")
    first, *rest = words
    return first, (" ".join(rest) or None)


def find_customer_by_email(reader: Reader, *, company_id: str, email: str) -> Customer | None:
    """
    Return the customer of *company_id* whose e-mail equals *email* ignoring case, or ``None``.

    Meant for operations (bookings) that must look a customer up inside their own transaction.
    """
    return reader.customer_by_email(company_id, email)


def customer_email_lock(company_id: str, /) -> str:
    """
    Return the store lock name that serialises e-mail uniqueness checks within *company_id*.

    A transaction that creates a customer or changes an e-mail address holds it, so two
    concurrent units of work cannot both insert the same address (storage protocol: Isolation).
    """
    return f"customer-email:{company_id}"


def add_customer(ctx: Context, tx: Transaction, fields: CustomerFields) -> Customer:
    """
    Validate and insert a new customer of the principal's company inside *tx*.

    Meant for operations (bookings) that create a customer in their own transaction, which
    must hold :func:`customer_email_lock`; see :meth:`CustomerOperations.create` for the rules
    and errors.
    """
    ctx.owned(tx, Company, ctx.company_id, field="company_id")
    values: dict[str, Any] = dict(fields)
    customer = Customer(
        id=ctx.ids.new_id(), company_id=ctx.company_id, created_at=ctx.clock.now(), **values
    )
    _check_timezone(customer)
    _check_email_free(tx, customer)
    tx.insert(customer)
    _customer_event(ctx, tx, customer, Trigger.CUSTOMER_CREATED)
    return customer


def _customer_event(ctx: Context, tx: Transaction, customer: Customer, trigger: Trigger) -> None:
    # Decision 27: the event joins the change's own unit of work.
    append_event(
        tx,
        ids=ctx.ids,
        now=ctx.clock.now(),
        company_id=customer.company_id,
        # Customers belong to the whole company: a company-wide event (decision 37).
        location_id=None,
        trigger=trigger,
        entity_id=customer.id,
        payload={"customer": customer_data(customer)},
    )


def _check_timezone(customer: Customer) -> None:
    # The model only bounds the length; a customer's zone may be used to show times, so it
    # must be a real IANA name (same rule as companies and locations, decision 1).
    if customer.timezone is not None:
        zone(customer.timezone, field="timezone")


def _check_email_free(reader: Reader, customer: Customer) -> None:
    # One customer per e-mail per company (slotwise decision): bookings by name and e-mail
    # find the customer by address (decision 19), which needs the address to be unambiguous.
    if customer.email is None:
        return
    other = find_customer_by_email(reader, company_id=customer.company_id, email=customer.email)
    if other is not None and other.id != customer.id:
        raise DuplicateRecord(kind="customer", field="email", value=customer.email)


@operations
@attrs.frozen
class CustomerOperations(AllPages[Customer]):
    """
    Customers of the principal's company.

    E-mail addresses are unique within a company, compared ignoring case; customers without
    an e-mail address are not constrained.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def create(self, **fields: Unpack[CustomerFields]) -> Customer:
        """
        Create a customer; ``created_at`` is the clock's now.

        Raises:
            InconsistentFields: when a person has neither first nor last name, or a business
                has no business name.
            InvalidFormat: when ``email`` is not an e-mail address.
            FieldTooShort: when ``phone`` is under 7 characters (spec: Limits).
            FieldTooLong: when ``phone`` is over 15 characters, or a text field over its limit.
            InvalidTimeZone: when ``timezone`` is not an IANA zone name.
            DuplicateRecord: when another customer of the company has the same e-mail address.
        """
        ctx = self._ctx
        with ctx.store.transaction(locks=[customer_email_lock(ctx.company_id)]) as tx:
            return add_customer(ctx, tx, fields)

    def get(self, customer_id: str, /) -> Customer:
        """
        Return a customer.

        Raises:
            NotFound: when there is no such customer.
            Unauthorized: when it belongs to another company.
        """
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Customer, customer_id, field="customer_id")

    def update(self, customer_id: str, /, **changes: Unpack[CustomerChanges]) -> Customer:
        """
        Change fields of a customer; nothing changes when a rule is broken.

        Raises:
            NotFound: when there is no such customer.
            Unauthorized: when it belongs to another company.
            DuplicateRecord: when the new e-mail address belongs to another customer.
            ValidationError: as :meth:`create`.
        """
        ctx = self._ctx
        values: dict[str, Any] = dict(changes)
        with ctx.store.transaction(locks=[customer_email_lock(ctx.company_id)]) as tx:
            customer = ctx.owned(tx, Customer, customer_id, field="customer_id")
            updated = attrs.evolve(customer, **resolved(customer, values))
            _check_timezone(updated)
            _check_email_free(tx, updated)
            tx.update(updated)
            _customer_event(ctx, tx, updated, Trigger.CUSTOMER_UPDATED)
        return updated

    def delete(self, customer_id: str, /) -> Customer:
        """
        Delete a customer for good, with its subscriptions, and return it as it was.

        A slotwise extension (decision 46). A customer that appointments name stays: they are
        the booking history, and the per-customer limits count them.

        Raises:
            NotFound: when there is no such customer.
            Unauthorized: when it belongs to another company.
            RecordInUse: when appointments name the customer; nothing is changed.

        .. versionadded:: 0.1
        """
        return delete_customer(self._ctx, customer_id)

    def list(
        self,
        *,
        email: str | None = None,
        name: str | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[Customer]:
        """
        List the company's customers in creation order.

        Args:
            email: keeps the customer with exactly this e-mail address, ignoring case.
            name: keeps customers whose first, last or business name contains it (or whose
                "first last" name does), ignoring case.
            offset: records to skip (at least 0).
            limit: page size, 1..100.

        Raises:
            OutOfRange: for an invalid *offset* or *limit*.
        """
        url = "/consumer/v1/customers"
        check_window(offset, limit)
        folded = {} if email is None else {"email": fold(email)}
        if name is None:
            query = ListQuery(
                company_id=self._ctx.company_id, folded=folded, offset=offset, limit=limit
            )
            with self._ctx.store.read() as reader:
                listed = reader.page(Customer, query)
            return as_page(listed, query, url=url)
        # A name is searched inside three fields, which no store index answers: read the
        # company's customers (those with the address, when one is given) and match here.
        every = ListQuery(company_id=self._ctx.company_id, folded=folded, limit=_EVERY)
        with self._ctx.store.read() as reader:
            customers = reader.page(Customer, every).records
        needle = name.casefold()
        found = [c for c in customers if needle in _name_text(c)]
        return paginate(found, url=url, offset=offset, limit=limit)

    def find_by_email(self, email: str, /) -> Customer | None:
        """Return the company's customer with *email* (ignoring case), or ``None``."""
        with self._ctx.store.read() as reader:
            return find_customer_by_email(reader, company_id=self._ctx.company_id, email=email)


_EVERY = 2**31 - 1
"""A list read's limit that takes every match (a company's customers, for a name search)."""


def _name_text(customer: Customer) -> str:
    person = " ".join(part for part in (customer.first_name, customer.last_name) if part)
    return f"{person}\n{customer.business_name or ''}".casefold()


class SubscriptionChanges(TypedDict, total=False):
    """
    Fields a subscription update may change (spec: PUT /consumer/v1/customers/subscriptions/{id}).

    ``trial_period_end`` ``None`` ends the trial record (clears both trial dates).
    """

    customer_plan_id: str
    customer_plan_name: str | None
    plan_start: datetime
    trial_period_end: datetime | None


class _SubscriptionValues(TypedDict, total=False):
    customer_plan_id: Required[str]
    customer_plan_name: str | None
    plan_start: datetime
    trial_period_end: datetime | None


def _utc(value: object, *, field: str) -> datetime:
    if not isinstance(value, datetime):
        raise InvalidFormat(field=field, expected="an aware datetime", value=value)
    return to_utc(value, field=field)


def _trial_start(plan_start: datetime | None, trial_end: datetime | None) -> datetime | None:
    # A trial starts when the plan starts (slotwise decision); no trial end, no trial.
    return plan_start if trial_end is not None else None


@operations
@attrs.frozen
class SubscriptionOperations(AllPages[Subscription]):
    """
    Customers' plan subscriptions (spec: Consumer interface, customers).

    Datetimes must be aware (naive ones raise ``NaiveDatetime``) and are stored in UTC.
    ``trial_period_start`` is always derived: the plan start when a trial end is set,
    otherwise ``None``.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def list(
        self, customer_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Subscription]:
        """
        List a customer's subscriptions in creation order.

        Spec: GET /consumer/v1/customers/{id}/subscriptions.

        Raises:
            NotFound: when there is no such customer.
            Unauthorized: when it belongs to another company.
            OutOfRange: for an invalid *offset* or *limit*.
        """
        ctx = self._ctx
        check_window(offset, limit)
        with ctx.store.read() as reader:
            customer = ctx.owned(reader, Customer, customer_id, field="customer_id")
            query = ListQuery(
                company_id=ctx.company_id,
                equal={"customer_id": customer.id},
                offset=offset,
                limit=limit,
            )
            listed = reader.page(Subscription, query)
        return as_page(listed, query, url=f"/consumer/v1/customers/{customer.id}/subscriptions")

    def create(
        self,
        customer_id: str,
        /,
        *,
        customer_plan_id: str,
        plan_start: datetime | None = None,
        trial_period_end: datetime | None = None,
        customer_plan_name: str | None = None,
    ) -> Subscription:
        """
        Subscribe a customer to a plan (spec: POST /consumer/v1/customers/{id}/subscriptions).

        Args:
            customer_id: the customer.
            customer_plan_id: the plan's id in the host's billing system (required).
            plan_start: when the plan starts; defaults to the clock's now.
            trial_period_end: the end of a trial starting at *plan_start*, if any.
            customer_plan_name: the plan's display name.

        Raises:
            NotFound: when there is no such customer.
            Unauthorized: when it belongs to another company.
            NaiveDatetime: when a datetime has no UTC offset.
            FieldRequired: when ``customer_plan_id`` is blank.
            InconsistentFields: when ``trial_period_end`` is before ``plan_start``.
        """
        ctx = self._ctx
        values: _SubscriptionValues = {
            "customer_plan_id": customer_plan_id,
            "customer_plan_name": customer_plan_name,
            "plan_start": _utc(
                ctx.clock.now() if plan_start is None else plan_start, field="plan_start"
            ),
        }
        if trial_period_end is not None:
            values["trial_period_end"] = _utc(trial_period_end, field="trial_period_end")
        trial_start = _trial_start(values.get("plan_start"), values.get("trial_period_end"))
        with ctx.store.transaction() as tx:
            customer = ctx.owned(tx, Customer, customer_id, field="customer_id")
            subscription = Subscription(
                id=ctx.ids.new_id(),
                company_id=ctx.company_id,
                customer_id=customer.id,
                trial_period_start=trial_start,
                **values,
            )
            tx.insert(subscription)
        return subscription

    def get(self, subscription_id: str, /) -> Subscription:
        """
        Return a subscription (spec: GET /consumer/v1/customers/subscriptions/{id}).

        Raises:
            NotFound: when there is no such subscription.
            Unauthorized: when it belongs to another company.
        """
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Subscription, subscription_id, field="subscription_id")

    def update(
        self, subscription_id: str, /, **changes: Unpack[SubscriptionChanges]
    ) -> Subscription:
        """
        Change a subscription (spec: PUT /consumer/v1/customers/subscriptions/{id}).

        Omitted fields keep their values; the trial start follows the (new) plan start.

        Raises:
            NotFound: when there is no such subscription.
            Unauthorized: when it belongs to another company.
            NaiveDatetime: when a datetime has no UTC offset.
            InconsistentFields: when the trial would end before the plan starts.
        """
        ctx = self._ctx
        values: dict[str, Any] = dict(changes)
        for field in ("plan_start", "trial_period_end"):
            if values.get(field) is not None:
                values[field] = _utc(values[field], field=field)
        if "plan_start" in values and values["plan_start"] is None:
            raise FieldRequired(field="plan_start")
        with ctx.store.transaction() as tx:
            subscription = ctx.owned(tx, Subscription, subscription_id, field="subscription_id")
            # Derive the trial start before evolving, so the model checks the trial order once,
            # on the final record (a plan start moved past the trial end is refused).
            values["trial_period_start"] = _trial_start(
                values.get("plan_start", subscription.plan_start),
                values.get("trial_period_end", subscription.trial_period_end),
            )
            updated = attrs.evolve(subscription, **resolved(subscription, values))
            tx.update(updated)
        return updated

    def delete(self, subscription_id: str, /) -> Subscription:
        """
        Delete a subscription for good and return it as it was.

        Spec: DELETE /consumer/v1/customers/subscriptions/{id}.

        Raises:
            NotFound: when there is no such subscription.
            Unauthorized: when it belongs to another company.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            subscription = ctx.owned(tx, Subscription, subscription_id, field="subscription_id")
            tx.delete(Subscription, subscription.id)
        return subscription
