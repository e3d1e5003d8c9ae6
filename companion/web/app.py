"""The Flask app factory: services in, configuration from ``COMPANION_*`` variables."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, request
from jinja2 import ChoiceLoader
from markupsafe import escape
from werkzeug.exceptions import HTTPException

from companion.errors import CompanionError, InputError
from companion.web.api import bp as api_bp
from companion.web.auth import LoginThrottle, OperatorSessions, csrf_token, is_operator
from companion.web.config import WebConfig
from companion.web.game_pages import GamesLoader
from companion.web.game_routes import GameName
from companion.web.game_routes import bp as game_bp
from companion.web.headers import send_security_headers
from companion.web.page_globals import PAGE_GLOBALS
from companion.web.pages import bp as pages_bp
from companion.web.services import Services
from companion.web.validate import BoundedJSONProvider, limit_request_size


def create_app(config: WebConfig | None = None, services: Services | None = None) -> Flask:
    if services is None:
        raise ValueError("create_app needs the table services (session and game log)")
    config = config or WebConfig.from_env()
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=config.secret_key,
        COMPANION=config,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
    )
    app.json = BoundedJSONProvider(app)
    limit_request_size(app, config.max_body_bytes)
    app.extensions["companion"] = services
    app.extensions["companion_login"] = LoginThrottle()
    app.extensions["companion_sessions"] = OperatorSessions()
    app.extensions["companion_partials"] = {}  # (template, version) -> viewers' HTML

    app.url_map.converters["game"] = GameName
    app.register_blueprint(api_bp)
    app.register_blueprint(pages_bp)
    app.register_blueprint(game_bp)

    app.jinja_env.loader = ChoiceLoader([app.create_global_jinja_loader(), GamesLoader()])
    app.jinja_env.globals.update(PAGE_GLOBALS)

    @app.context_processor
    def _globals() -> dict[str, Any]:
        return {"is_operator": is_operator(), "csrf_token": csrf_token}

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            return jsonify(error=exc.description), exc.code
        return exc

    @app.errorhandler(CompanionError)
    def _companion_error(exc: CompanionError) -> Any:
        code = 400 if isinstance(exc, InputError) else 409
        if request.path.startswith("/api/"):
            return jsonify(error=str(exc)), code
        return f"<!doctype html><title>Error</title><p>{escape(str(exc))}</p>", code

    send_security_headers(
        app,
        {
            "X-Frame-Options": "DENY",
            "Content-Security-Policy": (
                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'"
            ),
        },
    )

    return app
