"""
Command-line settings read from the environment: one rule for every option.

Every option of ``slotwise serve`` and ``slotwise worker``, and ``--db``, ``--pool-mode`` and
``--schema`` of every command that has them, can also be set as an environment variable named
after it: ``SLOTWISE_`` and the option's name in capitals with ``_`` for ``-`` (``--log-level``
is ``SLOTWISE_LOG_LEVEL``, ``--allow-local-webhooks`` is ``SLOTWISE_ALLOW_LOCAL_WEBHOOKS``).
**An option given on the command line beats the environment, which beats the default.** An
empty variable counts as unset. A flag's variable is ``1``, ``true``, ``yes`` or ``on`` (set) or
``0``, ``false``, ``no`` or ``off`` (unset), in any case; a flag on by default (``--create``,
turned off by ``--no-create``) is named after its positive form (``SLOTWISE_CREATE=0`` is
``--no-create``). A variable is read only when its option was not given, and a value its option
would refuse raises ``InvalidFormat`` or ``InvalidChoice`` naming the variable.

A repeatable option (``--replica URL``, given once per value) is read from the variable named
after the list it fills, ``SLOTWISE_REPLICAS``: its values separated by whitespace (spaces, tabs
or newlines). Not commas: a PostgreSQL URL may hold one (``host=a,b``); whitespace must be
percent-encoded in a URL (``%20``), so it never splits one. Given on the command line, the
option's values replace the variable's.

The rule is derived from the parser (:func:`from_environment`), so an option added later gets
its variable without a line of its own.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, Final

from slotwise.errors import InvalidChoice, InvalidFormat

__all__ = [
    "PREFIX",
    "Repeated",
    "batch",
    "flag",
    "from_environment",
    "port",
    "positive",
    "positive_seconds",
    "resolve",
    "seconds",
    "setting",
    "settings_list",
    "variable",
]

PREFIX: Final = "SLOTWISE_"
_TRUE: Final = ("1", "true", "yes", "on")
_FALSE: Final = ("0", "false", "no", "off")


def seconds(text: str) -> float:
    """Read a number of seconds, at least 0 (``--max-lag``, ``--replica-retry``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if math.isnan(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0 seconds, got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """Read a number of seconds above 0 (``--lease``: a claim must hold for some time)."""
    value = seconds(text)
    if value == 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got {text!r}")
    return value


def _whole(text: str, low: int, high: int | None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < low or (high is not None and value > high):
        allowed = f"at least {low}" if high is None else f"from {low} to {high}"
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
    return value


def positive(text: str) -> int:
    """Read a whole number, at least 1 (``--workers``, ``--concurrency``, ``--max-body-size``)."""
    return _whole(text, 1, None)


def port(text: str) -> int:
    """Read a TCP port, 1 to 65535 (the system would take a larger one modulo 65536)."""
    return _whole(text, 1, 65535)


def batch(text: str) -> int:
    """Read ``--batch``: the events a worker claims per round, 1 to 1000 (a feed's limit)."""
    return _whole(text, 1, 1000)


_EXPECTED: Final[dict[Any, str]] = {
    int: "a whole number",
    float: "a number",
    seconds: "a number of seconds, at least 0",
    positive_seconds: "a number of seconds above 0",
    positive: "a whole number, at least 1",
    port: "a whole number from 1 to 65535",
    batch: "a whole number from 1 to 1000",
}


class Repeated(argparse._AppendAction):
    """
    The action of a repeatable option that the environment may also set (its variable holds
    the values separated by whitespace): values given on the command line replace it.
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if isinstance(getattr(namespace, self.dest, None), _Unset):
            setattr(namespace, self.dest, None)  # the first value given starts a new list
        super().__call__(parser, namespace, values, option_string)


# A flag is --name (on when given) or --name/--no-name (BooleanOptionalAction, on by default):
# both read the variable of their first name, SLOTWISE_NAME.
_FLAGS: Final = (argparse._StoreTrueAction, argparse.BooleanOptionalAction)


def variable(option: str) -> str:
    """Return the environment variable of the long option *option* (``--port``: ``SLOTWISE_PORT``)."""
    return PREFIX + option.lstrip("-").upper().replace("-", "_")


def flag(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """
    Return the flag variable *name* (unset or empty: ``False``).

    Raises:
        InvalidChoice: naming *name*, for a value that is neither true nor false.
    """
    value = (os.environ if environ is None else environ).get(name, "")
    if value == "":
        return False
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise InvalidChoice(field=name, allowed=_TRUE + _FALSE, requested=value)


class _Unset:
    """The parsed value of an option not given: its variable, else its default, decides."""

    def __init__(self, action: argparse.Action, default: Any) -> None:
        self.action = action
        self.default = default

    def __repr__(self) -> str:
        return repr(self.default)


def _options(
    parser: argparse.ArgumentParser, command: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], argparse.Action]]:
    """Yield (command path, action) for every action of *parser* and its sub-commands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, (*command, name))
        else:
            yield command, action


def from_environment(
    parser: argparse.ArgumentParser,
    *,
    commands: Collection[str],
    everywhere: Collection[str],
) -> None:
    """
    Let the environment set the options of *parser*: every option of the sub-commands named in
    *commands*, and the options named in *everywhere* (``--db``) of every sub-command.

    Call :func:`resolve` on the parsed arguments. Options whose destination starts with
    ``deprecated_`` keep to the command line.
    """
    for command, action in _options(parser, ()):
        longs = [name for name in action.option_strings if name.startswith("--")]
        if (
            not longs
            or action.dest.startswith("deprecated_")
            or not isinstance(action, (argparse._StoreAction, Repeated, *_FLAGS))
            or not (set(command) & set(commands) or longs[0] in everywhere)
        ):
            continue
        name = _variable_of(action)
        action.default = _Unset(action, action.default)
        action.help = f"{action.help or ''} [env {name}]".strip()


def resolve(
    arguments: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> argparse.Namespace:
    """
    Replace each option not given on the command line by its variable, else its default.

    Raises:
        InvalidFormat: naming the variable, for a value the option's type refuses.
        InvalidChoice: naming the variable, for a value not among the option's choices.
    """
    environ = os.environ if environ is None else environ
    for dest, value in vars(arguments).items():
        if isinstance(value, _Unset):
            setattr(arguments, dest, _read(value, environ))
    return arguments


def _variable_of(action: argparse.Action) -> str:
    """The variable of *action*: of its first long option, or of its list for a repeatable one."""
    if isinstance(action, Repeated):
        return PREFIX + action.dest.upper()
    return variable(next(o for o in action.option_strings if o.startswith("--")))


def _read(unset: _Unset, environ: Mapping[str, str]) -> Any:
    action = unset.action
    name = _variable_of(action)
    raw = environ.get(name, "")
    if raw == "":
        return unset.default
    if isinstance(action, _FLAGS):
        return flag(name, environ)
    kind = action.type if callable(action.type) else str
    if isinstance(action, Repeated):
        return settings_list(name, kind, environ) or unset.default
    value = _convert(name, kind, raw)
    if action.choices is not None and value not in action.choices:
        raise InvalidChoice(field=name, allowed=tuple(action.choices), requested=raw)
    return value


def _convert(name: str, kind: Callable[[str], Any], raw: str) -> Any:
    """Return *raw* read by *kind*; raise ``InvalidFormat`` naming the variable *name*."""
    try:
        return kind(raw)
    except (ValueError, TypeError, argparse.ArgumentTypeError):
        expected = _EXPECTED.get(kind, "a value its option accepts")
        raise InvalidFormat(field=name, expected=expected, value=raw) from None


def setting(
    name: str, kind: Callable[[str], Any] = str, environ: Mapping[str, str] | None = None
) -> Any:
    """
    Return the variable *name* read by *kind* as its option reads it (``None``: unset or empty).

    For a process that gets its settings from the environment alone (a worker process of
    ``slotwise serve``).

    Raises:
        InvalidFormat: naming *name*, for a value *kind* refuses.
    """
    raw = (os.environ if environ is None else environ).get(name, "")
    return None if raw == "" else _convert(name, kind, raw)


def settings_list(
    name: str, kind: Callable[[str], Any] = str, environ: Mapping[str, str] | None = None
) -> Sequence[Any]:
    """
    Return the values of the variable *name* of a repeatable option, split at whitespace and
    each read by *kind* (empty when unset).

    Raises:
        InvalidFormat: naming *name*, for a value *kind* refuses.
    """
    raw = (os.environ if environ is None else environ).get(name, "")
    return [_convert(name, kind, value) for value in raw.split()]
