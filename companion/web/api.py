"""The JSON API: the table's state, a live event stream, and the operator's actions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.errors import InputError
from companion.table.feed import ViewerFeed
from companion.web.auth import is_operator, operator_required
from companion.web.services import services

bp = Blueprint("api", __name__, url_prefix="/api")


def caller_view() -> dict[str, Any]:
    """The table as this caller may see it: whole for the operator; for everyone else, what
    the game lets anyone watching see (so a phone cannot peek at what the game hides)."""
    table = services().table
    view = table.snapshot()
    return view if is_operator() else table.referee.viewer_view(view)


@bp.get("/state")
def state() -> Any:
    return jsonify(caller_view())


def sse_message(update: dict[str, Any], data: str) -> str:
    return f"id: {update.get('version', 0)}\nevent: state\ndata: {data}\n\n"


def event_stream(viewers: ViewerFeed) -> Response:
    """Server-Sent Events from ``viewers``: one ``state`` event per change, the current state
    first, a comment line as keep-alive; one queue per viewer, so none waits for another."""
    heartbeat_s = current_app.config["COMPANION"].sse_heartbeat_s
    sub = viewers.subscribe()

    def stream() -> Iterator[str]:
        try:
            yield "retry: 2000\n\n"
            while True:
                update = sub.get(heartbeat_s)
                if update is None:
                    yield ": keep-alive\n\n"
                else:
                    yield sse_message(update, viewers.encoded(update))
        finally:
            sub.close()

    return Response(
        stream(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@bp.get("/events")
def events() -> Response:
    return event_stream(services().table.viewers)


def json_body() -> dict[str, Any]:
    """The request's JSON object (an empty body is an empty object)."""
    if not request.data:
        return {}
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", source="request body")
    return data


def perform(action: str, data: dict[str, Any], *, from_form: bool = False) -> Any:
    """Runs one operator action; shared by the JSON API and the dashboard's forms (whose
    values are all text, so only there may a number come as digits).  The table's own
    actions are the session's; any other name is the game's to read."""
    table = services().table
    if action == "new_game":
        name = data.get("game")
        if name is not None and not isinstance(name, str):
            raise InputError("expected a game's name", field="game")
        return table.operate("new_game", request=data, game=name)
    if action in ("undo", "end", "acknowledge"):
        return table.operate(action)
    return table.act(action, {**data, "from_form": from_form})


@bp.post("/<any(new_game, accept, correct, undo, end, choose_vat, acknowledge):action>")
@operator_required
def operator_action(action: str) -> Any:
    result = perform(action, json_body())
    return jsonify(result=result, state=services().table.snapshot())
