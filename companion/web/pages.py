"""Server-rendered pages for whatever game the table plays: the table, the TV kiosk, the phone
view, setup with a game picker, history, replay, and the operator's login.

These are shells: the game's own templates fill them, found through its page kit
(:mod:`companion.web.game_pages`) by the view's ``game_kind``.
"""

from __future__ import annotations

import io
from typing import Any

import segno
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)

from companion.bounded_json import loads_bounded
from companion.errors import CompanionError
from companion.games.page_seam import LoggedGame, logged_story
from companion.games.registry import DEFAULT_GAME, UnknownGame, game
from companion.table.log import Event, EventKind
from companion.web.api import caller_view, perform
from companion.web.auth import csrf_required, is_operator, log_in, log_out, operator_required
from companion.web.game_pages import game_kind, installed_kits, kit_for, template_of
from companion.web.return_path import safe_return_path
from companion.web.services import services
from companion.web.validate import SQLITE_MAX_INTEGER

bp = Blueprint("pages", __name__)

PARTIALS_CACHED = 16  # rendered viewer partials kept before the cache starts afresh


def page_context(view: dict[str, Any]) -> dict[str, Any]:
    """A view's template context from its game's kit, plus the name of its game."""
    kind = game_kind(view)
    return {"game_kind": kind, **kit_for(kind).context(view, operator=is_operator())}


def _live_page(page: str) -> str:
    view = caller_view()
    return render_template(
        f"{page}.html",
        part=template_of(game_kind(view), page),
        **page_context(view),
    )


@bp.get("/")
def table() -> str:
    return _live_page("table")


@bp.get("/tv")
def tv() -> str:
    return _live_page("tv")


@bp.get("/phone")
def phone() -> str:
    return _live_page("phone")


@bp.get("/live/<any(table, tv, phone):page>")
def live(page: str) -> str:
    """The changing part of a page, fetched again on every server-sent event."""
    view = caller_view()
    return live_part(view, template_of(game_kind(view), page))


def live_part(view: dict[str, Any], part: str) -> str:
    """``part`` drawn for ``view``.  Every viewer (not the operator, whose copy has forms)
    gets the same HTML for a version, so it is rendered once per change, not once per phone.
    """
    if is_operator():
        return render_template(part, **page_context(view))
    cache: dict[tuple[str, int], str] = current_app.extensions["companion_partials"]
    key = (part, int(view["version"]))
    html = cache.get(key)
    if html is None:
        html = render_template(part, **page_context(view))
        if len(cache) > PARTIALS_CACHED:
            cache.clear()
        cache[key] = html
    return html


@bp.get("/games/<string:game>/static/<path:filename>")
def game_static(game: str, filename: str) -> Response:
    """A game's own static files (its stylesheet), from its package."""
    kits = installed_kits()
    if game not in kits:
        abort(404)
    return send_from_directory(kits[game].static_folder(), filename, max_age=3600)


@bp.get("/login")
def login_form() -> str:
    return render_template("login.html", next=safe_return_path(request.args.get("next")))


@bp.post("/login")
@csrf_required
def login() -> Any:
    back = safe_return_path(request.form.get("next"))
    if log_in(request.form.get("pin", "")):
        return redirect(back)
    return render_template("login.html", failed=True, next=back), 401


@bp.post("/logout")
@csrf_required
def logout() -> Any:
    log_out()
    return redirect(url_for("pages.table"))


NOT_IN_PLAY = ("setup", "ended", "over")  # the statuses games give a table with no game on


def _game_in_play() -> bool:
    return caller_view().get("status") not in NOT_IN_PLAY


def _setup_page(kind: str, form: Any = None) -> str:
    kit = kit_for(kind)
    return render_template(
        "setup.html",
        games={name: game(name).title for name in installed_kits()},
        chosen=kind,
        fields=template_of(kind, "setup_fields"),
        form=form,
        in_play=_game_in_play(),
        **kit.setup_context(),
    )


@bp.get("/setup")
def setup_form() -> Any:
    """The new-game form: a picker of the installed games, then the chosen game's fields."""
    return _setup_page(request.args.get("game") or game_kind(caller_view()))


def _new_game_form() -> Any:
    """The setup form sent: the chosen game's kit reads its fields, the table starts it."""
    kind = request.form.get("game") or DEFAULT_GAME
    try:
        kit = kit_for(kind)
        request_json = {**kit.setup_request(request.form.to_dict(flat=False)), "game": kind}
        result = perform("new_game", request_json, from_form=True)
    except UnknownGame as exc:
        flash(str(exc), "error")
        return _setup_page(DEFAULT_GAME, form=request.form), 400
    except CompanionError as exc:
        flash(str(exc), "error")
        return _setup_page(kind, form=request.form), 400
    flash(kit.action_message("new_game", result), "ok")
    return redirect(url_for("pages.table"))


@bp.post("/operator/<any(new_game, accept, correct, undo, end, choose_vat, acknowledge):action>")
@operator_required
def operator_form(action: str) -> Any:
    """The dashboard's buttons; errors come back as a message on the page."""
    if action == "new_game":
        return _new_game_form()
    try:
        if action == "correct":
            board = loads_bounded(request.form.get("board", ""), source="board")
            result = perform(action, {"board": board}, from_form=True)
        else:
            result = perform(action, dict(request.form), from_form=True)
    except CompanionError as exc:
        flash(str(exc), "error")
    else:
        kit = kit_for(game_kind(caller_view()))
        flash(kit.action_message(action, result), "ok")
    return redirect(url_for("pages.table"))


