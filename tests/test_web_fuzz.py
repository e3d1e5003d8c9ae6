"""No input makes the dashboard or the café hub answer 500: every endpoint, fuzzed.

The endpoints come from each app's URL map, so a route added later is fuzzed without
touching this file.  Each example sends one request to every endpoint: random methods,
path values, query strings, headers and bodies (JSON, hostile JSON, forms, raw bytes), once
as a stranger and once with the operator token, against a table with a game in play and
an Ides of March game beside it.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ides_driver import IdesDriver
from jinja2.bccache import Bucket, BytecodeCache
from werkzeug.routing import AnyConverter, IntegerConverter, Rule

from companion.cafe.hub_web import create_hub_app
from companion.cafe.room import Room
from companion.fuzz.live_table import FuzzedTables, by_path
from companion.games import registry
from companion.games.ides import Dice
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.game_routes import GameName

TOKEN = "fuzz-token"
NEW_GAME = {
    "board": "troia",
    "variant": "emperor",
    "seats": [{"name": "Ana", "colours": ["B", "G"]}, {"name": "Ben", "colours": ["Y", "R"]}],
}
FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

KEYS = ["board", "variant", "seats", "ghost", "first_seat", "vat", "action", "players",
        "name", "colours", "cells", "workers", "rows", "cols", "kind", "face", "pin",
        "csrf_token", "choice", "player", "step"]  # fmt: skip
LATIN1 = st.characters(min_codepoint=32, max_codepoint=255, exclude_characters="\x7f")
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["B", "Gv", "Rd", "?", "troia", "haruspex", "." * 16, "B" * 16]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=17), st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)
    ),
    max_leaves=40,
)
HOSTILE_BODIES = st.sampled_from(
    [
        "[" * 30000 + "]" * 30000,
        '{"board": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"vat": Infinity}',
        '{"vat": NaN}',
        '{"vat": 1e999}',
        '{"vat": 1.9}',
        '{"vat": ' + "9" * 5000 + "}",
        '{"first_seat": ' + "9" * 30 + "}",
        '{"action": {"kind": "roll", "face": 6}}',
        "\ufeff{}",
        '"\\ud800"',
        "{",
    ]
)


def _text_body(draw: st.DrawFn, csrf: str) -> tuple[bytes, str | None]:
    kind = draw(st.sampled_from(["none", "json", "hostile", "form", "bytes"]))
    if kind == "none":
        return b"", None
    if kind == "json":
        return json.dumps(draw(JSON_VALUES)).encode(), "application/json"
    if kind == "hostile":
        return draw(HOSTILE_BODIES).encode("utf-8", "surrogatepass"), "application/json"
    if kind == "form":
        fields = draw(st.dictionaries(st.sampled_from(KEYS), st.text(max_size=60), max_size=6))
        if _mostly(draw):
            fields["csrf_token"] = csrf
        body = "&".join(f"{quote(k)}={quote(v)}" for k, v in fields.items())
        return body.encode(), "application/x-www-form-urlencoded"
    content_type = draw(
        st.sampled_from([None, "application/json", "multipart/form-data; boundary=x", "text/plain"])
    )
    return draw(st.binary(max_size=200)), content_type


def _mostly(draw: st.DrawFn) -> bool:
    """True four times in five: most requests should reach the view, not a 404 or 405."""
    return draw(st.integers(min_value=0, max_value=4)) > 0


def _path_value(draw: st.DrawFn, converter: Any) -> str:
    if isinstance(converter, GameName) and _mostly(draw):
        return str(draw(st.sampled_from(sorted(registry.games()))))
    if isinstance(converter, AnyConverter) and _mostly(draw):
        return str(draw(st.sampled_from(sorted(converter.items))))
    if isinstance(converter, IntegerConverter) and _mostly(draw):
        edges = st.sampled_from([0, 1, 2, -1, 2**63 - 1, 2**63, 2**64, 10**40])
        return str(draw(edges | st.integers(min_value=-(2**70), max_value=2**70)))
    return quote(draw(st.text(min_size=1, max_size=30)), safe="")


@st.composite
def fuzzed_request(draw: st.DrawFn, rule: Rule, csrf: str = "") -> dict[str, Any]:
    """Keyword arguments for ``client.open`` aimed at ``rule``; most forms carry ``csrf``,
    the browser session's CSRF token, so that the fuzz gets past the CSRF check."""
    path = rule.rule
    for name, converter in rule._converters.items():
        path = re.sub(rf"<[^>]*\b{name}>", _path_value(draw, converter), path, count=1)
    own = sorted((rule.methods or set()) - {"OPTIONS"})
    methods = own if _mostly(draw) else ["OPTIONS", "PUT", "DELETE", "PATCH", *own]
    body, content_type = _text_body(draw, csrf)
    headers = draw(
        st.dictionaries(
            st.sampled_from(
                [
                    "X-Companion-Token",
                    "Authorization",
                    "X-CSRF-Token",
                    "Accept",
                    "Cookie",
                    "X-Forwarded-For",
                    "Range",
                    "If-None-Match",
                ]
            ),
            st.text(LATIN1, max_size=60),
            max_size=3,
        )
    )
    if content_type:
        headers["Content-Type"] = content_type
    query = draw(st.dictionaries(st.sampled_from(KEYS), st.text(max_size=30), max_size=3))
    return {
        "path": path,
        "method": draw(st.sampled_from(methods)),
        "query_string": query,
        "headers": headers,
        "data": body,
    }


