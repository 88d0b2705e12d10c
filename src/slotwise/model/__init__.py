"""
The domain model: frozen, validated attrs values with no I/O.
"""

from __future__ import annotations

from .access import ApiToken as ApiToken
from .access import Principal as Principal
from .appointments import ACTIVE_STATUSES as ACTIVE_STATUSES
from .appointments import Appointment as Appointment
from .appointments import AppointmentStatus as AppointmentStatus
from .appointments import FieldValue as FieldValue
from .blocks import OPEN_END as OPEN_END
from .blocks import Allocation as Allocation
from .blocks import AllocationTarget as AllocationTarget
from .blocks import Block as Block
from .blocks import BlockTarget as BlockTarget
from .blocks import Frequency as Frequency
from .blocks import MonthType as MonthType
from .blocks import RepeatRule as RepeatRule
from .calendar import SLOT_INTERVALS as SLOT_INTERVALS
from .calendar import Calendar as Calendar
from .catalog import RoundRobin as RoundRobin
from .catalog import Service as Service
from .catalog import ServiceGroup as ServiceGroup
from .catalog import ServiceScope as ServiceScope
from .catalog import ServiceType as ServiceType
from .company import Address as Address
from .company import BookingWindow as BookingWindow
from .company import Company as Company
from .company import Holiday as Holiday
from .company import Location as Location
from .company import LocationSettings as LocationSettings
from .company import Reminder as Reminder
from .company import ReminderSchedule as ReminderSchedule
from .company import SettingsScope as SettingsScope
from .customers import Customer as Customer
from .customers import CustomerKind as CustomerKind
from .customers import FieldDefinition as FieldDefinition
from .customers import FieldKind as FieldKind
from .customers import FieldType as FieldType
from .customers import Subscription as Subscription
from .events import AuditEntry as AuditEntry
from .events import FrozenJSON as FrozenJSON
from .events import Operation as Operation
from .events import OutboxEvent as OutboxEvent
from .events import QueuedReminder as QueuedReminder
from .events import ReminderChannel as ReminderChannel
from .events import Trigger as Trigger
from .events import freeze_json as freeze_json
from .events import from_json_data as from_json_data
from .events import to_json_data as to_json_data
from .hours import BusinessHours as BusinessHours
from .hours import DayHours as DayHours
from .hours import DayWindow as DayWindow
from .hours import Weekday as Weekday
from .hours import WeeklyHours as WeeklyHours
from .resources import CalendarProvider as CalendarProvider
from .resources import PhoneNumbers as PhoneNumbers
from .resources import Resource as Resource
from .resources import ResourceConsumerView as ResourceConsumerView
from .resources import ResourceGroup as ResourceGroup
from .resources import ResourceOptions as ResourceOptions

Record = (
    Company
    | Location
    | Calendar
    | Service
    | ServiceGroup
    | Resource
    | ResourceGroup
    | Block
    | Allocation
    | Customer
    | Subscription
    | FieldDefinition
    | Appointment
    | QueuedReminder
    | AuditEntry
    | OutboxEvent
    | ApiToken
)
"""Every kind of record a store keeps."""

RECORD_KINDS: tuple[type[Record], ...] = (
    Company,
    Location,
    Calendar,
    Service,
    ServiceGroup,
    Resource,
    ResourceGroup,
    Block,
    Allocation,
    Customer,
    Subscription,
    FieldDefinition,
    Appointment,
    QueuedReminder,
    AuditEntry,
    OutboxEvent,
    ApiToken,
)
"""The record classes, in dependency order (a store may create one table per kind)."""
