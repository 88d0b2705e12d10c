"""
slotwise: embeddable, typed appointment scheduling.

.. versionadded:: 0.1
"""

from __future__ import annotations

from slotwise._version import VERSION as _VERSION
from slotwise.availability.authorization import CalendarAuthorizer as CalendarAuthorizer
from slotwise.availability.authorization import CalendarProviderName as CalendarProviderName
from slotwise.availability.authorization import NoCalendarAuthorizer as NoCalendarAuthorizer
from slotwise.availability.busy import BusyTimeProvider as BusyTimeProvider
from slotwise.availability.busy import NoBusyTime as NoBusyTime
from slotwise.availability.explanation import Explanation as Explanation
from slotwise.availability.query import AvailabilityQuery as AvailabilityQuery
from slotwise.availability.results import AvailableTimes as AvailableTimes
from slotwise.availability.results import Day as Day
from slotwise.availability.results import DayAvailability as DayAvailability
from slotwise.availability.results import Reason as Reason
from slotwise.availability.results import Slot as Slot
from slotwise.availability.results import Slots as Slots
from slotwise.availability.results import UnavailableTime as UnavailableTime
from slotwise.availability.results import UnavailableTimes as UnavailableTimes
from slotwise.booking.service import AppointmentOperations as AppointmentOperations
from slotwise.booking.service import CompleteBooking as CompleteBooking
from slotwise.booking.service import OutboxOperations as OutboxOperations
from slotwise.booking.service import ReminderOperations as ReminderOperations
from slotwise.booking.transitions import DELETED as DELETED
from slotwise.booking.transitions import TRANSITIONS as TRANSITIONS
from slotwise.booking.transitions import Outcome as Outcome
from slotwise.booking.transitions import transition as transition
from slotwise.clock import Clock as Clock
from slotwise.clock import IdGenerator as IdGenerator
from slotwise.clock import SystemClock as SystemClock
from slotwise.clock import UUIDIds as UUIDIds
from slotwise.errors import AppointmentNotStarted as AppointmentNotStarted
from slotwise.errors import CalendarUnreadable as CalendarUnreadable
from slotwise.errors import CapacityExceeded as CapacityExceeded
from slotwise.errors import ConflictError as ConflictError
from slotwise.errors import CustomerLimitReached as CustomerLimitReached
from slotwise.errors import DuplicateRecord as DuplicateRecord
from slotwise.errors import FieldRequired as FieldRequired
from slotwise.errors import FieldTooLong as FieldTooLong
from slotwise.errors import FieldTooShort as FieldTooShort
from slotwise.errors import GroupSizeExceeded as GroupSizeExceeded
from slotwise.errors import HoldExpired as HoldExpired
from slotwise.errors import IdempotencyConflict as IdempotencyConflict
from slotwise.errors import InconsistentFields as InconsistentFields
from slotwise.errors import InvalidChoice as InvalidChoice
from slotwise.errors import InvalidDateRange as InvalidDateRange
from slotwise.errors import InvalidFormat as InvalidFormat
from slotwise.errors import InvalidReference as InvalidReference
from slotwise.errors import InvalidSignature as InvalidSignature
from slotwise.errors import InvalidTimeOfDay as InvalidTimeOfDay
from slotwise.errors import InvalidTimeRange as InvalidTimeRange
from slotwise.errors import InvalidTimeZone as InvalidTimeZone
from slotwise.errors import InvalidTransition as InvalidTransition
from slotwise.errors import MissingDependency as MissingDependency
from slotwise.errors import NaiveDatetime as NaiveDatetime
from slotwise.errors import NotAuthenticated as NotAuthenticated
from slotwise.errors import NotFound as NotFound
from slotwise.errors import OutOfRange as OutOfRange
from slotwise.errors import PastAppointment as PastAppointment
from slotwise.errors import ProviderNotConfigured as ProviderNotConfigured
from slotwise.errors import RecordInUse as RecordInUse
from slotwise.errors import ResourceDeleted as ResourceDeleted
from slotwise.errors import SlotUnavailable as SlotUnavailable
from slotwise.errors import SlotwiseError as SlotwiseError
from slotwise.errors import StateError as StateError
from slotwise.errors import StoreError as StoreError
from slotwise.errors import StoreUnavailable as StoreUnavailable
from slotwise.errors import Unauthorized as Unauthorized
from slotwise.errors import UnexpectedField as UnexpectedField
from slotwise.errors import UnsafeDestination as UnsafeDestination
from slotwise.errors import ValidationError as ValidationError
from slotwise.model import OPEN_END as OPEN_END
from slotwise.model import SLOT_INTERVALS as SLOT_INTERVALS
from slotwise.model import Address as Address
from slotwise.model import Allocation as Allocation
from slotwise.model import AllocationTarget as AllocationTarget
from slotwise.model import ApiToken as ApiToken
from slotwise.model import Appointment as Appointment
from slotwise.model import AppointmentStatus as AppointmentStatus
from slotwise.model import Block as Block
from slotwise.model import BlockTarget as BlockTarget
from slotwise.model import BookingWindow as BookingWindow
from slotwise.model import BusinessHours as BusinessHours
from slotwise.model import Calendar as Calendar
from slotwise.model import CalendarProvider as CalendarProvider
from slotwise.model import Company as Company
from slotwise.model import Customer as Customer
from slotwise.model import CustomerKind as CustomerKind
from slotwise.model import DayHours as DayHours
from slotwise.model import DayWindow as DayWindow
from slotwise.model import FieldDefinition as FieldDefinition
from slotwise.model import FieldKind as FieldKind
from slotwise.model import FieldType as FieldType
from slotwise.model import FieldValue as FieldValue
from slotwise.model import Frequency as Frequency
from slotwise.model import Holiday as Holiday
from slotwise.model import Location as Location
from slotwise.model import LocationSettings as LocationSettings
from slotwise.model import MonthType as MonthType
from slotwise.model import PhoneNumbers as PhoneNumbers
from slotwise.model import Principal as Principal
from slotwise.model import Reminder as Reminder
from slotwise.model import ReminderSchedule as ReminderSchedule
from slotwise.model import RepeatRule as RepeatRule
from slotwise.model import Resource as Resource
from slotwise.model import ResourceConsumerView as ResourceConsumerView
from slotwise.model import ResourceGroup as ResourceGroup
from slotwise.model import ResourceOptions as ResourceOptions
from slotwise.model import RoundRobin as RoundRobin
from slotwise.model import Service as Service
from slotwise.model import ServiceGroup as ServiceGroup
from slotwise.model import ServiceScope as ServiceScope
from slotwise.model import ServiceType as ServiceType
from slotwise.model import SettingsScope as SettingsScope
from slotwise.model import Subscription as Subscription
from slotwise.model import Weekday as Weekday
from slotwise.model import WeeklyHours as WeeklyHours
from slotwise.model.events import AuditEntry as AuditEntry
from slotwise.model.events import FrozenJSON as FrozenJSON
from slotwise.model.events import Operation as Operation
from slotwise.model.events import OutboxEvent as OutboxEvent
from slotwise.model.events import QueuedReminder as QueuedReminder
from slotwise.model.events import ReminderChannel as ReminderChannel
from slotwise.model.events import Trigger as Trigger
from slotwise.model.events import from_json_data as from_json_data
from slotwise.model.events import to_json_data as to_json_data
from slotwise.operations.availability import AvailabilityFields as AvailabilityFields
from slotwise.operations.availability import AvailabilityOperations as AvailabilityOperations
from slotwise.operations.availability import RescheduleFields as RescheduleFields
from slotwise.operations.calendars import CalendarChanges as CalendarChanges
from slotwise.operations.calendars import CalendarFields as CalendarFields
from slotwise.operations.calendars import CalendarOperations as CalendarOperations
from slotwise.operations.companies import CompanyChanges as CompanyChanges
from slotwise.operations.companies import CompanyFields as CompanyFields
from slotwise.operations.companies import CompanyOperations as CompanyOperations
from slotwise.operations.customers import CustomerChanges as CustomerChanges
from slotwise.operations.customers import CustomerFields as CustomerFields
from slotwise.operations.customers import CustomerOperations as CustomerOperations
from slotwise.operations.customers import SubscriptionChanges as SubscriptionChanges
from slotwise.operations.customers import SubscriptionOperations as SubscriptionOperations
from slotwise.operations.customers import split_name as split_name
from slotwise.operations.fields import BookingFieldList as BookingFieldList
from slotwise.operations.fields import CustomFieldList as CustomFieldList
from slotwise.operations.fields import FieldDefinitionChanges as FieldDefinitionChanges
from slotwise.operations.fields import FieldDefinitionFields as FieldDefinitionFields
from slotwise.operations.fields import FieldOperations as FieldOperations
from slotwise.operations.geography import Country as Country
from slotwise.operations.geography import GeographyOperations as GeographyOperations
from slotwise.operations.geography import State as State
from slotwise.operations.locations import LocationChanges as LocationChanges
from slotwise.operations.locations import LocationFields as LocationFields
from slotwise.operations.locations import LocationOperations as LocationOperations
from slotwise.operations.locations import LocationSettingsEntry as LocationSettingsEntry
from slotwise.operations.resource_groups import ResourceGroupChanges as ResourceGroupChanges
from slotwise.operations.resource_groups import ResourceGroupFields as ResourceGroupFields
from slotwise.operations.resource_groups import ResourceGroupOperations as ResourceGroupOperations
from slotwise.operations.resource_hours import (
    ResourceWeeklyAvailability as ResourceWeeklyAvailability,
)
from slotwise.operations.resources import ResourceChanges as ResourceChanges
from slotwise.operations.resources import ResourceFields as ResourceFields
from slotwise.operations.resources import ResourceOperations as ResourceOperations
from slotwise.operations.resources import ResourceSortOrder as ResourceSortOrder
from slotwise.operations.service_groups import ServiceGroupChanges as ServiceGroupChanges
from slotwise.operations.service_groups import ServiceGroupFields as ServiceGroupFields
from slotwise.operations.service_groups import ServiceGroupOperations as ServiceGroupOperations
from slotwise.operations.service_hours import ServiceAllocationFields as ServiceAllocationFields
from slotwise.operations.service_hours import ServiceBlockFields as ServiceBlockFields
from slotwise.operations.services import ServiceChanges as ServiceChanges
from slotwise.operations.services import ServiceFields as ServiceFields
from slotwise.operations.services import ServiceOperations as ServiceOperations
from slotwise.operations.tokens import IssuedToken as IssuedToken
from slotwise.operations.tokens import TokenOperations as TokenOperations
from slotwise.operations.tokens import TokenSource as TokenSource
from slotwise.operations.windows import AllocationChanges as AllocationChanges
from slotwise.operations.windows import AllocationFields as AllocationFields
from slotwise.operations.windows import WindowChanges as WindowChanges
from slotwise.operations.windows import WindowFields as WindowFields
from slotwise.paging import AllPages as AllPages
from slotwise.paging import Page as Page
from slotwise.paging import all_pages as all_pages
from slotwise.rules.intervals import Interval as Interval
from slotwise.rules.intervals import IntervalSet as IntervalSet
from slotwise.rules.repeat import from_rrule_text as from_rrule_text
from slotwise.rules.repeat import occurrence_dates as occurrence_dates
from slotwise.rules.repeat import repeat_dates as repeat_dates
from slotwise.rules.repeat import to_rrule_text as to_rrule_text
from slotwise.rules.repeat import window_instants as window_instants
from slotwise.scheduler import Scheduler as Scheduler
from slotwise.scheduler import Workspace as Workspace
from slotwise.storage.listing import Listed as Listed
from slotwise.storage.listing import ListQuery as ListQuery
from slotwise.storage.memory import MemoryStore as MemoryStore
from slotwise.storage.protocol import Reader as Reader
from slotwise.storage.protocol import Store as Store
from slotwise.storage.protocol import Transaction as Transaction

