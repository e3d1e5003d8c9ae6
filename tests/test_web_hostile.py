"""The dashboard against hostile requests: sizes, bounds, guessers, stale cookies, headers."""

from __future__ import annotations

import io
import json
import random
import re
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from ides_driver import IdesDriver
from werkzeug.test import EnvironBuilder, run_wsgi_app

from companion.cafe.hub_web import create_hub_app
from companion.cafe.room import Room
from companion.errors import InputError
from companion.fuzz.live_table import by_path
from companion.games.ides import Dice
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.auth import LoginThrottle
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

TOKEN = "s3cret-pin"
HEADERS = {"X-Companion-Token": TOKEN}
NEW_GAME = {
    "board": "troia",
    "variant": "emperor",
    "seats": [{"name": "Ana", "colours": ["B", "G"]}, {"name": "Ben", "colours": ["Y", "R"]}],
}
OPERATOR, GUESSER = "192.168.1.20", "192.168.1.66"


@pytest.fixture
def session(tmp_path: Path) -> Iterator[TableSession]:
    log = GameLog(tmp_path / "table.db")
    yield TableSession(log, RecordingLights(), rng=random.Random(4))
    log.close()


def make_app(session: TableSession, **config: object) -> Flask:
    settings = WebConfig(operator_token=TOKEN, secret_key="test-key", sse_heartbeat_s=0.2)
    return create_app(replace(settings, **config), Services(session, session.log))


@pytest.fixture
def app(session: TableSession) -> Flask:
    return make_app(session)


def device(app: Flask, address: str) -> FlaskClient:
    """A client whose requests come from ``address``, as a phone on the café Wi-Fi."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def csrf(client: FlaskClient, page: str = "/login") -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', client.get(page).get_data(as_text=True))
    assert match
    return match.group(1)


def login(client: FlaskClient, pin: str = TOKEN) -> int:
    return client.post("/login", data={"pin": pin, "csrf_token": csrf(client)}).status_code


# ------------------------------------------------------------------------- sizes and bounds


def test_a_300_mb_form_to_login_is_refused_without_being_read(session: TableSession) -> None:
    """The declared length alone earns the 413: the server answers while the client has sent
    a few bytes of its 300 MB, so nothing was read into memory (it would wait otherwise)."""
    with (
        DashboardServer(make_app(session)) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw,
    ):
        raw.sendall(
            b"POST /login HTTP/1.1\r\nHost: table\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 300000000\r\n\r\npin=0000&pin=0000"
        )
        status_line = raw.makefile("rb").readline()
    assert status_line.split()[1] == b"413"


class EndlessBody(io.RawIOBase):
    """A chunked upload that never ends, counting what the server reads of it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        buffer[:] = b" " * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


def chunked_post(app: Flask, path: str, body: io.RawIOBase) -> tuple[str, bytes]:
    """POSTs ``body`` as a server does a chunked upload: no length, a terminated stream."""
    environ = EnvironBuilder(
        path=path, method="POST", headers={**HEADERS, "Content-Type": "application/json"}
    ).get_environ()
    environ.pop("CONTENT_LENGTH", None)
    environ.update({"wsgi.input": io.BufferedReader(body), "wsgi.input_terminated": True})
    answer, status, _ = run_wsgi_app(app, environ)
    return status, b"".join(answer)


def test_a_chunked_upload_is_cut_off_at_the_limit(app: Flask) -> None:
    endless = EndlessBody()
    status, answer = chunked_post(app, "/api/new_game", endless)
    assert status.startswith("413") and b"chunked request body too long" in answer
    assert endless.read_bytes <= 64 * 1024 + io.DEFAULT_BUFFER_SIZE


def test_a_small_chunked_upload_reaches_the_view(app: Flask) -> None:
    body = io.BytesIO(json.dumps(NEW_GAME).encode())
    status, answer = chunked_post(app, "/api/new_game", body)
    assert status.startswith("200"), answer


def test_the_body_limit_comes_from_the_environment(session: TableSession) -> None:
    config = WebConfig.from_env({"COMPANION_MAX_BODY_BYTES": "5000"})
    client = create_app(config, Services(session, session.log)).test_client()
    headers = {"X-Companion-Token": config.operator_token, "Content-Type": "application/json"}
    big = client.post("/api/new_game", data=b" " * 6000, headers=headers)
    assert big.status_code == 413 and "at most 5000 bytes" in big.get_json()["error"]
    small = client.post("/api/new_game", data=b" " * 4000, headers=headers)
    assert small.status_code == 400  # read and judged: not a JSON object
    assert WebConfig.from_env({}).max_body_bytes == 64 * 1024
    for bad in ("lots", "12", "9" * 5000, "-1"):
        with pytest.raises(InputError, match="COMPANION_MAX_BODY_BYTES"):
            WebConfig.from_env({"COMPANION_MAX_BODY_BYTES": bad})


