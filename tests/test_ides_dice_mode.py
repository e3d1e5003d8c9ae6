"""Who throws the dice: the companion (electronic mode, no face may be named) or the players
with real dice (physical mode, the operator enters each face); the mode is chosen at setup
and kept in the log."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from ides_driver import IdesDriver
from run_helpers import refused_run
from test_ides_web import HEADERS, login, make_app

from companion.devices.buttons import Button, ButtonAction, ButtonEvent, Buttons, FakePins
from companion.errors import InputError
from companion.games.ides import (
    Bribe,
    CardDone,
    DiceFaces,
    DiceMode,
    DrawCard,
    DrawFreeTile,
    Face,
    FateRoll,
    IllegalAction,
    Move,
    Phase,
    Roll,
    Rule,
    Square,
    action_to_dict,
)
from companion.games.ides.buttons import IDES_PINS, IdesButtons
from companion.games.ides.dice import Die
from companion.table.log import EventKind, GameLog

FREE_TILE = action_to_dict(DrawFreeTile(to_stockpile=True))


@pytest.fixture
def log(tmp_path: Path) -> Iterator[GameLog]:
    with GameLog(tmp_path / "ides.db") as log:
        yield log


@pytest.fixture
def table(log: GameLog) -> Iterator[IdesDriver]:
    table = IdesDriver(log, roll_s=0)
    yield table
    table.close()


@pytest.fixture
def client(tmp_path: Path, table: IdesDriver) -> FlaskClient:
    return make_app(tmp_path, table).test_client()


def post(client: FlaskClient, url: str, body: object) -> tuple[int, dict[str, object]]:
    answer = client.post(url, json=body, headers=HEADERS)
    return answer.status_code, answer.get_json()


def header_of(log: GameLog, game_id: int) -> dict[str, object]:
    return next(e.payload for e in log.events(game_id) if e.kind is EventKind.GAME_STARTED)


def test_electronic_dice_refuse_a_roll_that_names_its_face(
    client: FlaskClient, table: IdesDriver
) -> None:
    """Electronic mode: whatever the caller asks for, the face comes from the companion."""
    status, _ = post(client, "/api/ides/new_game", {"players": ["Ann", "Bo"]})
    assert status == 200 and table.dice_mode is DiceMode.ELECTRONIC
    assert post(client, "/api/ides/act", {"action": FREE_TILE})[0] == 200
    applied = table.actions_applied
    chosen = {"kind": "roll", "die": "orange", "face": "purple"}
    status, body = post(client, "/api/ides/act", {"action": chosen})
    assert status == 400
    assert "action.face" in str(body["error"]) and "cannot name its face" in str(body["error"])
    assert table.actions_applied == applied  # nothing applied, nothing logged
    status, body = post(client, "/api/ides/act", {"action": {"kind": "roll", "die": "orange"}})
    assert status == 200
    thrown = body["action"]
    assert isinstance(thrown, dict) and thrown["face"] in ("green", "red", "yellow", "purple")


def test_electronic_dice_refuse_named_faces_on_bribes_and_fate_rolls(table: IdesDriver) -> None:
    table.new_game(["Ann", "Bo"])
    for action in (Roll(Die.ORANGE, Face.GREEN), Bribe(Face.GREEN), FateRoll(1, Face.RED)):
        with pytest.raises(InputError) as exc:
            table.act(action)
        assert exc.value.field == "action.face"
    assert table.actions_applied == 0


def test_physical_dice_take_the_face_entered_and_the_log_says_so(
    client: FlaskClient, table: IdesDriver, log: GameLog
) -> None:
    status, body = post(
        client, "/api/ides/new_game", {"players": ["Ann", "Bo"], "dice_mode": "physical"}
    )
    assert status == 200
    game_id = table.game_id
    assert game_id is not None and header_of(log, game_id)["dice_mode"] == "physical"
    assert post(client, "/api/ides/act", {"action": FREE_TILE})[0] == 200
    state = client.get("/api/ides/state").get_json()
    assert state["dice_mode"] == "physical"
    offered = [c["action"] for c in state["choices"] if c["action"]["kind"] == "roll"]
    assert [c["face"] for c in offered] == ["green", "red", "yellow", "purple"]
    status, body = post(client, "/api/ides/act", {"action": {"kind": "roll", "die": "orange"}})
    assert status == 400 and "enter the face" in str(body["error"])
    status, body = post(
        client, "/api/ides/act", {"action": {"kind": "roll", "die": "orange", "face": "blue"}}
    )
    assert status == 400 and "action.face" in str(body["error"])
    roll = {"kind": "roll", "die": "orange", "face": "purple"}
    status, body = post(client, "/api/ides/act", {"action": roll})
    assert status == 200 and body["action"] == roll
    assert table.game is not None and table.game.phase is Phase.ACTION
    logged = [e.payload["action"] for e in log.events(game_id) if e.kind is EventKind.ACTION]
    assert logged[-1] == roll
    resumed = IdesDriver(log, roll_s=0)
    assert resumed.dice_mode is DiceMode.PHYSICAL and resumed.game == table.game
    resumed.close()


def test_physical_dice_check_the_face_against_the_die(table: IdesDriver) -> None:
    """The purple die has no yellow face: entering one is a rules refusal, not a throw."""
    table.new_game(["Ann", "Bo"], dice_mode=DiceMode.PHYSICAL)
    table.act(DrawFreeTile(to_stockpile=True))
    table.act(Roll(Die.ORANGE, Face.PURPLE))
    table.act(Move(Square.PODIUM))
    table.act(DrawCard(2))
    table.act(CardDone())
    assert table.game is not None and table.game.phase is Phase.PURPLE
    faces = [a.face for a in table.choices() if isinstance(a, Roll)]
    assert faces == [Face.GREEN, Face.RED, Face.PURPLE]
    with pytest.raises(IllegalAction) as exc:
        table.act(Roll(Die.PURPLE, Face.YELLOW))
    assert exc.value.code is Rule.NOT_A_FACE


def test_a_log_from_before_the_choice_resumes_with_electronic_dice(log: GameLog) -> None:
    header = {
        "game": "ides",
        "format": "companion-ides-log/1",
        "players": ["Ann", "Bo"],
        "first_seat": 0,
        "dice": DiceFaces().to_dict(),
    }
    log.start_game(header)
    table = IdesDriver(log, roll_s=0)
    assert table.dice_mode is DiceMode.ELECTRONIC and table.game is not None
    table.close()


def test_an_unknown_dice_mode_is_refused_and_names_the_field(
    client: FlaskClient, table: IdesDriver
) -> None:
    status, body = post(
        client, "/api/ides/new_game", {"players": ["Ann", "Bo"], "dice_mode": "loaded"}
    )
    assert status == 400 and "dice_mode" in str(body["error"])
    assert table.game is None


def test_the_page_sets_up_physical_dice_and_offers_each_face(
    client: FlaskClient, table: IdesDriver
) -> None:
    csrf = login(client)
    form = {"player": ["Ann", "Bo"], "dice_mode": "physical", "csrf_token": csrf}
    assert client.post("/ides/new", data=form).status_code == 302
    assert table.dice_mode is DiceMode.PHYSICAL
    table.act(DrawFreeTile(to_stockpile=True))
    page = client.get("/ides").get_data(as_text=True)
    assert 'data-dice-mode="physical"' in page
    choices = re.search(r'<select name="choice".*?</select>', page, re.S)
    assert choices is not None
    for face in ("green", "red", "yellow", "purple"):
        assert f"Roll the orange die: {face}" in choices[0]
    # a roll without its face, posted through the form, is refused in words
    answer = client.post(
        "/ides/act",
        data={"choice": '{"kind":"roll","die":"orange"}', "csrf_token": csrf},
        follow_redirects=True,
    )
    assert "enter the face the die shows" in answer.get_data(as_text=True)
    assert table.actions_applied == 1


def test_the_roll_button_points_physical_dice_to_the_face_choices(table: IdesDriver) -> None:
    table.new_game(["Ann", "Bo"], dice_mode=DiceMode.PHYSICAL)
    table.act(DrawFreeTile(to_stockpile=True))
    buttons = IdesButtons(table.press, Buttons(FakePins(), IDES_PINS))
    said = buttons.handle(ButtonEvent(Button.ROLL, ButtonAction.PRESSED, 0.0))
    assert said.startswith("refused: physical dice")
    assert table.game is not None and table.game.phase is Phase.TURN_CHOICE
    buttons.handle(ButtonEvent(Button.NEXT, ButtonAction.PRESSED, 0.0))
    chosen = table.highlighted()
    buttons.handle(ButtonEvent(Button.CONFIRM, ButtonAction.PRESSED, 0.0))
    assert isinstance(chosen, Roll) and chosen.face is not None
    assert table.game.rolls[-1].face is chosen.face


def test_a_run_config_with_an_unknown_dice_mode_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        'data_dir = "data"\n[game]\ngame = "ides"\nplayers = ["A", "B"]\ndice_mode = "zz"\n'
    )
    stderr = refused_run(config)
    assert "game.dice_mode" in stderr and "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1