__version__ = _VERSION

__all__ = [
    # Entry point
    "Scheduler",
    "Workspace",
    # Model
    "Address",
    "Allocation",
    "AllocationTarget",
    "ApiToken",
    "Appointment",
    "AppointmentStatus",
    "AuditEntry",
    "Block",
    "BlockTarget",
    "BookingWindow",
    "BusinessHours",
    "Calendar",
    "CalendarProvider",
    "Company",
    "Customer",
    "CustomerKind",
    "DayHours",
    "DayWindow",
    "FieldDefinition",
    "FieldKind",
    "FieldType",
    "FieldValue",
    "Frequency",
    "FrozenJSON",
    "Holiday",
    "Location",
    "LocationSettings",
    "MonthType",
    "OPEN_END",
    "Operation",
    "OutboxEvent",
    "PhoneNumbers",
    "Principal",
    "QueuedReminder",
    "Reminder",
    "ReminderChannel",
    "ReminderSchedule",
    "RepeatRule",
    "Resource",
    "ResourceConsumerView",
    "ResourceGroup",
    "ResourceOptions",
    "RoundRobin",
    "SLOT_INTERVALS",
    "Service",
    "ServiceGroup",
    "ServiceScope",
    "ServiceType",
    "SettingsScope",
    "Subscription",
    "Trigger",
    "Weekday",
    "WeeklyHours",
    "from_json_data",
    "to_json_data",
    # Availability
    "AvailabilityQuery",
    "AvailableTimes",
    "BusyTimeProvider",
    "CalendarAuthorizer",
    "CalendarProviderName",
    "Day",
    "DayAvailability",
    "Explanation",
    "NoBusyTime",
    "NoCalendarAuthorizer",
    "Reason",
    "Slot",
    "Slots",
    "UnavailableTime",
    "UnavailableTimes",
    # Booking
    "AppointmentOperations",
    "CompleteBooking",
    "DELETED",
    "OutboxOperations",
    "Outcome",
    "ReminderOperations",
    "TRANSITIONS",
    "transition",
    # Operations and their results
    "AllPages",
    "AllocationChanges",
    "AllocationFields",
    "AvailabilityFields",
    "AvailabilityOperations",
    "BookingFieldList",
    "CalendarChanges",
    "CalendarFields",
    "CalendarOperations",
    "CompanyChanges",
    "CompanyFields",
    "CompanyOperations",
    "Country",
    "CustomFieldList",
    "CustomerChanges",
    "CustomerFields",
    "CustomerOperations",
    "FieldDefinitionChanges",
    "FieldDefinitionFields",
    "FieldOperations",
    "GeographyOperations",
    "IssuedToken",
    "LocationChanges",
    "LocationFields",
    "LocationOperations",
    "LocationSettingsEntry",
    "Page",
    "RescheduleFields",
    "ResourceChanges",
    "ResourceFields",
    "ResourceGroupChanges",
    "ResourceGroupFields",
    "ResourceGroupOperations",
    "ResourceOperations",
    "ResourceSortOrder",
    "ResourceWeeklyAvailability",
    "ServiceAllocationFields",
    "ServiceBlockFields",
    "ServiceChanges",
    "ServiceFields",
    "ServiceGroupChanges",
    "ServiceGroupFields",
    "ServiceGroupOperations",
    "ServiceOperations",
    "State",
    "SubscriptionChanges",
    "SubscriptionOperations",
    "TokenOperations",
    "TokenSource",
    "WindowChanges",
    "WindowFields",
    "all_pages",
    "split_name",
    # Rules
    "Interval",
    "IntervalSet",
    "from_rrule_text",
    "occurrence_dates",
    "repeat_dates",
    "to_rrule_text",
    "window_instants",
    # Time and ids
    "Clock",
    "IdGenerator",
    "SystemClock",
    "UUIDIds",
    # Storage
    "ListQuery",
    "Listed",
    "MemoryStore",
    "Reader",
    "Store",
    "Transaction",
    # Errors
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
