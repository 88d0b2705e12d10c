"""
A JSON Patch (RFC 6902) applied to a record as ``GET`` shows it, turned into the body of fields
it changes, so a patch is refused and applied exactly as those fields sent as JSON would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

import jsonpatch
import msgspec

from slotwise.errors import InvalidFormat
from slotwise.scheduler import Workspace

from ._bodies import PatchOperation, fields_of
from ._documents import to_wire
from ._errors import decode_error
from ._plan import Plan, union_members
from ._routes import Route
from ._wire import Lookups

__all__ = ["patched"]


def patched(
    route: Route,
    plan: Plan,
    workspace: Workspace,
    arguments: Mapping[str, Any],
    operations: list[PatchOperation],
    lookups: Lookups,
) -> Any:
    """Apply a JSON Patch to the record's wire form; return the changed fields as a body."""
    assert route.patch_from is not None
    group, _, name = route.patch_from.partition(".")
    # The record's id from the path; none for the caller's own company.
    path_ids = [arguments[python] for _, python in plan.path]
    # The record exactly as GET shows it (local times, derived names) is what the patch edits.
    current = to_wire(getattr(getattr(workspace, group), name)(*path_ids), lookups)
    document = msgspec.json.decode(msgspec.json.encode(current))
    patch = [
        {
            key: value
            for key, value in msgspec.structs.asdict(op).items()
            if value is not msgspec.UNSET
        }
        for op in operations
    ]
    for op in patch:
        if "from_" in op:
            op["from"] = op.pop("from_")
    patched = document
    for number, op in enumerate(patch, start=1):
        try:
            # One operation at a time (as RFC 6902 applies them), so a refusal names the one
            # that failed in the patch's own terms: the library's text is Python's.
            patched = jsonpatch.apply_patch(patched, [op])
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
            raise InvalidFormat(
                field="body",
                expected="a JSON Patch whose operations apply to the record as GET returns it",
                value=f"operation {number} ({op['op']} {op['path']}) does not apply",
            ) from None
    if not isinstance(patched, dict):
        raise InvalidFormat(field="body", expected="a patch leaving an object", value=patched)
    body_type = get_args(plan.body)[0]
    accepted = _field_types(body_type)
    changed = {
        key: _accepted_only(
            document.get(key), _with_removals(document.get(key), value), accepted.get(key)
        )
        for key, value in patched.items()
        if document.get(key) != value
    }
    changed.update({key: None for key in document if key not in patched})
    try:
        return msgspec.json.decode(msgspec.json.encode(changed), type=body_type)
    except msgspec.ValidationError as error:
        raise decode_error(error, sorted(fields_of(body_type)), plan.choices, body_type) from None


def _with_removals(before: Any, after: Any) -> Any:
    """
    Return a patched value as a body sends it: a nested object's keys the patch removed are
    sent as ``null`` (cleared), since a nested object sent in an update keeps what it leaves out.
    """
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    sent = {key: _with_removals(before.get(key), value) for key, value in after.items()}
    sent.update({key: None for key in before if key not in after})
    return sent


def _field_types(kind: Any) -> dict[str, Any]:
    """Return the fields a body struct among *kind*'s union members accepts, by wire name."""
    for member in union_members(kind):
        if isinstance(member, type) and issubclass(member, msgspec.Struct):
            return {field.encode_name: field.type for field in msgspec.structs.fields(member)}
    return {}


def _accepted_only(before: Any, after: Any, kind: Any) -> Any:
    """
    Return a changed nested object without the keys its body type does not accept that the
    patch left as they were: what ``GET`` derives (a settings record's ``id``, ``object``,
    ``locationId``) is shown beside the fields, and sending it back unchanged is no change. A
    derived key the patch changed or removed stays, and is refused as the field it is.
    """
    if kind is None or not isinstance(after, dict):
        return after
    accepted = _field_types(kind)
    if not accepted:
        return after
    was = before if isinstance(before, dict) else {}
    return {
        key: _accepted_only(was.get(key), value, accepted[key]) if key in accepted else value
        for key, value in after.items()
        if key in accepted or key not in was or was[key] != value
    }
