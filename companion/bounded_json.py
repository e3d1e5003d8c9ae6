"""JSON from strangers, with bounds checked before anything is built from it.

Python's parser recurses once per nesting level, so ``[`` x 100000 exhausts the stack; it
accepts ``Infinity``, ``NaN`` and integers of thousands of digits, which break arithmetic
much later and far from the input.  ``loads_bounded`` refuses all of them up front with an
:class:`InputError` that says what is wrong and where.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from companion.errors import InputError

MAX_DEPTH = 32
"""Nesting levels of arrays and objects: every format here needs fewer than five."""

MAX_INTEGER_DIGITS = 19
"""Long enough for any 64-bit integer; a longer one is never a count, a seat or a vat."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[^\[\]{}]+")


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings, found without parsing (linear)."""
    depth = deepest = 0
    for ch in _BRACKETS.sub("", _STRING.sub("", text)):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError(f"an integer of {len(digits.lstrip('-'))} digits is too large")
    return int(digits)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is too large")
    return value


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def loads_bounded(data: str | bytes, *, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parses ``data`` as JSON; nesting over ``max_depth``, huge integers, non-finite numbers
    and invalid text are an :class:`InputError` naming ``source``."""
    if isinstance(data, bytes):
        try:
            text = data.decode(json.detect_encoding(data))
        except (UnicodeDecodeError, LookupError):
            raise InputError("not UTF-8 text", source=source) from None
    else:
        text = data
    depth = nesting_depth(text)
    if depth > max_depth:
        raise InputError(
            f"JSON nested {depth} levels deep; at most {max_depth} are allowed", source=source
        )
    try:
        return json.loads(text, parse_int=_integer, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", source=source
        ) from None
    except ValueError as exc:
        raise InputError(str(exc), source=source) from None