def test_the_cafe_hub_refuses_large_bodies_too() -> None:
    response = create_hub_app(Room()).test_client().get("/", data=b"x" * 100_000)
    assert response.status_code == 413


def test_deep_json_is_a_clear_400_on_every_json_endpoint(tmp_path: Path) -> None:
    garum, ides_log = GameLog(tmp_path / "table.db"), GameLog(tmp_path / "ides.db")
    ides = IdesDriver(ides_log, dice=Dice.seeded(2), roll_s=0)
    ides.new_game(["Livia", "Marcus"])
    config = WebConfig(operator_token=TOKEN, secret_key="k")
    app = create_app(config, Services(TableSession(garum, RecordingLights()), garum))
    ides_app = create_app(config, Services(ides.session, ides_log))
    app.wsgi_app = by_path({"ides": ides_app.wsgi_app}, app.wsgi_app)  # type: ignore[method-assign]
    client = app.test_client()
    paths = [f"/api/{action}" for action in ("new_game", "accept", "correct", "undo", "end")]
    paths += ["/api/choose_vat", "/api/ides/act", "/api/ides/new_game"]
    deep = "[" * 20000 + "]" * 20000
    for path in paths:
        response = client.post(
            path, data=deep, headers={**HEADERS, "Content-Type": "application/json"}
        )
        assert response.status_code == 400, path
        assert "nested more than 32 levels deep" in response.get_json()["error"], path
    ides.close()
    ides_log.close()
    garum.close()


