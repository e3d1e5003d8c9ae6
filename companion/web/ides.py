"""The Ides of March page and API: the game live, and the operator's choices for the player.

The operator is offered exactly the current player's legal actions; whatever is posted is
checked by the rules again (the page may be stale), and a refusal answers with the rule's
plain words.  Live updates reuse the table's Server-Sent Events mechanism on their own
stream, ``/api/ides/events``.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from companion.bounded_json import loads_bounded
from companion.errors import CompanionError, InputError
from companion.games.ides import IllegalAction, Rule, action_from_dict, action_to_dict
from companion.games.table_seam import ActionError
from companion.web.api import event_stream
from companion.web.auth import operator_required
from companion.web.services import TableControl, services

bp = Blueprint("ides", __name__)


GAME = "ides"  # the routes below serve a table whose game is this one


def _ides_table() -> TableControl | None:
    table = services().table
    return table if table.referee.name == GAME else None


def _table() -> TableControl:
    table = _ides_table()
    if table is None:
        abort(404, "no Ides of March game runs at this table")
    return table


def _empty_view() -> dict[str, Any]:
    return {"status": "absent", "version": 0, "players": [], "choices": [], "log": []}


@bp.get("/ides")
def page() -> str:
    table = _ides_table()
    view = table.snapshot() if table is not None else _empty_view()
    return render_template("ides.html", v=view)


@bp.get("/ides/live")
def live() -> str:
    """The changing part of the page, fetched again on every server-sent event."""
    return render_template("_ides.html", v=_table().snapshot())


@bp.get("/api/ides/state")
def state() -> Any:
    return jsonify(_table().snapshot())


@bp.get("/api/ides/events")
def events() -> Response:
    """Server-Sent Events: one ``state`` event per change, the current state first."""
    return event_stream(_table().viewers)


def _json_body() -> dict[str, Any]:
    data = request.get_json(silent=True) if request.data else {}
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", source="request body")
    return data


def _refused(exc: IllegalAction) -> Any:
    return jsonify(error=exc.message, code=exc.code.value), 409


@bp.post("/api/ides/act")
@operator_required
def act() -> Any:
    """Body ``{"action": {...}}`` as ``action_to_dict`` writes it; a roll's face is thrown
    here.  409 with the rule's code and words when the rules refuse it."""
    table = _table()
    action = action_from_dict(_json_body().get("action"))
    try:
        applied = table.act("play", {"action": action, "by": "operator"})
    except IllegalAction as exc:
        return _refused(exc)
    return jsonify(action=action_to_dict(applied), state=table.snapshot())


@bp.post("/api/ides/new_game")
@operator_required
def new_game() -> Any:
    """Body ``{"players": ["Livia", "Marcus"], "first_seat": 0, "dice_mode": "electronic"}``;
    ``dice_mode`` ``physical`` has the operator enter what real dice show."""
    table = _table()
    game = table.operate("new_game", request=_json_body(), game=GAME)
    return jsonify(game=game, state=table.snapshot())


@bp.post("/api/ides/end")
@operator_required
def end() -> Any:
    table = _table()
    try:
        table.operate("end")
    except IllegalAction as exc:
        return _refused(exc)
    except ActionError as exc:  # the table has no game in play to end
        return _refused(IllegalAction(Rule.GAME_OVER, str(exc)))
    return jsonify(state=table.snapshot())


@bp.post("/api/ides/acknowledge")
@operator_required
def acknowledge() -> Any:
    """The operator has seen that the log failed verification (409 when nothing to see)."""
    table = _table()
    result = table.operate("acknowledge")
    return jsonify(result=result, state=table.snapshot())


@bp.post("/ides/acknowledge")
@operator_required
def acknowledge_form() -> Any:
    try:
        _table().operate("acknowledge")
    except CompanionError as exc:
        flash(str(exc))
    return redirect(url_for("ides.page"))


@bp.post("/ides/act")
@operator_required
def act_form() -> Any:
    """The page's form: ``choice`` is one offered action as JSON."""
    table = _table()
    raw = request.form.get("choice", "")
    try:
        action = action_from_dict(loads_bounded(raw, source="choice"), path="choice")
    except InputError as exc:
        flash(f"That choice could not be read: {exc}")
        return redirect(url_for("ides.page"))
    try:
        table.act("play", {"action": action, "by": "operator"})
    except IllegalAction as exc:
        flash(f"Refused: {exc.message}")
    except InputError as exc:
        flash(f"Refused: {exc.message}")
    return redirect(url_for("ides.page"))


@bp.post("/ides/new")
@operator_required
def new_form() -> Any:
    names = [n for n in request.form.getlist("player") if n.strip()]
    try:
        request_ = {"players": names, "dice_mode": request.form.get("dice_mode", "electronic")}
        _table().operate("new_game", request=request_, game=GAME)
    except InputError as exc:
        flash(f"No new game: {exc}")
    return redirect(url_for("ides.page"))
