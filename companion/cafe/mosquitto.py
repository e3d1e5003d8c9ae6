"""A private Mosquitto on a free loopback port, for the café benchmark and its tests.

It writes its own configuration into a directory it is given (persistence there too, never
under /var), and can be stopped and started again on the same port to play a broker outage.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from companion.errors import CompanionError

CANDIDATES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


class BrokerError(CompanionError):
    """Mosquitto is missing or would not start."""


def find_mosquitto() -> str:
    for path in (shutil.which("mosquitto"), *CANDIDATES):
        if path and Path(path).is_file():
            return path
    raise BrokerError(
        "mosquitto is not installed (apt-get install mosquitto, or `make system-deps`)"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LocalBroker:
    """``start()``/``stop()`` a Mosquitto listening on 127.0.0.1 only."""

    def __init__(
        self,
        workdir: Path,
        *,
        port: int | None = None,
        persistent: bool = True,
        extra: tuple[str, ...] = (),
    ) -> None:
        """``extra`` lines go into the listener's configuration (authentication, ACLs)."""
        self.workdir = Path(workdir)
        self.extra = extra
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.persistent = persistent
        self.binary = find_mosquitto()
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def config(self) -> str:
        lines = [
            f"listener {self.port} 127.0.0.1",
            *(self.extra or ("allow_anonymous true",)),
            # Subscribers such as the hub must never have QoS 1 messages dropped for them.
            "max_queued_messages 0",
            f"log_dest file {self.workdir / 'mosquitto.log'}",
        ]
        if os.geteuid() == 0:
            # Started as root, Mosquitto would switch to the "mosquitto" user, which cannot
            # write the persistence and log files in a private directory.
            lines.append("user root")
        if self.persistent:
            lines += ["persistence true", f"persistence_location {self.workdir}/"]
        else:
            lines.append("persistence false")
        return "\n".join(lines) + "\n"

    def start(self, timeout_s: float = 10.0) -> LocalBroker:
        conf = self.workdir / "mosquitto.conf"
        conf.write_text(self.config(), encoding="utf-8")
        self._proc = subprocess.Popen(
            [self.binary, "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
                raise BrokerError(f"mosquitto exited at start: {err.strip() or self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise BrokerError(f"mosquitto did not listen on port {self.port} in {timeout_s} s")

    def stop(self, timeout_s: float = 10.0) -> None:
        """A clean stop (SIGTERM): with persistence on, Mosquitto saves its sessions first."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = (self.workdir / "mosquitto.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
