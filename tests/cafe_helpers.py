"""Shared parts of the café tests: a real Mosquitto per test, a hub, simulated tables."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.cafe.broker import BrokerSettings
from companion.cafe.hub import HubOptions, HubSubscriber
from companion.cafe.hub_web import create_hub_app
from companion.cafe.room import Room
from companion.web.serve import DashboardServer

_hub_ids = iter(range(1, 10_000))


def wait_for(predicate: Callable[[], Any], timeout_s: float = 15.0, what: str = "") -> Any:
    """Polls until ``predicate()`` is truthy; fails the test after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        time.sleep(0.02)


FAST_HUB = HubOptions(retry_min_s=0.1, retry_max_s=0.5)


@contextmanager
def hub(
    url: str,
    *,
    serve: bool = False,
    client_id: str | None = None,
    report: Callable[[str], None] = print,
) -> Iterator[tuple[Room, HubSubscriber, DashboardServer | None]]:
    """A hub with a client id of its own, optionally serving its page on a free port."""
    room = Room()
    subscriber = HubSubscriber(
        room,
        BrokerSettings.from_url(url),
        client_id or f"test-hub-{next(_hub_ids)}",
        FAST_HUB,
        report,
    )
    server = DashboardServer(create_hub_app(room)).start() if serve else None
    subscriber.start()
    try:
        assert subscriber.wait_connected(10), "the hub did not connect"
        yield room, subscriber, server
    finally:
        subscriber.stop()
        if server is not None:
            server.stop()


def table_process(
    log: Path, url: str, table: str, *extra: str, seed: int = 1
) -> subprocess.Popen[str]:
    """A simulated table (real session, log and publisher) as its own process."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.cafe.simtable",
            "--log",
            str(log),
            "--mqtt",
            url,
            "--table",
            table,
            "--seed",
            str(seed),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        text: str = response.read().decode()
        return text


def demo_process(url: str, table: str, *, seed: int, delay_s: float) -> subprocess.Popen[str]:
    """``companion demo --mqtt URL --table ID``: the demo game at a real, published table.

    Its Ctrl-C is restored to the default: a test run started in the background (``make
    test &``, nohup, some CI runners) ignores SIGINT, and its children would inherit that."""
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "demo", "--mqtt", url, "--table", table,
         "--seed", str(seed), "--delay", str(delay_s)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_interrupt,
    )  # fmt: skip


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def state_message(table: str, seq: int, **fields: Any) -> dict[str, Any]:
    """A well-formed ``state`` snapshot of a two-player game; ``fields`` override any part."""
    state: dict[str, Any] = {
        "table": table,
        "seq": seq,
        "at_s": 1_700_000_000.0,
        "status": "playing",
        "dashboard": None,
        "game": 1,
        "board": "troia",
        "board_title": "Troia",
        "variant": "standard",
        "rounds": 16,
        "round": 2,
        "turn": 5,
        "turns_played": 4,
        "whose_turn": {"colour": "B", "seat": 0, "name": "Ana"},
        "seats": [
            {"name": "Ana", "colours": ["B", "G"], "score": 4},
            {"name": "Ben", "colours": ["Y", "R"], "score": 2},
        ],
        "leader": ["Ana"],
        "ended": None,
        "dispute": False,
        "desync": False,
        "violations": [],
    }
    state.update(fields)
    return state


def event_message(
    table: str, seq: int, *, digest: str | None = None, **fields: Any
) -> dict[str, Any]:
    """A well-formed ``events`` message; its hash is derived from ``seq`` unless given."""
    event: dict[str, Any] = {
        "table": table,
        "seq": seq,
        "hash": digest or f"{seq:064x}",
        "prev": f"{seq - 1:064x}",
        "game": 1,
        "kind": "verdict",
        "payload": {"outcome": "accept"},
        "photo": None,
        "at_s": 1_700_000_000.0 + seq,
    }
    event.update(fields)
    return event


def make_certificates(where: Path) -> tuple[Path, Path, Path]:
    """A private CA and a broker certificate for 127.0.0.1, made with the openssl tool."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=where)

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=cafe test CA")  # fmt: skip
    openssl("req", *ec, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1")
    (where / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "broker.crt", "-days", "2",
            "-extfile", "san.ext")  # fmt: skip
    return where / "ca.crt", where / "broker.crt", where / "broker.key"
