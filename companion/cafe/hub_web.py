"""The room dashboard: one page for the café's TV, kept live over Server-Sent Events."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, jsonify, render_template, stream_with_context

from companion.cafe.room import Room


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
        return render_template("hub.html", cards=room.cards(), title=config.title)

    @app.get("/api/tables")
    def tables() -> Any:
        return jsonify(tables=room.cards(), bad_messages=room.bad_messages)

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

    @app.after_request
    def _headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
        )
        return response

    return app


class HubServer:
    """The hub page served from a background thread (the command, the benchmark, tests)."""

    def __init__(
        self, app: Flask, host: str = "127.0.0.1", port: int = 5050, *, quiet: bool = False
    ) -> None:
        from werkzeug.serving import WSGIRequestHandler, make_server

        class Handler(WSGIRequestHandler):
            def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
                if not quiet:
                    super().log_request(code, size)

        self._server = make_server(host, port, app, threaded=True, request_handler=Handler)
        self._server.daemon_threads = True  # type: ignore[attr-defined]
        self.port: int = self._server.server_port
        self.host = host
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> HubServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="hub-web", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
