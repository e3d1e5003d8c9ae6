"""``companion hub``: the café's room dashboard, fed by every table on one MQTT broker."""

from __future__ import annotations

import argparse
import threading
from typing import Any

from companion.arguments import port_number
from companion.cafe.broker import BrokerSettings, check_ca_file
from companion.cafe.hub import HubSubscriber, default_client_id
from companion.cafe.hub_web import HubWebConfig, create_hub_app
from companion.cafe.room import Room
from companion.errors import InputError
from companion.web.serve import DashboardServer


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "hub",
        help="serve the room dashboard of every table on an MQTT broker",
        description="Subscribes to every table on the broker and serves one live page for "
        "the room: games, rounds, leaders, who is offline and which table needs a referee.",
    )
    parser.add_argument(
        "--mqtt", required=True, metavar="URL", help="mqtt://[user:pass@]host[:port] or mqtts://"
    )
    parser.add_argument("--mqtt-ca", metavar="FILE", help="CA certificate for mqtts://")
    parser.add_argument("--host", default="0.0.0.0", help="address to serve on (default all)")
    parser.add_argument("--port", type=port_number, default=5050)
    parser.add_argument("--title", default="Tables", help="the page heading")
    parser.add_argument(
        "--client-id",
        default=None,
        help=f"MQTT client id, unique per hub (default {default_client_id()})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise InputError(f"port {args.port} is out of range", field="--port")
    broker = BrokerSettings.from_url(args.mqtt, ca_file=args.mqtt_ca)
    check_ca_file(broker.ca_file)
    room = Room()
    app = create_hub_app(room, HubWebConfig(title=args.title))
    try:
        server = DashboardServer(app, args.host, args.port)
    except OSError as exc:
        raise InputError(f"cannot serve on {args.host}:{args.port}: {exc}", field="--port") from exc
    subscriber = HubSubscriber(room, broker, args.client_id).start()
    server.start()
    print(f"hub for {broker.address}: {server.url}/", flush=True)
    try:
        threading.Event().wait()  # serves until Ctrl-C
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        subscriber.stop()
    return 0
