"""The bounded argument types, kept importable here for the commands that use this path."""

from companion.arguments import (
    MAX_COUNT,
    MAX_SECONDS,
    MAX_SEED,
    count,
    port_number,
    positive_count,
    positive_rate,
    seconds,
    seed,
)

__all__ = [
    "MAX_COUNT",
    "MAX_SECONDS",
    "MAX_SEED",
    "count",
    "port_number",
    "positive_count",
    "positive_rate",
    "seconds",
    "seed",
]
