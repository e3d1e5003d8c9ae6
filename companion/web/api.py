"""The JSON API: the table's state, a live event stream, and the operator's actions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.boards.profile import load_profile
from companion.errors import InputError
from companion.table.hub import Hub
from companion.table.session import NewGame
from companion.table.view import viewer_view
from companion.web.auth import is_operator, operator_required
from companion.web.services import services
from companion.web.validate import whole_number

bp = Blueprint("api", __name__, url_prefix="/api")


def caller_view() -> dict[str, Any]:
    """The table as this caller may see it: whole for the operator, the aureus order only as
    far as revealed for everyone else (so a phone cannot peek at the next rounds)."""
    view = services().table.snapshot()
    return view if is_operator() else viewer_view(view)


@bp.get("/state")
def state() -> Any:
    return jsonify(caller_view())


def sse_message(update: dict[str, Any], data: str) -> str:
    return f"id: {update.get('version', 0)}\nevent: state\ndata: {data}\n\n"


def event_stream(hub: Hub) -> Response:
    """Server-Sent Events from ``hub``: one ``state`` event per change, the current state
    first, a comment line as keep-alive; one queue per viewer, so none waits for another."""
    heartbeat_s = current_app.config["COMPANION"].sse_heartbeat_s
    sub = hub.subscribe()

    def stream() -> Iterator[str]:
        try:
            yield "retry: 2000\n\n"
            while True:
                update = sub.get(heartbeat_s)
                if update is None:
                    yield ": keep-alive\n\n"
                else:
                    yield sse_message(update, hub.encoded(update))
        finally:
            sub.close()

    return Response(
        stream(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@bp.get("/events")
def events() -> Response:
    return event_stream(services().table.hub)


def _body() -> dict[str, Any]:
    if not request.data:
        return {}
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", source="request body")
    return data


def _board_vats() -> tuple[int, ...]:
    """The vat numbers of the board in play (the default board before a game starts)."""
    setup = services().table.snapshot().get("setup")
    return load_profile(setup["board"] if setup else "troia").vats


def perform(action: str, data: dict[str, Any], *, from_form: bool = False) -> Any:
    """Runs one operator action; shared by the JSON API and the dashboard's forms (whose
    values are all text, so only there may a number come as digits)."""
    table = services().table
    if action == "new_game":
        return table.operate("new_game", request=NewGame.from_dict(data))
    if action == "correct":
        if "board" not in data:
            raise InputError("missing the corrected board state", field="board")
        return table.operate("correct", board=data["board"])
    if action == "choose_vat":
        vats = _board_vats()
        value = data.get("vat")
        if isinstance(value, str) and not from_form:
            raise InputError("must be a JSON number, not text", field="vat")
        vat = whole_number(value, field="vat", low=min(vats), high=max(vats))
        return table.operate("choose_vat", vat=vat)
    if action in ("accept", "undo", "end", "acknowledge"):
        return table.operate(action)
    raise InputError(f"unknown action {action!r}", field="action")


@bp.post("/<any(new_game, accept, correct, undo, end, choose_vat, acknowledge):action>")
@operator_required
def operator_action(action: str) -> Any:
    result = perform(action, _body())
    return jsonify(result=result, state=services().table.snapshot())
