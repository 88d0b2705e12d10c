"""The root of the error tree, and how an error quotes what the caller sent."""

from __future__ import annotations

from typing import ClassVar

__all__ = ["SlotwiseError"]

_SHOWN_MAX = 60


def _shown(value: object) -> str:
    """
    Return a short repr of *value* for an error message.

    Messages quote what the caller sent; a 50,000-character string would make the message as
    long, and ``repr`` of an integer with thousands of digits raises ``ValueError``.
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**_SHOWN_MAX:
        return f"<an integer of about {value.bit_length() * 3 // 10} digits>"
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not replace the error being reported
        return f"<{type(value).__name__}>"
    if len(text) > _SHOWN_MAX:
        return f"{text[: _SHOWN_MAX - 5]}...{text[-2:]} ({len(text)} characters)"
    return text


def _rebuild(
    kind: type[SlotwiseError], args: tuple[object, ...], state: dict[str, object]
) -> SlotwiseError:
    """Return an error of *kind* with *args* and *state*, without running its constructor."""
    error = kind.__new__(kind)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class SlotwiseError(Exception):
    """
    Root of every error slotwise raises.

    .. versionadded:: 0.1
    """

    code: ClassVar[str] = "SLOTWISE"
    http_status: ClassVar[int] = 500
    mentions: tuple[str, ...] = ()
    """Fields the message names besides ``field`` (the HTTP interface gives them wire names)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[object, ...]:
        # Constructors take keyword data, so the default (positional message) cannot rebuild
        # them; rebuilding from the message and the data lets errors cross process boundaries
        # (multiprocessing workers, a pool's futures) unchanged.
        return (_rebuild, (type(self), self.args, self.__dict__))

    def to_dict(self) -> dict[str, object]:
        """
        Return a JSON-ready description: ``code``, ``message`` and the error's data fields.
        """
        data: dict[str, object] = {"code": self.code, "message": self.message}
        for key in ("field", "limit", "requested", "allowed", "value"):
            if key in self.__dict__ and self.__dict__[key] is not None:
                data[key] = self.__dict__[key]
        return data