def browser(app: Flask, address: str, pin: str | None = None) -> tuple[FlaskClient, str]:
    """A client from ``address`` holding a session (logged in with ``pin`` if given) and
    that session's CSRF token."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    page = client.get("/login").get_data(as_text=True)
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found is not None
    if pin is None:
        return client, found[1]
    assert client.post("/login", data={"pin": pin, "csrf_token": found[1]}).status_code == 302
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/").get_data(as_text=True))
    assert found is not None
    return client, found[1]


def assert_no_server_error(client: FlaskClient, request: dict[str, Any]) -> None:
    response = client.open(**request)
    try:
        if response.mimetype != "text/event-stream":
            response.get_data()
        assert response.status_code < 500, (request, response.status_code)
    finally:
        response.close()


class _CompiledTemplates(BytecodeCache):
    """Templates compiled once for every example's fresh app, not once per app."""

    def __init__(self) -> None:
        self._compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self._compiled:
            bucket.bytecode_from_string(self._compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED = _CompiledTemplates()


@contextmanager
def table_app() -> Iterator[Flask]:
    """A fresh dashboard per example (so a failure replays exactly): a Garum game in play
    and an Ides of March game beside it, each with its own real SQLite log."""
    with tempfile.TemporaryDirectory() as folder:
        log = GameLog(Path(folder) / "table.db")
        ides_log = GameLog(Path(folder) / "ides.db")
        ides = IdesDriver(ides_log, dice=Dice.seeded(5), roll_s=0)
        ides.new_game(["Livia", "Marcus"])
        session = TableSession(log, RecordingLights(), rng=random.Random(3))
        config = WebConfig(operator_token=TOKEN, secret_key="fuzz", sse_heartbeat_s=0.05)
        app = create_app(config, Services(session, log))
        ides_app = create_app(config, Services(ides.session, ides_log))
        app.wsgi_app = by_path({"ides": ides_app.wsgi_app}, app.wsgi_app)  # type: ignore[method-assign]
        app.jinja_env.bytecode_cache = COMPILED
        started = app.test_client().post(
            "/api/new_game", json=NEW_GAME, headers={"X-Companion-Token": TOKEN}
        )
        assert started.status_code == 200
        try:
            yield app
        finally:
            ides.close()
            ides_log.close()
            log.close()


@FUZZ
@given(data=st.data())
def test_no_endpoint_answers_500_to_a_stranger(data: st.DataObject) -> None:
    with table_app() as app:
        client, csrf = browser(app, "10.0.0.66")
        for rule in app.url_map.iter_rules():
            assert_no_server_error(client, data.draw(fuzzed_request(rule, csrf)))


@FUZZ
@given(data=st.data())
def test_no_endpoint_answers_500_to_the_operator(data: st.DataObject) -> None:
    with table_app() as app:
        client, csrf = browser(app, "10.0.0.2", pin=TOKEN)
        for rule in app.url_map.iter_rules():
            request = data.draw(fuzzed_request(rule, csrf))
            if data.draw(st.booleans()):
                request["headers"]["X-Companion-Token"] = TOKEN
            else:  # the login cookie, as the dashboard's own pages send it
                request["headers"].pop("X-Companion-Token", None)
                request["headers"].pop("Authorization", None)
                request["headers"]["X-CSRF-Token"] = csrf
            assert_no_server_error(client, request)


@FUZZ
@given(data=st.data())
def test_no_hub_endpoint_answers_500(data: st.DataObject) -> None:
    app = create_hub_app(Room())
    client = app.test_client()
    for rule in app.url_map.iter_rules():
        assert_no_server_error(client, data.draw(fuzzed_request(rule)))


def test_the_live_table_plays_every_game_each_at_its_own_paths(tmp_path: Path) -> None:
    table = FuzzedTables(tmp_path, 4, TOKEN)
    try:
        client = table.app.test_client()
        assert set(table.tables) == set(registry.games())
        for name, game_table in table.tables.items():
            assert game_table.session.state.value == "playing", name
        assert client.get("/api/ides/state").get_json()["game_kind"] == "ides"
        assert "Aulus" in client.get("/ides").get_data(as_text=True)  # its simulated players
        assert client.get("/api/state").get_json()["game_kind"] == registry.DEFAULT_GAME
        before = {name: t.session.snapshot()["version"] for name, t in table.tables.items()}
        for _ in range(3):
            table.advance(random.Random(9))
        after = {name: t.session.snapshot()["version"] for name, t in table.tables.items()}
        assert all(after[name] > before[name] for name in table.tables), (before, after)
    finally:
        table.close()
