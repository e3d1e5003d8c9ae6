"""The Ides game at the table: the log and resuming (SIGKILL included), the dice on the real
LED firmware, the buttons through the fake pin backend, and the demo command end to end."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ides_driver import IdesDriver, IdesStatus, state_digest

from companion.devices.buttons import Button, Buttons, FakePins
from companion.games.ides import (
    Dice,
    DrawFreeTile,
    Game,
    IllegalAction,
    Phase,
    Promote,
    Roll,
    action_from_dict,
)
from companion.games.ides.buttons import IDES_PINS, IdesButtons
from companion.games.ides.lights import dice_faces
from companion.games.ides.simulate import choose
from companion.link.emulator import Emulator
from companion.link.host import HostLink
from companion.link.lights import StatusLight, TableLights
from companion.table.chain_key import default_key_path, open_table_log
from companion.table.log import ChainStatus, EventKind, GameLog, LogError

WRITER = Path(__file__).with_name("ides_writer.py")
ROOT = Path(__file__).resolve().parents[1]


class Recorder:
    """Keeps every picture sent, like a device that never misses one."""

    def __init__(self) -> None:
        self.shown: list[TableLights] = []

    def show(self, lights: TableLights) -> None:
        self.shown.append(lights)


@pytest.fixture
def log(tmp_path: Path) -> Iterator[GameLog]:
    with GameLog(tmp_path / "ides.db") as log:
        yield log


def play_some(table: IdesDriver, steps: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        game = table.game
        assert game is not None
        if game.over:
            return
        table.act(choose(game, rng))


# -- the log and resuming ------------------------------------------------------------------


def test_actions_are_logged_with_their_faces_and_the_game_resumes(log: GameLog) -> None:
    table = IdesDriver(log, dice=Dice.seeded(3), roll_s=0)
    table.new_game(["Ann", "Bo", "Cy"])
    play_some(table, 150, seed=4)
    events = [e for e in log.events(table.game_id) if e.kind is EventKind.ACTION]
    assert len(events) == table.actions_applied == 150
    rolls = [e.payload["action"] for e in events if e.payload["action"]["kind"] == "roll"]
    assert rolls and all(r["face"] in ("green", "red", "yellow", "purple") for r in rolls)
    # the log alone rebuilds the game: replay it with the rules engine, independently
    game = Game.setup(["Ann", "Bo", "Cy"])
    for event in events:
        game = game.apply(action_from_dict(event.payload["action"]))
    assert game == table.game
    resumed = IdesDriver(log)
    assert resumed.game == table.game and resumed.game_id == table.game_id
    assert [line.text for line in resumed.lines] == [line.text for line in table.lines]
    assert resumed.choices() == table.choices()
    assert log.verify().ok


def test_a_finished_game_stays_finished_and_a_new_one_follows(log: GameLog) -> None:
    table = IdesDriver(log, dice=Dice.seeded(8), roll_s=0)
    table.new_game(["Ann", "Bo"])
    play_some(table, 100_000, seed=9)
    assert table.status is IdesStatus.OVER and table.game is not None and table.game.over
    with pytest.raises(IllegalAction):
        table.act(Promote())
    resumed = IdesDriver(log)
    assert resumed.status is IdesStatus.OVER and resumed.ended == table.ended
    assert resumed.ended == f"{table.game.players[table.game.winner or 0].name} wins the Forum"
    second = resumed.new_game(["Cy", "Di"])
    assert IdesDriver(log).game_id == second and IdesDriver(log).status is IdesStatus.PLAYING


def test_a_logged_action_the_rules_refuse_is_reported_as_damage(log: GameLog) -> None:
    table = IdesDriver(log, roll_s=0)
    game_id = table.new_game(["Ann", "Bo"])
    table.act(DrawFreeTile(to_stockpile=True))
    bad = log.append(game_id, EventKind.ACTION, {"action": {"kind": "promote"}, "by": "x"})
    with pytest.raises(LogError, match=f"event {bad.seq} cannot be replayed"):
        IdesDriver(log)


def _spawn(db: Path, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(db), str(seed)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _logged_actions(db: Path) -> list[dict[str, object]]:
    with GameLog(db) as log:
        return [e.payload["action"] for e in log.events() if e.kind is EventKind.ACTION]


@pytest.mark.parametrize("kill_after", [25, 140])
def test_sigkill_loses_nothing_and_the_game_resumes_identically(
    tmp_path: Path, kill_after: int
) -> None:
    seed = 21
    reference = tmp_path / "reference.db"
    whole = _spawn(reference, seed)
    out, _ = whole.communicate(timeout=300)
    assert whole.returncode == 0

    crashed = tmp_path / "crashed.db"
    writer = _spawn(crashed, seed)
    assert writer.stdout is not None
    acked: list[tuple[int, str]] = []
    for line in writer.stdout:
        seq, digest = line.split()
        acked.append((int(seq), digest))
        if len(acked) == kill_after:
            writer.send_signal(signal.SIGKILL)
            break
    # The lines printed before the kill landed: read through the same stream, whose buffer
    # may already hold some of them (communicate() would read past it and lose them).
    with writer.stdout:
        rest = writer.stdout.read()
    writer.wait(timeout=30)
    acked += [(int(s), d) for s, d in (ln.split() for ln in rest.splitlines())]
    assert writer.returncode == -signal.SIGKILL

    with GameLog(crashed) as log:
        assert log.verify().ok
        resumed = IdesDriver(log)
        last_seq, last_digest = acked[-1]
        # every acknowledged action is there; at most one more was written but not yet printed
        assert resumed.actions_applied in (len(acked), len(acked) + 1)
        if resumed.actions_applied == len(acked):
            assert resumed.last_seq == last_seq and state_digest(resumed.game) == last_digest
        assert resumed.status is IdesStatus.PLAYING

    finish = _spawn(crashed, seed)
    finish.communicate(timeout=300)
    assert finish.returncode == 0
    assert _logged_actions(crashed) == _logged_actions(reference)
    with GameLog(crashed) as a, GameLog(reference) as b:
        assert state_digest(IdesDriver(a).game) == state_digest(IdesDriver(b).game)
        assert out.split()[-1] == state_digest(IdesDriver(b).game)


# -- the dice on the LEDs ------------------------------------------------------------------


def test_a_roll_animates_then_shows_its_face(log: GameLog) -> None:
    recorder = Recorder()
    table = IdesDriver(log, recorder, dice=Dice.seeded(1), roll_s=0.05)
    table.new_game(["Ann", "Bo"])
    table.act(DrawFreeTile(to_stockpile=True))
    assert recorder.shown[-1] == TableLights(seat=0, dice=(None, None), status=StatusLight.OK)
    applied = table.act(Roll(table.game.expected_die))  # type: ignore[union-attr, arg-type]
    assert isinstance(applied, Roll) and applied.face is not None
    rolling = recorder.shown[-1]
    assert rolling.rolling and rolling.dice[0] == applied.face.value
    assert table.snapshot()["dice"]["rolling"] is True
    wait_until(lambda: not recorder.shown[-1].rolling)
    assert recorder.shown[-1].dice[0] == applied.face.value
    assert table.snapshot()["dice"] == {
        "orange": applied.face.value,
        "purple": None,
        "rolling": False,
    }


def test_a_refusal_lights_the_status_led_until_the_next_action(log: GameLog) -> None:
    recorder = Recorder()
    table = IdesDriver(log, recorder, roll_s=0)
    table.new_game(["Ann", "Bo"])
    with pytest.raises(IllegalAction):
        table.act(Promote())
    assert recorder.shown[-1].status is StatusLight.ILLEGAL
    assert table.snapshot()["refusal"]["code"] == "wrong_step"
    table.act(DrawFreeTile(to_stockpile=False))
    assert recorder.shown[-1].status is StatusLight.OK and table.snapshot()["refusal"] is None


def test_the_dice_lights_follow_the_roller() -> None:
    game = Game.setup(["Ann", "Bo"])
    rng = random.Random(6)
    dice = Dice.seeded(6)
    seen_turn_pass = False
    for _ in range(300):
        before = game
        _, game = game.play(choose(game, rng), dice)
        if len(game.rolls) > len(before.rolls):
            last = game.rolls[-1]
            orange, purple = dice_faces(game.rolls)
            assert (orange if last.die.value == "orange" else purple) == last.face.value
            if game.current != last.seat:
                seen_turn_pass = True  # the roll that passed the dice stays shown
        if game.over:
            break
    assert seen_turn_pass


def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.02)


def test_the_dice_reach_the_led_firmware(log: GameLog) -> None:
    """Through the real link and the firmware's own code behind a pseudo-terminal."""
    with Emulator() as emulator, HostLink(port=emulator.port) as link:
        table = IdesDriver(log, link, dice=Dice.seeded(2), roll_s=1.0)
        table.new_game(["Ann", "Bo", "Cy"])
        table.act(DrawFreeTile(to_stockpile=True))
        applied = table.act(Roll(table.game.expected_die))  # type: ignore[union-attr, arg-type]
        assert isinstance(applied, Roll) and applied.face is not None
        face = applied.face.value

        def device_shows(rolling: bool) -> bool:
            lights = emulator.snapshot().lights
            return lights is not None and lights.rolling is rolling and lights.dice[0] == face

        wait_until(lambda: device_shows(True))
        wait_until(lambda: device_shows(False))
        lights = emulator.snapshot().lights
        assert lights is not None and lights.seat == table.snapshot()["lights"]["seat"]
        readout = emulator.snapshot().leds
        assert readout.lit()  # the device lights its LEDs for the picture
        table.close()


