"""The viewer feed: fan-out of table updates to every live viewer, never blocking the publisher.

Each subscriber gets its own bounded queue.  The session thread publishes with
``put_nowait``; a viewer too slow to keep up loses its oldest updates (each update is a
whole snapshot, so only the newest matters) rather than stalling the table.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from typing import Any

QUEUE_SIZE = 8


class Subscription:
    """One viewer's queue; iterate with :meth:`get`, then :meth:`close`."""

    def __init__(self, feed: ViewerFeed) -> None:
        self._feed = feed
        self.queue: queue.Queue[dict[str, Any]] = queue.Queue(QUEUE_SIZE)

    def get(self, timeout_s: float) -> dict[str, Any] | None:
        try:
            return self.queue.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def offer(self, update: dict[str, Any]) -> None:
        while True:
            try:
                self.queue.put_nowait(update)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self.queue.get_nowait()

    def close(self) -> None:
        self._feed.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ViewerFeed:
    """Every live viewer's queue of table snapshots (the dashboard's SSE streams)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: set[Subscription] = set()
        self._last: dict[str, Any] | None = None
        self._encoded: tuple[dict[str, Any], str] | None = None

    def subscribe(self) -> Subscription:
        """A new queue, primed with the latest update so a new viewer starts current."""
        sub = Subscription(self)
        with self._lock:
            self._subscribers.add(sub)
            if self._last is not None:
                sub.offer(self._last)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    def encoded(self, update: dict[str, Any]) -> str:
        """``update`` as compact JSON, encoded once however many viewers send it."""
        with self._lock:
            if self._encoded is not None and self._encoded[0] is update:
                return self._encoded[1]
        text = json.dumps(update, separators=(",", ":"))
        with self._lock:
            self._encoded = (update, text)
        return text

    def publish(self, update: dict[str, Any]) -> None:
        with self._lock:
            self._last = update
            targets = list(self._subscribers)
        for sub in targets:
            sub.offer(update)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)
