"""The café options of a table command: ``--mqtt URL --table ID``, or the same from config.

A table command adds them with :func:`add_cafe_arguments`, checks them with
:func:`cafe_from_args` before it starts, and starts publishing once its game log is open;
without a broker URL the table simply stays local.
Environment variables (``COMPANION_MQTT``, ``COMPANION_TABLE``, ``COMPANION_MQTT_CA``)
give the defaults, so a Pi's service file can set them once.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from companion.cafe.broker import BrokerSettings, table_id
from companion.cafe.publisher import TablePublisher
from companion.errors import InputError


def add_cafe_arguments(
    parser: argparse.ArgumentParser, env: Mapping[str, str] | None = None
) -> None:
    env = os.environ if env is None else env
    group = parser.add_argument_group("café (MQTT)")
    group.add_argument(
        "--mqtt",
        metavar="URL",
        default=env.get("COMPANION_MQTT") or None,
        help="publish this table to a broker: mqtt://[user:pass@]host[:port] or mqtts://"
        " (default $COMPANION_MQTT)",
    )
    group.add_argument(
        "--table",
        metavar="ID",
        default=env.get("COMPANION_TABLE") or None,
        help="this table's id on the broker, e.g. table-07 (default $COMPANION_TABLE)",
    )
    group.add_argument(
        "--mqtt-ca",
        metavar="FILE",
        default=env.get("COMPANION_MQTT_CA") or None,
        help="CA certificate for mqtts:// (default $COMPANION_MQTT_CA, else the system's)",
    )


@dataclass(frozen=True)
class CafeSettings:
    """A validated broker and table id, ready to start publishing once the log is open."""

    broker: BrokerSettings
    table: str

    def start(self, log_path: str | Path, dashboard_url: str | None = None) -> TablePublisher:
        return TablePublisher(log_path, self.table, self.broker, dashboard_url).start()


def cafe_from_args(args: argparse.Namespace) -> CafeSettings | None:
    """Checks the café options (before the table starts); None when no broker was given."""
    url = getattr(args, "mqtt", None)
    table = getattr(args, "table", None)
    if not url:
        if table:
            raise InputError("--table needs --mqtt URL (or $COMPANION_MQTT)", field="--mqtt")
        return None
    if not table:
        raise InputError("--mqtt needs --table ID (or $COMPANION_TABLE)", field="--table")
    broker = BrokerSettings.from_url(url, ca_file=getattr(args, "mqtt_ca", None))
    return CafeSettings(broker, table_id(table))


def publisher_from_args(
    args: argparse.Namespace, log_path: str | Path, dashboard_url: str | None = None
) -> TablePublisher | None:
    """Starts the table's publisher if a broker was given; the caller stops it at exit."""
    settings = cafe_from_args(args)
    return settings.start(log_path, dashboard_url) if settings is not None else None
