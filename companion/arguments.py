"""Argument types with bounds, so a hostile number is refused by the parser in one line
instead of surfacing later as a crash deep inside a command."""

from __future__ import annotations

import argparse
import math

MAX_SECONDS = 24 * 3600
MAX_COUNT = 10**9
MAX_SEED = 2**63 - 1


def _integer(text: str) -> int:
    if len(text) > 20:
        raise argparse.ArgumentTypeError(f"{text[:20]}... is too long for a number")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def port_number(text: str) -> int:
    """A TCP port; 0 lets the system pick a free one."""
    value = _integer(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port {value} is not 0-65535")
    return value


def seed(text: str) -> int:
    """A random seed, as every generator in the program accepts it."""
    value = _integer(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"seed {value} is not 0-{MAX_SEED}")
    return value


def count(text: str) -> int:
    value = _integer(text)
    if not 0 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{value} is not a count 0-{MAX_COUNT}")
    return value


def positive_count(text: str) -> int:
    value = _integer(text)
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{value} is not a count 1-{MAX_COUNT}")
    return value


def seconds(text: str) -> float:
    """A duration: finite, not negative, at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text} is not a duration 0-{MAX_SECONDS} seconds")
    return value


def positive_rate(text: str) -> float:
    """A rate per second: finite and above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 0 < value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text} is not a rate above 0")
    return value
