"""Server-rendered pages: the table, the TV kiosk, the phone view, setup, history, replay."""

from __future__ import annotations

import io
from dataclasses import replace
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
    url_for,
)

from companion.boards.profile import BoardProfile, load_profile
from companion.bounded_json import loads_bounded
from companion.errors import CompanionError
from companion.games.garum.history import fold
from companion.games.garum.lights import LightStatus, TurnLights
from companion.games.garum.replay import export_lines, game_at
from companion.games.garum.rules import COLOUR_NAMES
from companion.games.garum.view import table_view, viewer_view
from companion.table.log import EventKind
from companion.web.api import caller_view, perform
from companion.web.auth import csrf_required, is_operator, log_in, log_out, operator_required
from companion.web.board_svg import board_svg
from companion.web.end_screen import action_message
from companion.web.result_image import result_svg
from companion.web.services import services
from companion.web.validate import SQLITE_MAX_INTEGER

bp = Blueprint("pages", __name__)

LIVE_VIEWS = ("table", "tv", "phone")


def _profile(view: dict[str, Any]) -> BoardProfile:
    name = view["setup"]["board"] if view.get("setup") else "troia"
    return load_profile(name)


def board_context(view: dict[str, Any]) -> dict[str, Any]:
    """The SVG boards a view needs: the validated board, and the observed one when flagged."""
    profile = _profile(view)
    turn = view.get("turn") or {}
    flag = view.get("flag")
    boards = {
        "board_svg": board_svg(
            profile,
            view["board"],
            active_vat=turn.get("vat"),
            legal_cells=turn.get("legal_cells", ()),
            legal_lines=turn.get("legal_worker_spaces", ()),
            flagged_cells=flag["cells"] if flag else (),
            flagged_lines=flag["lines"] if flag else (),
            title="The validated board",
        )
    }
    if flag:
        boards["observed_svg"] = board_svg(
            profile,
            flag["observed"],
            flagged_cells=flag["cells"],
            flagged_lines=flag["lines"],
            title="What the camera sees",
        )
    if flag and is_operator():
        boards["editor_svg"] = board_svg(
            profile,
            flag["observed"],
            flagged_cells=flag["cells"],
            flagged_lines=flag["lines"],
            title="Correct the reading: click cells and worker spaces",
            editable=True,
        )
    return {
        "v": view,
        "colour_names": COLOUR_NAMES,
        "profile": profile,
        "species_colours": profile.colours.species,
        **boards,
    }


@bp.get("/")
def table() -> str:
    return render_template("table.html", kind="table", **board_context(caller_view()))


@bp.get("/tv")
def tv() -> str:
    return render_template("tv.html", kind="tv", **board_context(caller_view()))


@bp.get("/phone")
def phone() -> str:
    return render_template("phone.html", kind="phone", **board_context(caller_view()))


@bp.get("/live/<any(table, tv, phone):kind>")
def live(kind: str) -> str:
    """The changing part of a page, fetched again on every server-sent event.

    Every viewer (not the operator, whose copy has forms) gets the same HTML for a
    version, so it is rendered once per change, not once per phone.
    """
    view = caller_view()
    if is_operator():
        return render_template(f"_{kind}.html", kind=kind, **board_context(view))
    cache: dict[tuple[str, int], str] = current_app.extensions["companion_partials"]
    key = (kind, int(view["version"]))
    html = cache.get(key)
    if html is None:
        html = render_template(f"_{kind}.html", kind=kind, **board_context(view))
        if len(cache) > 16:
            cache.clear()
        cache[key] = html
    return html


@bp.get("/login")
def login_form() -> str:
    return render_template("login.html")


@bp.post("/login")
@csrf_required
def login() -> Any:
    if log_in(request.form.get("pin", "")):
        return redirect(url_for("pages.table"))
    return render_template("login.html", failed=True), 401


@bp.post("/logout")
@csrf_required
def logout() -> Any:
    log_out()
    return redirect(url_for("pages.table"))


def _game_in_play() -> bool:
    return services().table.snapshot().get("status") not in ("setup", "ended")


@bp.get("/setup")
def setup_form() -> Any:
    return render_template("setup.html", colour_names=COLOUR_NAMES, in_play=_game_in_play())


