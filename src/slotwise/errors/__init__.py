"""
Every error slotwise raises, in one tree.

Each class has a stable ``code`` (a spec code such as ``BOOKING-408`` where the spec has one,
otherwise slotwise's own) and the ``http_status`` an HTTP adapter maps it to. Constructors take
the data and build the message, so a call site reads ``raise GroupSizeExceeded(requested=5, allowed=4)``.

::

    SlotwiseError
    ├── ValidationError (ValueError)                     400  VALIDATION
    │   ├── FieldRequired                                400  FIELD-REQUIRED
    │   ├── FieldTooLong                                 400  FIELD-TOO-LONG
    │   ├── FieldTooShort                                400  FIELD-TOO-SHORT
    │   ├── OutOfRange                                   400  OUT-OF-RANGE
    │   ├── InvalidChoice                                400  INVALID-CHOICE
    │   ├── InvalidFormat                                400  INVALID-FORMAT
    │   │   └── CalendarUnreadable                       502  CALENDAR-UNREADABLE
    │   ├── UnexpectedField                              400  UNEXPECTED-FIELD
    │   ├── InvalidTimeZone                              400  INVALID-TIMEZONE
    │   ├── InvalidTimeOfDay                             400  INVALID-TIME
    │   ├── InvalidTimeRange                             400  INVALID-TIME-RANGE
    │   ├── InvalidDateRange                             400  INVALID-DATE-RANGE
    │   ├── NaiveDatetime                                400  NAIVE-DATETIME
    │   ├── InconsistentFields                           400  INCONSISTENT-FIELDS
    │   ├── InvalidReference                             400  INVALID-REFERENCE
    │   ├── GroupSizeExceeded                            400  BOOKING-408
    │   ├── CapacityExceeded                             409  BOOKING-138
    │   └── UnsafeDestination                            400  UNSAFE-DESTINATION
    ├── NotFound (LookupError)                           404  NOT-FOUND
    ├── NotAuthenticated (PermissionError)               401  NOT-AUTHENTICATED
    ├── Unauthorized (PermissionError)                   401  UNAUTHORIZED
    ├── InvalidSignature (PermissionError)               401  INVALID-SIGNATURE
    ├── StateError                                       409  STATE
    │   ├── ResourceDeleted                              409  RESOURCE-DELETED
    │   ├── DuplicateRecord                              409  DUPLICATE
    │   ├── RecordInUse                                  409  IN-USE
    │   ├── InvalidTransition                            409  INVALID-TRANSITION
    │   ├── SlotUnavailable                              409  SLOT-UNAVAILABLE
    │   ├── HoldExpired                                  409  HOLD-EXPIRED
    │   ├── PastAppointment                              409  PAST-APPOINTMENT
    │   ├── AppointmentNotStarted                        409  NOT-STARTED
    │   ├── CustomerLimitReached                         409  CUSTOMER-LIMIT
    │   └── IdempotencyConflict                          409  IDEMPOTENCY-CONFLICT
    ├── ProviderNotConfigured                            501  PROVIDER-NOT-CONFIGURED
    ├── MissingDependency (ImportError)                  501  MISSING-DEPENDENCY
    └── StoreError                                       500  STORE
        ├── ConflictError                                409  STORE-CONFLICT
        └── StoreUnavailable                             503  STORE-UNAVAILABLE

``docs/errors.md`` lists each class with the operations that raise it.
"""

from __future__ import annotations

from ._base import SlotwiseError as SlotwiseError
from ._state import AppointmentNotStarted as AppointmentNotStarted
from ._state import CustomerLimitReached as CustomerLimitReached
from ._state import DuplicateRecord as DuplicateRecord
from ._state import HoldExpired as HoldExpired
from ._state import IdempotencyConflict as IdempotencyConflict
from ._state import InvalidSignature as InvalidSignature
from ._state import InvalidTransition as InvalidTransition
from ._state import NotAuthenticated as NotAuthenticated
from ._state import NotFound as NotFound
from ._state import PastAppointment as PastAppointment
from ._state import RecordInUse as RecordInUse
from ._state import ResourceDeleted as ResourceDeleted
from ._state import SlotUnavailable as SlotUnavailable
from ._state import StateError as StateError
from ._state import Unauthorized as Unauthorized
from ._system import ConflictError as ConflictError
from ._system import MissingDependency as MissingDependency
from ._system import ProviderNotConfigured as ProviderNotConfigured
from ._system import StoreError as StoreError
from ._system import StoreUnavailable as StoreUnavailable
from ._validation import CalendarUnreadable as CalendarUnreadable
from ._validation import CapacityExceeded as CapacityExceeded
from ._validation import FieldRequired as FieldRequired
from ._validation import FieldTooLong as FieldTooLong
from ._validation import FieldTooShort as FieldTooShort
from ._validation import GroupSizeExceeded as GroupSizeExceeded
from ._validation import InconsistentFields as InconsistentFields
from ._validation import InvalidChoice as InvalidChoice
from ._validation import InvalidDateRange as InvalidDateRange
from ._validation import InvalidFormat as InvalidFormat
from ._validation import InvalidReference as InvalidReference
from ._validation import InvalidTimeOfDay as InvalidTimeOfDay
from ._validation import InvalidTimeRange as InvalidTimeRange
from ._validation import InvalidTimeZone as InvalidTimeZone
from ._validation import NaiveDatetime as NaiveDatetime
from ._validation import OutOfRange as OutOfRange
from ._validation import UnexpectedField as UnexpectedField
from ._validation import UnsafeDestination as UnsafeDestination
from ._validation import ValidationError as ValidationError

__all__ = [
    "AppointmentNotStarted",
    "CalendarUnreadable",
    "CapacityExceeded",
    "ConflictError",
    "CustomerLimitReached",
    "DuplicateRecord",
    "FieldRequired",
    "FieldTooLong",
    "FieldTooShort",
    "GroupSizeExceeded",
    "HoldExpired",
    "IdempotencyConflict",
    "InconsistentFields",
    "InvalidChoice",
    "InvalidDateRange",
    "InvalidFormat",
    "InvalidReference",
    "InvalidSignature",
    "InvalidTimeOfDay",
    "InvalidTimeRange",
    "InvalidTimeZone",
    "InvalidTransition",
    "MissingDependency",
    "NaiveDatetime",
    "NotAuthenticated",
    "NotFound",
    "OutOfRange",
    "PastAppointment",
    "ProviderNotConfigured",
    "RecordInUse",
    "ResourceDeleted",
    "SlotUnavailable",
    "SlotwiseError",
    "StateError",
    "StoreError",
    "StoreUnavailable",
    "Unauthorized",
    "UnexpectedField",
    "UnsafeDestination",
    "ValidationError",
]

for _name in __all__:
    # Shown as ``slotwise.errors.FieldRequired`` in tracebacks and reprs, wherever it is defined.
    globals()[_name].__module__ = __name__
del _name
