"""Text from a file or a player, made safe to print on a terminal.

A name holding escape sequences could recolour, retitle or clear the operator's terminal,
and a newline would split one error into two lines; such characters are shown escaped.
"""

from __future__ import annotations

import unicodedata

from companion.limits import MAX_MESSAGE_CHARS

_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_JOINERS = frozenset({"\u200c", "\u200d"})  # harmless, and part of many emoji


def _visible(ch: str) -> str:
    if ch in _JOINERS or unicodedata.category(ch) not in _HIDDEN_CATEGORIES:
        return ch
    return ch.encode("unicode_escape").decode("ascii")


def printable(text: str) -> str:
    """``text`` with control, format and line-separator characters written as escapes."""
    if text.isprintable():
        return text
    return "".join(_visible(ch) for ch in text)


def one_line(message: str) -> str:
    """An error message as one printable line of bounded length (the location comes first,
    so clipping keeps it)."""
    text = printable(message[: MAX_MESSAGE_CHARS * 4])
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 3] + "..."
