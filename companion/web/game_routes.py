"""Every game's own routes: ``/<game>`` and its live part, ``/api/<game>/...`` for its state,
events and the operator's actions, and the form posts of its page.

A route answers only while the table plays that game (404 otherwise; the page says so
instead).  What differs between games comes from the game's page kit: how an action is read
from JSON or a form, which of its errors are the rules' refusals (409 with the rule's words
and code), and its page.  The rest is the table's generic path (:func:`perform`).
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
from werkzeug.routing import BaseConverter, ValidationError

from companion.errors import CompanionError, InputError
from companion.games import registry
from companion.games.page_seam import PageKit, Refusal
from companion.web.api import caller_view, event_stream, json_body, perform
from companion.web.auth import operator_required
from companion.web.game_pages import kit_for, page_of, template_of
from companion.web.pages import live_part, page_context
from companion.web.services import TableControl, services

bp = Blueprint("game", __name__)


class GameName(BaseConverter):
    """A path part naming an installed game.  Any other word does not match, so the table's
    own pages (``/tv``, ``/setup``) and the 404 of an unknown path are as they were; a game
    registered after the app was made is found too."""

    def to_python(self, value: str) -> str:
        if value not in registry.games():
            raise ValidationError()
        return value


def _table(game: str) -> TableControl:
    table = services().table
    if table.referee.name != game:
        abort(404, f"this table does not play {registry.game(game).title}")
    return table


def _refusal(kit: PageKit, exc: Exception) -> Refusal:
    """``exc`` as the game's refusal; anything else goes on to the app's error handlers."""
    refusal = kit.refusal(exc)
    if refusal is None:
        raise exc
    return refusal


def _refused(refusal: Refusal) -> Any:
    code = {} if refusal.code is None else {"code": refusal.code}
    return jsonify(error=refusal.message, **code), 409


def _back(game: str) -> Any:
    return redirect(url_for("game.page", game=game))


@bp.get("/<game:game>")
def page(game: str) -> str:
    """The game's own page, or the table's live part in a shell if it brings none."""
    if services().table.referee.name == game:
        view = caller_view()
        context = page_context(view)
    else:  # drawn without the game's context: there is no view of it to give
        view = {"status": "absent", "version": 0, "game_kind": game}
        context = {"v": view, "game_kind": game}
    return render_template(
        page_of(game) or "game.html",
        part=template_of(game, "table"),
        page_title=registry.game(game).title,
        **context,
    )


@bp.get("/<game:game>/live")
def live(game: str) -> str:
    """The changing part of the page, fetched again on every server-sent event."""
    _table(game)
    return live_part(caller_view(), template_of(game, "table"))


@bp.get("/api/<game:game>/state")
def state(game: str) -> Any:
    _table(game)
    return jsonify(caller_view())


@bp.get("/api/<game:game>/events")
def events(game: str) -> Response:
    """Server-Sent Events: one ``state`` event per change, the current state first."""
    return event_stream(_table(game).viewers)


@bp.post("/api/<game:game>/act")
@operator_required
def act(game: str) -> Any:
    """The body names one of the game's actions as its kit reads it; 409 with the rule's
    words (and code) when the rules refuse it."""
    table = _table(game)
    kit = kit_for(game)
    asked = kit.read_action(json_body())
    try:
        result = perform(asked.name, asked.args)
    except CompanionError:
        raise
    except Exception as exc:
        return _refused(_refusal(kit, exc))
    return jsonify(**kit.applied(result), state=table.snapshot())


@bp.post("/api/<game:game>/new_game")
@operator_required
def new_game(game: str) -> Any:
    """The body is the game's new-game request, as ``/api/new_game`` takes it."""
    table = _table(game)
    started = perform("new_game", {**json_body(), "game": game})
    return jsonify(game=started, state=table.snapshot())


@bp.post("/api/<game:game>/end")
@operator_required
def end(game: str) -> Any:
    table = _table(game)
    try:
        perform("end", {})
    except Exception as exc:
        return _refused(_refusal(kit_for(game), exc))
    return jsonify(state=table.snapshot())


@bp.post("/api/<game:game>/acknowledge")
@operator_required
def acknowledge(game: str) -> Any:
    """The operator has seen that the log failed verification (409 when nothing to see)."""
    table = _table(game)
    result = perform("acknowledge", {})
    return jsonify(result=result, state=table.snapshot())


@bp.post("/<game:game>/acknowledge")
@operator_required
def acknowledge_form(game: str) -> Any:
    _table(game)
    try:
        perform("acknowledge", {}, from_form=True)
    except CompanionError as exc:
        flash(str(exc))
    return _back(game)


@bp.post("/<game:game>/act")
@operator_required
def act_form(game: str) -> Any:
    """The page's form of the operator's choices; what goes wrong is flashed on the page."""
    _table(game)
    kit = kit_for(game)
    try:
        asked = kit.read_form_action(request.form.to_dict(flat=False))
    except InputError as exc:
        flash(f"That choice could not be read: {exc}")
        return _back(game)
    try:
        perform(asked.name, asked.args, from_form=True)
    except InputError as exc:
        flash(f"Refused: {exc.message}")
    except CompanionError:
        raise
    except Exception as exc:
        flash(f"Refused: {_refusal(kit, exc).message}")
    return _back(game)


@bp.post("/<game:game>/new")
@operator_required
def new_form(game: str) -> Any:
    """The page's new-game form, read by the game's kit as the setup page's is."""
    _table(game)
    try:
        fields = kit_for(game).setup_request(request.form.to_dict(flat=False))
        perform("new_game", {**fields, "game": game}, from_form=True)
    except InputError as exc:
        flash(f"No new game: {exc}")
    return _back(game)
