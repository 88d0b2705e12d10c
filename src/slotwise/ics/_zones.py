"""
Each calendar's own time zones (``VTIMEZONE``) kept to that calendar.

icalendar remembers a ``VTIMEZONE`` by its ``TZID`` for the whole process, and the first
definition of a name wins. Outlook names every zone it has no standard name for
``Customized Time Zone``, and may define a Windows name (``Eastern Standard Time``) with rules
of its own, so a second calendar using that name was read with the first one's rules: another
resource's, another company's. Before a calendar is parsed, every ``TZID`` it defines that the
zone database does not know is renamed, in its ``VTIMEZONE`` and wherever a ``TZID`` parameter
names it, to a name made from the definition itself: two definitions never share a name, and
equal ones share one harmlessly. A ``TZID`` that is an IANA name keeps its name (icalendar reads
it from the zone database, whatever the calendar defines), and a Windows name the calendar does
not define still reads as its IANA zone.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

from slotwise._time import is_zone_name

__all__ = ["own_zones"]

_FOLD: Final = re.compile(r"\r?\n[ \t]")
_LINE_END: Final = re.compile(r"\r?\n")
_PREFIX: Final = "slotwise-vtimezone-"


def own_zones(data: bytes) -> bytes:
    """Return the calendar *data* with each zone it defines under a name of its own."""
    if b"VTIMEZONE" not in data.upper():
        return data
    text = data.decode("utf-8", errors="surrogateescape")
    lines = _LINE_END.split(_FOLD.sub("", text))
    renamed = _definitions(lines)
    if not renamed:
        return data
    rewritten = [_renamed_line(line, renamed) for line in lines]
    return "\r\n".join(rewritten).encode("utf-8", errors="surrogateescape")


def _definitions(lines: list[str]) -> dict[str, str]:
    """Return TZID -> its new name, for each zone the calendar defines that is not an IANA name."""
    defined: dict[str, list[str]] = {}
    block: list[str] | None = None
    for line in lines:
        upper = line.strip().upper()
        if upper == "BEGIN:VTIMEZONE":
            block = []
        elif upper == "END:VTIMEZONE" and block is not None:
            tzid = _tzid_of(block)
            # The name as icalendar cleans it; one tzdata does not know is the calendar's own.
            if tzid is not None and not is_zone_name(tzid.strip("/")):
                # Every definition of the name counts (icalendar keeps the first of them), so
                # the new name always stands for the rules it is read with.
                defined.setdefault(tzid, []).extend([*block, "END:VTIMEZONE"])
            block = None
        elif block is not None:
            block.append(line)
    return {
        tzid: _PREFIX
        + hashlib.sha256("\n".join(text).encode(errors="surrogateescape")).hexdigest()[:24]
        for tzid, text in defined.items()
    }


def _tzid_of(block: list[str]) -> str | None:
    for line in block:
        parts = _parts(line)
        if parts is not None and parts[0][0].upper() == "TZID":
            return parts[1]
    return None


def _parts(line: str) -> tuple[list[str], str] | None:
    """Split a content line into its name and parameters, and its value (``None``: no value)."""
    pieces: list[str] = []
    start, quoted = 0, False
    for index, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        if quoted or char not in ";:":
            continue
        pieces.append(line[start:index])
        if char == ":":
            return pieces, line[index + 1 :]
        start = index + 1
    return None


def _renamed_line(line: str, renamed: dict[str, str]) -> str:
    parts = _parts(line)
    if parts is None:
        return line
    (name, *parameters), value = parts
    changed = False
    if name.upper() == "TZID" and value in renamed:
        value, changed = renamed[value], True
    kept = []
    for parameter in parameters:
        key, equals, given = parameter.partition("=")
        named = given.strip('"')
        if equals and key.upper() == "TZID" and named in renamed:
            parameter, changed = f"{key}={renamed[named]}", True
        kept.append(parameter)
    if not changed:
        return line
    return ";".join([name, *kept]) + ":" + value
