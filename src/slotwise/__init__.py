"""
slotwise: embeddable, typed appointment scheduling.

.. versionadded:: 0.1
"""

from __future__ import annotations

from slotwise.clock import Clock as Clock
from slotwise.clock import IdGenerator as IdGenerator
from slotwise.clock import SystemClock as SystemClock
from slotwise.clock import UUIDIds as UUIDIds
from slotwise.errors import CapacityExceeded as CapacityExceeded
from slotwise.errors import ConflictError as ConflictError
from slotwise.errors import DuplicateRecord as DuplicateRecord
from slotwise.errors import FieldRequired as FieldRequired
from slotwise.errors import FieldTooLong as FieldTooLong
from slotwise.errors import FieldTooShort as FieldTooShort
from slotwise.errors import GroupSizeExceeded as GroupSizeExceeded
from slotwise.errors import InconsistentFields as InconsistentFields
from slotwise.errors import InvalidChoice as InvalidChoice
from slotwise.errors import InvalidDateRange as InvalidDateRange
from slotwise.errors import InvalidFormat as InvalidFormat
from slotwise.errors import InvalidReference as InvalidReference
from slotwise.errors import InvalidTimeOfDay as InvalidTimeOfDay
from slotwise.errors import InvalidTimeRange as InvalidTimeRange
from slotwise.errors import InvalidTimeZone as InvalidTimeZone
from slotwise.errors import MissingDependency as MissingDependency
from slotwise.errors import NaiveDatetime as NaiveDatetime
from slotwise.errors import NotAuthenticated as NotAuthenticated
from slotwise.errors import NotFound as NotFound
from slotwise.errors import OutOfRange as OutOfRange
from slotwise.errors import ResourceDeleted as ResourceDeleted
from slotwise.errors import SlotwiseError as SlotwiseError
from slotwise.errors import StateError as StateError
from slotwise.errors import StoreError as StoreError
from slotwise.errors import StoreUnavailable as StoreUnavailable
from slotwise.errors import Unauthorized as Unauthorized
from slotwise.errors import ValidationError as ValidationError
from slotwise.model import Address as Address
from slotwise.model import Allocation as Allocation
from slotwise.model import AllocationTarget as AllocationTarget
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
from slotwise.paging import Page as Page
from slotwise.scheduler import Scheduler as Scheduler
from slotwise.scheduler import Workspace as Workspace
from slotwise.storage.memory import MemoryStore as MemoryStore
from slotwise.storage.protocol import Reader as Reader
from slotwise.storage.protocol import Store as Store
from slotwise.storage.protocol import Transaction as Transaction

__version__ = "0.1.0.dev0"

__all__ = [
    # Entry point
    "Scheduler",
    "Workspace",
    # Model
    "Address",
    "Allocation",
    "AllocationTarget",
    "Appointment",
    "AppointmentStatus",
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
    "Holiday",
    "Location",
    "LocationSettings",
    "MonthType",
    "Page",
    "PhoneNumbers",
    "Principal",
    "Reminder",
    "ReminderSchedule",
    "RepeatRule",
    "Resource",
    "ResourceConsumerView",
    "ResourceGroup",
    "ResourceOptions",
    "RoundRobin",
    "Service",
    "ServiceGroup",
    "ServiceScope",
    "ServiceType",
    "SettingsScope",
    "Subscription",
    "Weekday",
    "WeeklyHours",
    # Time and ids
    "Clock",
    "IdGenerator",
    "SystemClock",
    "UUIDIds",
    # Storage
    "MemoryStore",
    "Reader",
    "Store",
    "Transaction",
    # Errors
    "CapacityExceeded",
    "ConflictError",
    "DuplicateRecord",
    "FieldRequired",
    "FieldTooLong",
    "FieldTooShort",
    "GroupSizeExceeded",
    "InconsistentFields",
    "InvalidChoice",
    "InvalidDateRange",
    "InvalidFormat",
    "InvalidReference",
    "InvalidTimeOfDay",
    "InvalidTimeRange",
    "InvalidTimeZone",
    "MissingDependency",
    "NaiveDatetime",
    "NotAuthenticated",
    "NotFound",
    "OutOfRange",
    "ResourceDeleted",
    "SlotwiseError",
    "StateError",
    "StoreError",
    "StoreUnavailable",
    "Unauthorized",
    "ValidationError",
]