def _form_new_game() -> dict[str, Any]:
    seats = []
    for i in range(4):
        name = request.form.get(f"name{i}", "").strip()
        colours = [c for c in request.form.getlist(f"colours{i}") if c]
        if name or colours:
            seats.append({"name": name, "colours": colours})
    ghost = request.form.get("ghost") or None
    try:
        first = int(request.form.get("first_seat", "0"))
    except ValueError:
        first = -1
    return {
        "board": request.form.get("board", "troia"),
        "variant": request.form.get("variant", "standard"),
        "seats": seats,
        "ghost": ghost,
        "first_seat": first,
    }


@bp.post("/operator/<any(new_game, accept, correct, undo, end, choose_vat, acknowledge):action>")
@operator_required
def operator_form(action: str) -> Any:
    """The dashboard's buttons; errors come back as a message on the page."""
    try:
        if action == "new_game":
            data = _form_new_game()
        elif action == "correct":
            data = {"board": loads_bounded(request.form.get("board", ""), source="board")}
        else:
            data = dict(request.form)
        result = perform(action, data, from_form=True)
    except CompanionError as exc:
        flash(str(exc), "error")
        if action == "new_game":
            return render_template(
                "setup.html", colour_names=COLOUR_NAMES, form=request.form, in_play=_game_in_play()
            ), 400
    else:
        flash(action_message(action, result), "ok")
    return redirect(url_for("pages.table"))


@bp.get("/history")
def history() -> str:
    log = services().log
    games = []
    for start in log.games():
        h = fold(log.events(start.game))
        games.append({"game": start.game, "header": start.payload, "turns": len(h.boards),
                      "ended": h.ended, "at_s": start.at_s, "seal": h.end_hash})  # fmt: skip
    return render_template("history.html", games=games[::-1], verification=log.verify())


@bp.get(f"/history/<int(max={SQLITE_MAX_INTEGER}):game>")
def replay(game: int) -> str:
    log = services().log
    events = list(log.events(game))
    if not events or events[0].kind is not EventKind.GAME_STARTED:
        abort(404, f"no game {game} in the log")
    h = fold(events)
    total = len(h.steps)
    step = request.args.get("step", type=int)
    step = total if step is None else max(0, min(step, total))
    g = game_at(h, step)
    shown = replace(h, steps=h.steps[:step], flag=None)
    view = table_view("replay", g, shown, TurnLights(LightStatus.IDLE))
    if not is_operator():
        view = viewer_view(view)
    disputes = []
    photo = None
    for e in events:
        if e.kind is EventKind.READING:
            photo = e.photo
        elif e.kind is EventKind.VERDICT and e.payload.get("outcome") in ("dispute", "desync"):
            disputes.append({**e.payload, "after_photo": photo})
    return render_template(
        "replay.html",
        step=step,
        total=total,
        game=game,
        events=events,
        disputes=disputes,
        **board_context(view),
    )


@bp.get(f"/history/<int(max={SQLITE_MAX_INTEGER}):game>/record.jsonl")
def export(game: int) -> Response:
    """The game as a game record (JSON Lines), for `companion check` or another table."""
    events = list(services().log.events(game))
    if not events or events[0].kind is not EventKind.GAME_STARTED:
        abort(404, f"no game {game} in the log")
    history = fold(events)
    if history.ended is None and not is_operator():  # its header holds the whole aureus
        abort(403, "this game is still in play: its record is for the operator until it ends")
    body = "\n".join(export_lines(history)) + "\n"
    return Response(
        body,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="game-{game}.jsonl"'},
    )


def _ended_view(game: int) -> dict[str, Any]:
    """The table view of a game as it ended (404 if unknown; the operator may also see a
    game still in play, as the record's rule goes)."""
    events = list(services().log.events(game))
    if not events or events[0].kind is not EventKind.GAME_STARTED:
        abort(404, f"no game {game} in the log")
    h = fold(events)
    if h.ended is None and not is_operator():
        abort(403, "this game is still in play: its result is for the operator until it ends")
    g = game_at(h, len(h.steps))
    return table_view("ended", g, replace(h, flag=None), TurnLights(LightStatus.IDLE))


@bp.get(f"/history/<int(max={SQLITE_MAX_INTEGER}):game>/result.svg")
def result_image(game: int) -> Response:
    """The final board with the scores, as one SVG file to keep or print."""
    view = _ended_view(game)
    body = result_svg(_profile(view), view, game)
    return Response(
        str(body),
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