# -- the buttons ---------------------------------------------------------------------------


class Panel:
    """Presses the fake buttons like a player would, pumping the debouncer after each."""

    def __init__(self, driver: IdesButtons, pins: FakePins) -> None:
        self.driver = driver
        self.pins = pins
        self.now = 100.0

    def press(self, button: Button, *, bounce: bool = False) -> list[str]:
        if bounce:
            self.pins.bounce(button, self.now, pressed=True)
        else:
            self.pins.press(button, at_s=self.now)
        self.driver.buttons.pump(self.now + 0.1)
        self.pins.release(button, at_s=self.now + 0.2)
        self.driver.buttons.pump(self.now + 0.3)
        self.now += 1.0
        return [r for r in self.driver.handle_pending() if r != "released"]


def test_buttons_play_a_game_like_direct_play(log: GameLog) -> None:
    """Roll, next/previous and confirm drive the table to the same game as applying the same
    choices with the same dice directly."""
    pins = FakePins(IDES_PINS)
    buttons = Buttons(pins, IDES_PINS).attach()
    table = IdesDriver(log, dice=Dice.seeded(13), roll_s=0)
    table.new_game(["Ann", "Bo", "Cy"])
    panel = Panel(IdesButtons(table.press, buttons), pins)
    reference = Game.setup(["Ann", "Bo", "Cy"])
    reference_dice = Dice.seeded(13)
    rng = random.Random(14)
    used = set()
    for step in range(200):
        game = table.game
        assert game is not None and game == reference
        if game.over:
            break
        wanted = choose(game, rng)
        offered = table.choices()
        rolls = [a for a in offered if isinstance(a, Roll)]
        if isinstance(wanted, Roll) and len(rolls) == 1:
            assert panel.press(Button.ROLL, bounce=step % 5 == 0) == ["rolled roll"]
            used.add(Button.ROLL)
        else:
            index = offered.index(wanted)
            back = len(offered) - index
            button, times = (Button.NEXT, index) if index <= back else (Button.PREVIOUS, back)
            for _ in range(times):
                panel.press(button)
                used.add(button)
            assert table.highlighted() == wanted
            assert table.snapshot()["cursor"] == index
            assert panel.press(Button.CONFIRM) == [f"applied {wanted.KIND}"]
        _, reference = reference.play(wanted, reference_dice)
    assert used == {Button.ROLL, Button.NEXT, Button.PREVIOUS}
    presses = [e for e in log.events(table.game_id) if e.kind is EventKind.BUTTON]
    assert len(presses) >= table.actions_applied


