"""Readers for the fields of a message from the café's broker, shared by the hub and the games.

Anyone who can publish on the broker can send the hub anything, so each field is read with
a range a real game can have.  A field that fails raises :class:`Rejected` with a short
reason from a fixed set (``bad <field>``), so counting reasons can never grow without bound.
The hub checks the fields every table sends; each game checks its own with the same readers.
"""

from __future__ import annotations

import math
import re
from typing import Any

HEX64 = re.compile(r"[0-9a-f]{64}")


class Rejected(ValueError):
    """A message the hub cannot use; ``reason`` is a fixed short phrase, safe to count."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_object(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Rejected("not an object")
    return body


def read_int(data: dict[str, Any], name: str, low: int, high: int) -> int:
    value = data.get(name)
    if type(value) is not int or not low <= value <= high:
        raise Rejected(f"bad {name}")
    return value


def read_optional_int(data: dict[str, Any], name: str, low: int, high: int) -> int | None:
    return None if data.get(name) is None else read_int(data, name, low, high)


def read_optional_time(data: dict[str, Any], name: str) -> float | None:
    value = data.get(name)
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value) or not 0 <= value < 1e11:
        raise Rejected(f"bad {name}")
    return float(value)


def read_bool(data: dict[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise Rejected(f"bad {name}")
    return value


def short_text(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise Rejected(f"bad {name}")
    return value


def read_text(data: dict[str, Any], name: str, limit: int) -> str:
    value = short_text(data.get(name), name, limit)
    if not value:
        raise Rejected(f"bad {name}")
    return value


def read_optional_text(data: dict[str, Any], name: str, limit: int) -> str | None:
    value = data.get(name)
    return None if value is None else short_text(value, name, limit)


def read_optional_hex(data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not HEX64.fullmatch(value):
        raise Rejected(f"bad {name}")
    return value


def read_choice(data: dict[str, Any], name: str, allowed: frozenset[str]) -> str:
    value = data.get(name)
    if not isinstance(value, str) or value not in allowed:
        raise Rejected(f"bad {name}")
    return value


def read_list(data: dict[str, Any], name: str, most: int) -> list[Any]:
    value = data.get(name, [])
    if not isinstance(value, list) or len(value) > most:
        raise Rejected(f"bad {name}")
    return value


def read_name(value: object, field: str, limit: int) -> str:
    """A player's name: short text with something in it besides spaces."""
    name = short_text(value, field, limit)
    if not name.strip():
        raise Rejected(f"bad {field}")
    return name


NAME_CHARS = 40  # the tables refuse longer player names
TEXT_CHARS = 120
