"""Where the broker is and how to log in: parsed once from an ``mqtt://`` or ``mqtts://`` URL.

The same settings build the paho client for a table and for the hub, so authentication and
TLS behave alike on both sides.
"""

from __future__ import annotations

import re
import ssl
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.errors import InputError

TOPIC_ROOT = "cafe/v1/table"
# One MQTT topic level: no separators, no wildcards, nothing a shell or a URL mangles.
_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def table_id(value: str, *, field: str = "--table") -> str:
    """A table id is one topic level, so it may not contain ``/``, ``+`` or ``#``."""
    if not _TABLE_ID.fullmatch(value):
        raise InputError(
            f"table id {value!r} must be 1-64 letters, digits, '.', '_' or '-'"
            " and start with a letter or digit",
            field=field,
        )
    return value


def topic(table: str, leaf: str) -> str:
    """``cafe/v1/table/<id>/<leaf>`` where leaf is ``status``, ``state`` or ``events``."""
    return f"{TOPIC_ROOT}/{table}/{leaf}"


def parse_topic(name: str) -> tuple[str, str] | None:
    """(table id, leaf) of a café topic, or None for anything else."""
    parts = name.split("/")
    if len(parts) != 5 or "/".join(parts[:3]) != TOPIC_ROOT or not _TABLE_ID.fullmatch(parts[3]):
        return None
    return parts[3], parts[4]


@dataclass(frozen=True)
class BrokerSettings:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None

    @classmethod
    def from_url(cls, url: str, *, ca_file: str | None = None) -> BrokerSettings:
        """``mqtt://[user[:pass]@]host[:port]`` (1883) or ``mqtts://...`` (TLS, 8883)."""
        parts = urlsplit(url)
        shown = _redacted(url)
        if parts.scheme not in ("mqtt", "mqtts"):
            raise InputError(
                f"broker URL {shown!r} must start with mqtt:// or mqtts://", field="--mqtt"
            )
        try:
            port = parts.port
        except ValueError:
            raise InputError(f"broker URL {shown!r} has a bad port", field="--mqtt") from None
        if not parts.hostname:
            raise InputError(f"broker URL {shown!r} names no host", field="--mqtt")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise InputError(
                f"broker URL {shown!r} has a path or query; only user, password, host and port"
                " are used",
                field="--mqtt",
            )
        if ca_file is not None and not Path(ca_file).is_file():
            raise InputError(f"no CA certificate file at {ca_file}", field="--mqtt-ca")
        tls = parts.scheme == "mqtts"
        return cls(
            host=parts.hostname,
            port=port or (8883 if tls else 1883),
            tls=tls,
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password is not None else None,
            ca_file=ca_file,
        )

    @property
    def address(self) -> str:
        """host:port, without the credentials: safe to print and to use as a key."""
        return f"{self.host}:{self.port}"

    def client(self, client_id: str, *, clean_session: bool = True) -> mqtt.Client:
        """A paho client with this broker's credentials and TLS applied (not yet connected)."""
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=clean_session,
            protocol=mqtt.MQTTv311,
        )
        if self.username is not None:
            client.username_pw_set(self.username, self.password)
        if self.tls:
            context = ssl.create_default_context(cafile=self.ca_file)
            context.sslsocket_class = _ClosingSSLSocket
            client.tls_set_context(context)
        return client


def _redacted(url: str) -> str:
    """The URL as it may be printed: any password replaced by ``***``."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}"


class _ClosingSSLSocket(ssl.SSLSocket):
    """Closes itself when the handshake fails: paho drops such a socket without closing it,
    and a table retrying an untrusted broker would leak one per attempt."""

    def do_handshake(self, block: bool = False) -> None:
        try:
            super().do_handshake(block)
        except BaseException:
            self.close()
            raise


def print_to_stderr(line: str) -> None:
    """One write per line, so lines from several threads never run into each other."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class ConnectionReport:
    """Tells the operator, one line each, why the broker cannot be reached and when it can.

    A problem is printed when it first appears or changes, not at every retry, so an hour's
    outage is one line rather than thousands; the line says when the next attempt is.
    """

    def __init__(self, who: str, out: Callable[[str], None] = print_to_stderr) -> None:
        self.who = who
        self.out = out
        self._last: str | None = None

    def failed(self, problem: str, retry_s: float) -> None:
        if problem != self._last:
            self.out(f"{self.who}: {problem}; retrying in {retry_s:g} s, then less often")
            self._last = problem

    def connected(self, address: str) -> None:
        if self._last is not None:
            self.out(f"{self.who}: connected to {address}")
            self._last = None