def test_roll_when_no_roll_is_offered_is_refused_in_words(log: GameLog) -> None:
    pins = FakePins(IDES_PINS)
    table = IdesDriver(log, roll_s=0)
    table.new_game(["Ann", "Bo"])
    panel = Panel(IdesButtons(table.press, Buttons(pins, IDES_PINS).attach()), pins)
    assert table.game is not None and table.game.phase is Phase.FREE_TILE
    (outcome,) = panel.press(Button.ROLL)
    assert outcome.startswith("refused: no roll is offered now")
    assert table.snapshot()["refusal"]["message"] == outcome.removeprefix("refused: ")
    assert table.actions_applied == 0


def test_a_stuck_button_is_ignored(log: GameLog) -> None:
    pins = FakePins(IDES_PINS)
    buttons = Buttons(pins, IDES_PINS, stuck_after_s=5.0).attach()
    table = IdesDriver(log, roll_s=0)
    table.new_game(["Ann", "Bo"])
    driver = IdesButtons(table.press, buttons)
    pins.press(Button.CONFIRM, at_s=1.0)
    buttons.pump(1.1)
    assert driver.handle_pending() == ["applied draw-free-tile"]
    buttons.pump(7.0)  # still held: a jammed switch
    assert driver.handle_pending() == ["confirm is stuck: ignored until released"]
    assert table.actions_applied == 1


# -- the demo ------------------------------------------------------------------------------


def test_demo_plays_a_whole_game_to_a_forum_win(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--game", "ides", "--fast", "--port", "0",
         "--seed", "5", "--players", "3", "--data-dir", str(data)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={**os.environ, "COMPANION_OPERATOR_TOKEN": "demo-pin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "operator token: demo-pin" in result.stdout
    with open_table_log(data / "ides.db", default_key_path()) as log:  # the demo's own key
        assert log.verify().status is ChainStatus.KEYED
        table = IdesDriver(log)
        game = table.game
        assert table.status is IdesStatus.OVER and game is not None and game.over
        winner = game.players[game.winner or 0].name
        orange, purple = dice_faces(game.rolls)
        summary = (
            f"{winner} wins the Forum after {table.actions_applied} actions; "
            f"dice LEDs: {orange or 'off'} and {purple or 'off'}"
        )
        assert summary in result.stdout
