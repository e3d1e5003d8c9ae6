"""The room dashboard: one page for the café's TV, kept live over Server-Sent Events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, jsonify, render_template, stream_with_context

from companion.cafe.room import Room
from companion.web.headers import send_security_headers


@dataclass(frozen=True)
class HubWebConfig:
    heartbeat_s: float = 15.0
    title: str = "Tables"


def sse(event: str, data: Any) -> str:
    """One SSE message; JSON never contains a raw newline, so one ``data:`` line suffices."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def create_hub_app(room: Room, config: HubWebConfig | None = None) -> Flask:
    config = config or HubWebConfig()
    app = Flask(__name__)
    app.extensions["companion_room"] = room

    @app.get("/")
    def index() -> str:
        return render_template(
            "hub.html", cards=room.cards(), rejected=room.rejected(), title=config.title
        )

    @app.get("/api/tables")
    def tables() -> Any:
        rejected = room.rejected()
        return jsonify(tables=room.cards(), bad_messages=rejected["total"], rejected=rejected)

    @app.get("/events")
    def events() -> Response:
        def stream() -> Iterator[str]:
            with room.watch() as watcher:
                yield ": connected\n\n"
                while True:
                    changed = watcher.changed(config.heartbeat_s)
                    if not changed:
                        yield ": heartbeat\n\n"
                        continue
                    for table in changed:
                        card = room.card(table)
                        yield sse("table", card) if card else sse("gone", {"table": table})

        return Response(
            stream_with_context(stream()),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    send_security_headers(
        app,
        {
            "Content-Security-Policy": (
                "default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
            )
        },
    )

    return app
