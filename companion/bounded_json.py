"""JSON from outside the program, parsed within the bounds of :mod:`companion.limits`.

Python's own parser recurses once per nesting level and converts integers of any length,
so a file of ``[`` characters or a 5000-digit number escapes as ``RecursionError`` or
``ValueError``.  Here depth is measured before parsing and numbers are bounded while
parsing; every failure is a :class:`JsonInputError` (a ``ValueError``) with a plain message.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from companion.errors import InputError
from companion.limits import MAX_JSON_DEPTH, MAX_NUMBER_CHARS

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonInputError(ValueError):
    """Text that is not JSON within bounds; ``line``/``column`` are 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects, ignoring brackets inside strings."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                return deepest
        else:
            depth -= 1
    return deepest


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonInputError(f"a number of {len(text)} digits (at most {MAX_NUMBER_CHARS})")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonInputError(f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    value = float(text)
    if not math.isfinite(value):
        raise JsonInputError(f"the number {text} is too large")
    return value


def _no_constant(name: str) -> Any:
    raise JsonInputError(f"{name} is not a JSON number")


def loads(text: str) -> Any:
    """The parsed document, or :class:`JsonInputError` saying what is wrong."""
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise JsonInputError(f"nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        return json.loads(
            text,
            parse_int=_bounded_int,
            parse_float=_bounded_float,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise JsonInputError(
            f"not valid JSON ({exc.msg} at column {exc.colno})", exc.lineno, exc.colno
        ) from None
    except RecursionError:  # a bound lower than the limits above still never escapes
        raise JsonInputError(f"nested more than {MAX_JSON_DEPTH} levels deep") from None


def loads_bounded(data: str | bytes, *, source: str) -> Any:
    """Parses ``data`` (text, or bytes in a JSON encoding) like :func:`loads`; every failure
    is an :class:`InputError` naming ``source``."""
    if isinstance(data, bytes):
        try:
            text = data.decode(json.detect_encoding(data))
        except (UnicodeDecodeError, LookupError):
            raise InputError("not UTF-8 text", source=source) from None
    else:
        text = data
    try:
        return loads(text)
    except JsonInputError as exc:
        raise InputError(exc.message, source=source) from None