def header_kind(header: dict[str, Any]) -> str:
    """The game a logged game was, from its opening event (older logs name no game)."""
    kind = header.get("game")
    return kind if isinstance(kind, str) and kind else DEFAULT_GAME


def _summary(kind: str, header: dict[str, Any]) -> dict[str, Any]:
    """The history list's words for one logged game (a game no longer installed by name)."""
    try:
        return {"title": game(kind).title, **kit_for(kind).history_summary(header)}
    except UnknownGame:
        return {"title": kind, "setup": "", "players": []}


@bp.get("/history")
def history() -> str:
    log = services().log
    games = []
    for start in log.games():
        kind = header_kind(start.payload)
        logged = _logged(kind, list(log.events(start.game)))
        games.append({"game": start.game, "game_kind": kind, **_summary(kind, start.payload),
                      "turns": logged.turns, "ended": logged.ended, "at_s": start.at_s,
                      "seal": logged.seal})  # fmt: skip
    return render_template("history.html", games=games[::-1], verification=log.verify())


def _logged(kind: str, events: list[Event]) -> LoggedGame:
    """A logged game as its own pages read it (its story alone if no longer installed)."""
    try:
        return kit_for(kind).logged_game(events)
    except UnknownGame:
        return logged_story(events)


def _game_events(game: int) -> tuple[str, list[Event], LoggedGame]:
    """A logged game's kind, events and story, or 404."""
    events = list(services().log.events(game))
    if not events or events[0].kind is not EventKind.GAME_STARTED:
        abort(404, f"no game {game} in the log")
    kind = header_kind(events[0].payload)
    return kind, events, _logged(kind, events)


def _disputes(events: list[Event]) -> list[dict[str, Any]]:
    """The flagged readings of a game, each with the photo of the reading judged."""
    disputes = []
    photo = None
    for e in events:
        if e.kind is EventKind.READING:
            photo = e.photo
        elif e.kind is EventKind.VERDICT and e.payload.get("outcome") in ("dispute", "desync"):
            disputes.append({**e.payload, "after_photo": photo})
    return disputes


@bp.get(f"/history/<int(max={SQLITE_MAX_INTEGER}):game>")
def replay(game: int) -> str:
    kind, events, logged = _game_events(game)
    if logged.steps == 0 and logged.record is None:
        abort(404, f"game {game} has no replay")
    total = logged.steps
    step = request.args.get("step", type=int)
    step = total if step is None else max(0, min(step, total))
    view = kit_for(kind).replayed_view(events, step, operator=is_operator())
    view["status"] = "replay"
    view["game_kind"] = kind
    return render_template(
        "replay.html",
        step=step,
        total=total,
        game=game,
        events=events,
        disputes=_disputes(events),
        part=template_of(view["game_kind"], "replay"),
        **page_context(view),
    )


@bp.get(f"/history/<int(max={SQLITE_MAX_INTEGER}):game>/record.jsonl")
def export(game: int) -> Response:
    """The game as a game record (JSON Lines), for `companion check` or another table."""
    _, _, logged = _game_events(game)
    if logged.record is None:
        abort(404, f"game {game} has no game record")
    if logged.ended is None and not is_operator():  # its header holds the whole aureus
        abort(403, "this game is still in play: its record is for the operator until it ends")
    body = "\n".join(logged.record) + "\n"
    return Response(
        body,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="game-{game}.jsonl"'},
    )


def _ended_view(game: int) -> dict[str, Any]:
    """The table view of a game as it ended (404 if unknown or without one; the operator
    may also see a game still in play, as the record's rule goes)."""
    kind, events, logged = _game_events(game)
    if logged.ended is None and not is_operator():
        abort(403, "this game is still in play: its result is for the operator until it ends")
    if logged.steps == 0 and logged.record is None:
        abort(404, f"game {game} has no result to show")
    view = kit_for(kind).replayed_view(events, logged.steps, operator=True)
    view["status"] = "ended"
    return {**view, "game_kind": kind}


@bp.get(f"/history/<int(max={SQLITE_MAX_INTEGER}):game>/result.svg")
def result_image(game: int) -> Response:
    """The final board with the scores, as one SVG file to keep or print."""
    view = _ended_view(game)
    body = kit_for(game_kind(view)).result_image(view, game)
    if body is None:
        abort(404, f"game {game} has no result image")
    return Response(
        body,
        mimetype="image/svg+xml",
        headers={"Content-Disposition": f'attachment; filename="game-{game}-result.svg"'},
    )


@bp.get("/photo/<string:digest>.jpg")
def photo(digest: str) -> Response:
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        abort(404)
    data = services().log.photo(digest)
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "max-age=86400"})


@bp.get("/qr.svg")
def qr() -> Response:
    """A QR code to the table page, for phones at the table."""
    base = current_app.config["COMPANION"].public_url or request.host_url
    target = base.rstrip("/") + url_for("pages.phone")
    buffer = io.BytesIO()
    segno.make(target, error="m").save(buffer, kind="svg", scale=6, dark="#222", light="#fff")
    return Response(buffer.getvalue(), mimetype="image/svg+xml")
