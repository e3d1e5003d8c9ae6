"""Hostile variants of valid JSON documents, and pure garbage, from a seeded ``random.Random``.

A :class:`Mutant` carries the bytes to send, a short description of the change, and whether
the change *surely* makes the input invalid for any reader of the project's formats (a
value no field could hold: NaN, a 5000-digit integer, nesting a thousand deep, text that is
no longer JSON).  Changes that may or may not be acceptable (a long name, a deleted key)
are left undecided: only crashes and 500s are judged on those.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

JsonPath = tuple[str | int, ...]
_MARK = "\u0000fuzz-raw\u0000"


@dataclass(frozen=True)
class Mutant:
    data: bytes
    how: str
    surely_invalid: bool

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


@dataclass(frozen=True)
class Leaf:
    """Raw JSON text (or near-JSON) put in place of one value."""

    name: str
    make: Callable[[random.Random], str]
    surely_invalid: bool


def sized(rng: random.Random, small: int, medium: int, huge: int) -> int:
    """Mostly small and medium sizes: a huge input costs a thousand small ones to judge."""
    return rng.choices((small, medium, huge), (60, 35, 5))[0]


def _nest(open_: str, close: str, inner: str = "") -> Callable[[random.Random], str]:
    return lambda rng: (lambda n: open_ * n + inner + close * n)(sized(rng, 1000, 10_000, 100_000))


LEAVES: tuple[Leaf, ...] = (
    Leaf("5000-digit integer", lambda rng: "9" * 5000, True),
    Leaf("integer 10^40", lambda rng: "1" + "0" * 40, True),
    Leaf("integer past int64", lambda rng: "9223372036854775808", True),
    Leaf("negative integer", lambda rng: str(-rng.randint(1, 10)), False),
    Leaf("fraction", lambda rng: rng.choice(("1.9", "0.5", "-0.0", "3.000001")), False),
    Leaf("NaN", lambda rng: "NaN", True),
    Leaf("Infinity", lambda rng: rng.choice(("Infinity", "-Infinity")), True),
    Leaf("overflowing float", lambda rng: "1e999", True),
    Leaf("deep list nesting", _nest("[", "]"), True),
    Leaf("deep object nesting", _nest('{"a":', "}", "0"), True),
    Leaf("unclosed nesting", lambda rng: "[" * sized(rng, 1000, 10_000, 100_000), True),
    Leaf("long string", lambda rng: json.dumps("A" * sized(rng, 100, 10_000, 1_000_000)), False),
    Leaf(
        "control characters",
        lambda rng: json.dumps(rng.choice(("\x1b[2J\x1b[31mred", "a\x00b", "\r\nX", "\x07\x08"))),
        False,
    ),
    Leaf(
        "unicode",
        lambda rng: json.dumps(rng.choice(("\u202egnp.exe", "e\u0301", "😀" * 50, "\ufeffx"))),
        False,
    ),
    Leaf("lone surrogate", lambda rng: '"\\ud800x"', False),
    Leaf("markup", lambda rng: json.dumps("<script>alert(1)</script>&amp;\"'"), False),
    Leaf(
        "wrong type",
        lambda rng: rng.choice(("true", "false", "null", "{}", "[]", '""', '"1"', "0")),
        False,
    ),
    Leaf(
        "long list",
        lambda rng: "[" + ",".join(["0"] * sized(rng, 1000, 10_000, 100_000)) + "]",
        True,
    ),
    Leaf(
        "many objects",
        lambda rng: (
            "[" + ",".join(['{"name":"x","colours":["B"]}'] * sized(rng, 10, 100, 10_000)) + "]"
        ),
        False,
    ),
)


def _paths(value: Any, path: JsonPath = (), out: list[JsonPath] | None = None) -> list[JsonPath]:
    """Every node of a JSON value (the first few thousand), the root included."""
    out = [] if out is None else out
    if len(out) > 4000:
        return out
    out.append(path)
    if isinstance(value, dict):
        for key, item in value.items():
            _paths(item, (*path, key), out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _paths(item, (*path, i), out)
    return out


def _replaced(value: Any, path: JsonPath, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replaced(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replaced(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def _removed(value: Any, path: JsonPath) -> Any:
    head, rest = path[0], path[1:]
    if rest:
        inner = value[head]
        return _replaced(value, (head,), _removed(inner, rest))
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k != head}
    return [v for i, v in enumerate(value) if i != head]


def where(path: JsonPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(root)"


def strict_json_ok(text: str) -> bool:
    """Whether ``text`` is JSON as the RFC has it (no NaN, no Infinity, no overflow)."""

    def refuse(_: str) -> Any:
        raise ValueError("not a JSON number")

    def finite(raw: str) -> float:
        number = float(raw)
        if number in (float("inf"), float("-inf")):
            raise ValueError("overflow")
        return number

    try:
        json.loads(text, parse_constant=refuse, parse_float=finite)
    except (ValueError, RecursionError):
        return False
    return True


def mutate_value(value: Any, rng: random.Random) -> Mutant:
    """One structural change to a parsed JSON document, serialised."""
    roll = rng.random()
    paths = _paths(value)
    if roll < 0.65:
        path = rng.choice(paths)
        leaf = rng.choice(LEAVES)
        marked = json.dumps(_replaced(value, path, _MARK))
        text = marked.replace(json.dumps(_MARK), leaf.make(rng), 1)
        return Mutant(text.encode(), f"{where(path)} <- {leaf.name}", leaf.surely_invalid)
    inner = [p for p in paths if p]
    if roll < 0.8 and inner:
        path = rng.choice(inner)
        return Mutant(json.dumps(_removed(value, path)).encode(), f"{where(path)} removed", False)
    lists = [p for p in paths if isinstance(_at(value, p), list) and _at(value, p)]
    if roll < 0.9 and lists:
        path = rng.choice(lists)
        items = _at(value, path)
        times = sized(rng, 10, 1000, max(100_000 // len(items), 2))
        text = json.dumps(_replaced(value, path, items * times))
        return Mutant(text.encode(), f"{where(path)} repeated x{times}", False)
    return mutate_text(json.dumps(value), rng)


def _at(value: Any, path: JsonPath) -> Any:
    for part in path:
        value = value[part]
    return value


def mutate_text(text: str, rng: random.Random) -> Mutant:
    """A change to the text itself: cut short, bytes flipped, garbage spliced in, re-encoded."""
    data = text.encode()
    roll = rng.random()
    if roll < 0.3 and len(data) > 1:
        cut = rng.randrange(1, len(data))
        out, how = data[:cut], f"truncated at byte {cut} of {len(data)}"
    elif roll < 0.55 and data:
        raw = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        out, how = bytes(raw), "bytes flipped"
    elif roll < 0.75:
        at = rng.randrange(len(data) + 1)
        out, how = data[:at] + random_bytes(rng, 64) + data[at:], f"garbage at byte {at}"
    elif roll < 0.85:
        out, how = text.encode("utf-16"), "UTF-16"
        return Mutant(out, how, False)  # JSON readers may detect it
    elif roll < 0.92:
        out, how = b"\xef\xbb\xbf" + data, "byte-order mark"
        return Mutant(out, how, False)
    else:
        out, how = b"", "empty"
    return Mutant(out, how, not _all_lines_ok(out))


def _all_lines_ok(data: bytes) -> bool:
    """Whether every non-blank line of ``data`` is a strict JSON object (a record's lines)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    return all(strict_json_ok(line) and line.lstrip().startswith("{") for line in lines)


def random_bytes(rng: random.Random, size: int) -> bytes:
    return bytes(rng.randrange(256) for _ in range(size))


def garbage(rng: random.Random) -> Mutant:
    """Pure random input: bytes, or printable noise."""
    size = rng.choice((1, 16, 256, 4096))
    if rng.random() < 0.5:
        return Mutant(random_bytes(rng, size), f"{size} random bytes", True)
    text = "".join(rng.choice('{}[]",:0123456789.-eE ntrufalsNaI\\') for _ in range(size))
    return Mutant(text.encode(), f"{size} random JSON-ish characters", not strict_json_ok(text))


def mutate_lines(lines: list[str], rng: random.Random) -> Mutant:
    """A change to one line of a JSON Lines document (the header half the time)."""
    if rng.random() < 0.15:
        return mutate_text("\n".join(lines) + "\n", rng)
    index = 0 if rng.random() < 0.5 else rng.randrange(len(lines))
    inner = mutate_value(json.loads(lines[index]), rng)
    text = "\n".join(lines[:index]).encode()
    text += (b"\n" if index else b"") + inner.data + b"\n"
    text += "".join(f"{line}\n" for line in lines[index + 1 :]).encode()
    # A state line dropped leaves a shorter record, which may still be read.
    invalid = inner.surely_invalid and (index == 0 or bool(inner.data))
    return Mutant(text, f"line {index + 1}: {inner.how}", invalid)