@pytest.mark.parametrize(
    "body",
    [
        '{"vat": Infinity}',
        '{"vat": NaN}',
        '{"vat": 1e999}',
        '{"vat": 1.9}',
        '{"vat": "1.9"}',
        '{"vat": "3"}',
        '{"vat": true}',
        '{"vat": 0}',
        '{"vat": 17}',
        '{"vat": ' + "9" * 5000 + "}",
        '{"vat": [7]}',
    ],
)
def test_a_vat_must_be_a_whole_number_of_the_board(app: Flask, body: str) -> None:
    client = app.test_client()
    assert client.post("/api/new_game", json=NEW_GAME, headers=HEADERS).status_code == 200
    response = client.post(
        "/api/choose_vat", data=body, headers={**HEADERS, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    error = response.get_json()["error"]
    reasons = ("whole number 1-16", "too large", "not a JSON number", "digits (at most", "not text")
    assert any(reason in error for reason in reasons), error
    assert client.get("/api/state").get_json()["turn"]["vat"] is None  # nothing chosen


def test_a_vat_from_the_form_is_taken_as_typed(app: Flask, session: TableSession) -> None:
    client = app.test_client()
    assert client.post("/api/new_game", json=NEW_GAME, headers=HEADERS).status_code == 200
    assert (
        client.post("/operator/choose_vat", data={"vat": "7"}, headers=HEADERS).status_code == 302
    )
    assert session.snapshot()["turn"]["vat"] == 7


def test_game_ids_beyond_the_log_are_404_for_anyone(app: Flask) -> None:
    client = app.test_client()
    for game in (2**63, 2**64, 10**40):
        assert client.get(f"/history/{game}").status_code == 404
        assert client.get(f"/history/{game}/record.jsonl").status_code == 404


def test_a_correction_must_fit_in_the_box(app: Flask, session: TableSession) -> None:
    client = app.test_client()
    assert client.post("/api/new_game", json=NEW_GAME, headers=HEADERS).status_code == 200
    assert client.post("/api/choose_vat", json={"vat": 1}, headers=HEADERS).status_code == 200
    all_blue = {"board": {"cells": ["B" * 16] * 16}}
    response = client.post("/api/correct", json=all_blue, headers=HEADERS)
    assert response.status_code == 400
    assert "64 blue tiles on the board, but the game has only 16" in response.get_json()["error"]
    assert session.snapshot()["turn"]["number"] == 1  # nothing was recorded


def test_a_worker_space_holding_a_list_is_a_clear_400(app: Flask) -> None:
    # A list where a worker code goes once reached a set lookup and raised TypeError (500).
    client = app.test_client()
    assert client.post("/api/new_game", json=NEW_GAME, headers=HEADERS).status_code == 200
    workers = {"rows": [None] * 16, "cols": [None] * 3 + [["Gv"] * 1000] + [None] * 12}
    board = {"board": {"cells": ["." * 16] * 16, "workers": workers}}
    response = client.post("/api/correct", json=board, headers=HEADERS)
    assert response.status_code == 400
    assert "board.workers.cols[3]" in response.get_json()["error"]


# -------------------------------------------------------------------------------- guessers


def test_a_guesser_cannot_lock_out_the_operator(app: Flask) -> None:
    guesser, operator = device(app, GUESSER), device(app, OPERATOR)
    for attempt in range(40):
        wrong = {"X-Companion-Token": f"guess{attempt}"}
        assert guesser.post("/api/end", headers=wrong).status_code in (401, 429)
        assert login(guesser, pin=f"{attempt:04d}") in (401, 429)
        assert operator.get("/api/state", headers=HEADERS).status_code == 200
        ok = operator.post("/api/new_game", json=NEW_GAME, headers=HEADERS)
        assert ok.status_code == 200, attempt
    assert guesser.post("/api/end", headers=HEADERS).status_code == 429  # it slowed itself
    assert login(operator) == 302


def test_the_operators_own_wrong_guesses_still_slow_it_down(app: Flask) -> None:
    operator = device(app, OPERATOR)
    for _ in range(5):
        assert login(operator, pin="0000") == 401
    assert login(operator) == 429


def test_the_throttle_remembers_a_bounded_number_of_addresses() -> None:
    throttle = LoginThrottle(attempts=2, max_addresses=100)
    for n in range(10_000):
        throttle.failed(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}")
    assert throttle.addresses == 100
    throttle.failed("10.0.39.15")  # the last address seen, now at its second failure
    assert throttle.blocked("10.0.39.15") and not throttle.blocked("10.0.0.1")


# ------------------------------------------------------------------------------- sessions


def test_logging_out_ends_the_session_even_for_a_copied_cookie(app: Flask) -> None:
    browser = app.test_client()
    assert login(browser) == 302
    cookie = browser.get_cookie("session")
    assert cookie is not None
    token = csrf(browser, "/")
    assert browser.post("/logout", data={"csrf_token": token}).status_code == 302

    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    response = thief.post("/api/new_game", json=NEW_GAME, headers={"X-CSRF-Token": token})
    assert response.status_code == 401
    assert "End game" not in thief.get("/").get_data(as_text=True)


def test_a_rotated_token_ends_the_sessions_opened_with_the_old_one(app: Flask) -> None:
    browser = app.test_client()
    assert login(browser) == 302
    token = csrf(browser, "/")
    form_headers = {"X-CSRF-Token": token}
    assert browser.post("/api/new_game", json=NEW_GAME, headers=form_headers).status_code == 200

    app.config["COMPANION"] = replace(app.config["COMPANION"], operator_token="rotated-pin")
    assert browser.post("/api/end", headers=form_headers).status_code == 401
    assert login(browser, pin="rotated-pin") == 302
    token = csrf(browser, "/")
    assert browser.post("/api/end", headers={"X-CSRF-Token": token}).status_code == 200


# -------------------------------------------------------------------------------- headers


def test_both_apps_keep_the_address_out_of_referrers(app: Flask) -> None:
    hub = create_hub_app(Room()).test_client()
    for client, path in (
        (app.test_client(), "/"),
        (app.test_client(), "/api/state"),
        (hub, "/"),
        (hub, "/api/tables"),
    ):
        headers = client.get(path).headers
        assert headers["Referrer-Policy"] == "no-referrer", path
        assert headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("name", ["\ud800", "Ana\u202eneB", "Ben\x07", "\U0010fffd"])
def test_a_name_that_is_not_plain_text_is_refused_and_the_pages_still_render(
    app: Flask, name: str
) -> None:
    # A lone surrogate once reached the log and every page then failed to encode (500).
    client = app.test_client()
    game = {**NEW_GAME, "seats": [{"name": name, "colours": ["B", "G"]}, NEW_GAME["seats"][1]]}
    body = json.dumps(game)  # ensure_ascii: the surrogate travels as \\ud800, as a client sends
    response = client.post(
        "/api/new_game", data=body, headers={**HEADERS, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert "seats[0].name" in response.get_json()["error"]
    for page in ("/", "/tv", "/phone", "/history", "/api/state"):
        assert client.get(page).status_code == 200, page
