"""A dependency-free progress bar for long commands (written to stderr)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Shows ``label [#####.....] done/total  eta`` on a terminal; silent when piped."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.done = 0
        self.started = time.monotonic()
        self._last_draw = 0.0
        self.enabled = self.stream.isatty()

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        now = time.monotonic()
        if self.enabled and (now - self._last_draw > 0.1 or self.done >= self.total):
            self._last_draw = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        width = 30
        filled = int(width * self.done / self.total)
        elapsed = now - self.started
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total}  eta {eta:5.1f}s")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()
