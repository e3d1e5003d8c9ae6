"""Running one command line in this process, as a user's terminal would see it.

Standard output and error are strict UTF-8 text streams (a name that cannot be printed
fails here as it would on a real terminal), ``SystemExit`` is an exit status, and an input
that runs past its time limit is stopped by a timer signal and reported as a hang.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

TRACEBACK = "Traceback (most recent call last)"


class InputTimeout(BaseException):
    """Raised into a command that runs too long (not an ``Exception``: nothing swallows it)."""


class _KeptBytes(io.BytesIO):
    """A byte sink that stays readable after the command closes its stream."""

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class Outcome:
    status: int | None  # None when the command raised or hung
    stdout: str
    stderr: str
    error: BaseException | None = None
    hung: bool = False

    @property
    def crashed(self) -> bool:
        return self.error is not None or TRACEBACK in self.stderr


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupts the block after ``seconds`` (main thread only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expire(_signum: int, _frame: Any) -> None:
        raise InputTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def call(entry: Callable[[Sequence[str]], int], argv: Sequence[str], timeout_s: float) -> Outcome:
    out_bytes, err_bytes = _KeptBytes(), _KeptBytes()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="strict")
    status: int | None = None
    error: BaseException | None = None
    hung = False
    sigterm = signal.getsignal(signal.SIGTERM)
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            time_limit(timeout_s),
        ):
            try:
                status = _exit_status(entry(argv))
            except SystemExit as exc:
                status = _exit_status(exc.code)
    except InputTimeout:
        hung = True
    except Exception as exc:  # the finding itself: what escaped the command
        error = exc
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, sigterm)  # ``run`` installs its own
    return Outcome(status, _text(out, out_bytes), _text(err, err_bytes), error, hung)


def _text(stream: io.TextIOWrapper, sink: _KeptBytes) -> str:
    with contextlib.suppress(ValueError, UnicodeEncodeError):
        stream.flush()
    return sink.getvalue().decode("utf-8", "replace")


@contextlib.contextmanager
def native_stderr_silenced() -> Iterator[TextIO]:
    """Image decoders write warnings straight to file descriptor 2 ("Premature end of JPEG
    file", thousands of times); this hides them and yields a stream to the real stderr."""
    sys.stderr.flush()
    saved = os.dup(2)
    console = os.fdopen(os.dup(saved), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    try:
        yield console
    finally:
        console.flush()
        os.dup2(saved, 2)
        os.close(saved)
        console.close()
