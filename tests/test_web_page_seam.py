"""The page seam: a game the dashboard has never heard of gets its pages through the registry.

A small game registered for this process only brings no page kit; the setup picker offers it,
and its view renders on the TV, phone and table through the plain kit, every value escaped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, render_template

from companion.games import registry
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.game_pages import installed_kits, kit_for, template_of

TOKEN = "seam-pin"


class CountingGame:
    """Players take turns adding to a total; only its name and title matter to the pages."""

    name = "counting"
    title = "Counting <to> 21"

    def referee(self) -> Any:
        raise NotImplementedError

    def pages(self) -> Any:
        raise NotImplementedError

    def commands(self) -> Any:
        raise NotImplementedError

    def cafe(self) -> Any:
        raise NotImplementedError


VIEW = {
    "game_kind": "counting",
    "status": "playing",
    "version": 7,
    "total": 13,
    "turn": "<b>Ann</b>",
    "players": [{"name": "<b>Ann</b>", "added": 8}, {"name": "Bo & Co", "added": 5}],
}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    registry.register(CountingGame())
    log = GameLog(tmp_path / "table.db")
    config = WebConfig(operator_token=TOKEN, secret_key="k")
    yield create_app(config, Services(TableSession(log, RecordingLights()), log))
    registry.unregister("counting")
    log.close()


def test_a_registered_game_is_offered_by_the_setup_picker(app: Flask) -> None:
    client = app.test_client()
    page = client.get("/setup").get_data(as_text=True)
    assert 'data-game="counting"' in page and "Counting &lt;to&gt; 21" in page
    page = client.get("/setup?game=counting").get_data(as_text=True)
    assert '<input type="hidden" name="game" value="counting">' in page
    assert '<textarea name="request"' in page


@pytest.mark.parametrize("part", ["table", "tv", "phone", "replay"])
def test_its_view_renders_on_every_page_with_every_value_escaped(app: Flask, part: str) -> None:
    assert "counting" in installed_kits()
    kit = kit_for("counting")
    with app.test_request_context("/"):
        page = render_template(template_of("counting", part), **kit.context(VIEW, operator=False))
    assert 'data-status="playing"' in page and 'data-version="7"' in page
    assert '<dd data-key="total">13</dd>' in page
    rows = re.findall(r'<tr data-row="\d">(.*?)</tr>', page)
    assert rows == [
        "<td>&lt;b&gt;Ann&lt;/b&gt;</td><td>8</td>",
        "<td>Bo &amp; Co</td><td>5</td>",
    ]
    assert "<b>" not in page


def test_its_stylesheet_is_served(app: Flask) -> None:
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert 'href="/games/counting/static/plain.css"' in page
    with client.get("/games/counting/static/plain.css") as answer:
        assert answer.status_code == 200 and answer.mimetype == "text/css"
