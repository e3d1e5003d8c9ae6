"""Serving the dashboard: a threaded WSGI server that can run beside the table's threads."""

from __future__ import annotations

import threading

from flask import Flask
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server


class _QuietHandler(WSGIRequestHandler):
    """No line per request: a hundred live viewers would drown the terminal."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


class DashboardServer:
    """The dashboard on ``host:port`` (port 0 picks a free one) in a background thread.

    Threaded, so every Server-Sent Events client holds its own thread and none blocks the
    others.
    """

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server: BaseWSGIServer = make_server(
            host, port, app, threaded=True, request_handler=_QuietHandler
        )
        self._server.daemon_threads = True  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="dashboard", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_port)

    @property
    def url(self) -> str:
        return f"http://{self._server.host}:{self.port}"

    def start(self) -> DashboardServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()

    def __enter__(self) -> DashboardServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
