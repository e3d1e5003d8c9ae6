"""Garum at a live table: the setup from ``[game]``, the camera from ``[camera]``, the accept
and undo buttons, the narration of the terminal, and the ``[game]`` lines of the template.

A recorded game replays its own setup; simulated players (with or without the rendered
camera) play the configured seats, or four default ones, and follow the table's operator.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Mapping, Sequence
from typing import Any

from companion.boards.profile import BUILTIN, load_profile
from companion.devices.buttons import Button
from companion.errors import InputError
from companion.games.garum.camera import CameraReadings
from companion.games.garum.frames import render_jpeg
from companion.games.garum.players import PlayersPlan, SimulatedPlayers
from companion.games.garum.record import parse_record
from companion.games.garum.referee import SetupRequest, make_setup
from companion.games.garum.simcam import SimulatedPlayersCamera
from companion.games.garum.sources import PlayersReadings, RecordReadings
from companion.games.live_seam import (
    ButtonPlan,
    DemoTable,
    Lights,
    LiveConfig,
    LiveInputs,
    LiveTable,
    Part,
    pressed_as,
)
from companion.games.simulated import DEFAULT_PACE_S, DEFAULT_PATIENCE_S
from companion.input_files import read_text
from companion.vision.sources import DEFAULT_FRAME_SIZE, OpenCVCamera, PiCamera

# The seats simulated players take when the table's file names none.
DEFAULT_SETUP: dict[str, Any] = {
    "board": "troia",
    "variant": "standard",
    "seats": [
        {"name": "Livia", "colours": ["B"]},
        {"name": "Marcus", "colours": ["G"]},
        {"name": "Julia", "colours": ["Y"]},
        {"name": "Titus", "colours": ["R"]},
    ],
}
# What each physical button means at a table judged by its camera.
BUTTON_MEANING = {Button.CONFIRM: "accept", Button.UNDO: "undo"}

TEMPLATE = (
    'board = "troia"          # Garum board: troia or baelo-claudia (default "troia")',
    'variant = "standard"     # standard, emperor or haruspex (default "standard")',
    "first_seat = 0           # the seat that plays first, counted from 0 (default 0)",
    'ghost = "R"              # a colour no seat plays (default none)',
    "seats = [                # each player's name and colours (B G Y R), clockwise",
    '  { name = "Livia", colours = ["B"] },',
    '  { name = "Marcus", colours = ["G"] },',
    '  { name = "Julia", colours = ["Y"] },',
    "]",
)


class GarumLive:
    log_name = "table.db"
    page = "/"

    def setup(self, section: Mapping[str, Any] | None, source: str) -> SetupRequest | None:
        return None if section is None else new_game_from(section, source)

    def inputs(self, config: LiveConfig, table: LiveTable) -> LiveInputs:
        """The reading source, and the game it implies (a recorded game is replayed as set
        up); simulated players watch ``table`` to follow its operator."""
        backend = config.camera
        if backend.kind == "record":
            path = config.path(_option(backend, "record", str, config, "camera"))
            lines = read_text(path, what="game record").splitlines()
            record = parse_record(lines, str(path))
            interval = float(backend.options.get("interval_s", 2.0))
            readings = RecordReadings(record.states, interval_s=interval)
            return LiveInputs(readings, SetupRequest.of(record.setup))
        if backend.kind in ("simulated", "synthetic"):
            request = new_game_from(config.game or DEFAULT_SETUP, config.source)
            seed = backend.options.get("seed")
            setup = make_setup(request, load_profile, random.Random(seed))
            plan = players_plan(config)
            players = SimulatedPlayers(table, plan, random.Random(seed))
            hand_s = min(1.0, plan.pace_s / 2)
            if backend.kind == "synthetic":
                camera = SimulatedPlayersCamera(
                    setup.board, players, seed=seed or 0, fps=20, hand_s=hand_s
                )
                seen = CameraReadings(camera, setup.board, still_s=0.2, max_fps=20)
                camera.on_board = seen.use_board
                return LiveInputs(seen, SetupRequest.of(setup))
            drawn = PlayersReadings(players, hand_s=hand_s, frame=render_jpeg)
            return LiveInputs(drawn, SetupRequest.of(setup))
        if backend.kind in ("opencv", "picamera"):
            name = str(backend.options.get("board", "troia"))
            board = load_profile(name if name in BUILTIN else config.path(name))
            still_s = float(backend.options.get("still_s", 0.5))
            width, height = backend.options.get("size", DEFAULT_FRAME_SIZE)
            source = (
                OpenCVCamera(int(backend.options.get("index", 0)), width, height)
                if backend.kind == "opencv"
                else PiCamera(width, height)
            )
            return LiveInputs(CameraReadings(source, board, still_s=still_s))
        return LiveInputs()

    def lights(self, out: Lights, config: LiveConfig, table: LiveTable) -> Lights:
        del config, table
        return out

    def buttons(self, config: LiveConfig) -> ButtonPlan:
        backend = config.buttons
        pins = {
            Button.CONFIRM: _option(backend, "accept_pin", int, config, "buttons"),
            Button.UNDO: _option(backend, "undo_pin", int, config, "buttons"),
        }
        return ButtonPlan(pins, pressed_as(BUTTON_MEANING))

    def news(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        return news(before, after)

    def add_demo_arguments(self, parser: argparse._ArgumentGroup) -> None:
        from companion.games.garum.demo import add_demo_arguments

        add_demo_arguments(parser)

    def demo(self, args: argparse.Namespace) -> DemoTable | int:
        from companion.games.garum.demo import demo

        return demo(args)

    def template(self) -> Sequence[str]:
        return TEMPLATE


def new_game_from(data: Mapping[str, Any], source: str) -> SetupRequest:
    """The setup request of a ``[game]`` section; errors name the field in ``source``."""
    try:
        return SetupRequest.from_dict(data)
    except InputError as exc:
        raise exc.located(source=source, field_prefix="game") from None


def players_plan(config: LiveConfig) -> PlayersPlan:
    """The simulated players' pace, patience and planned mistakes, from ``[camera]``."""
    options = config.camera.options
    pace_s = _seconds(config, "interval_s", DEFAULT_PACE_S)
    patience_s: float | None = _seconds(config, "patience_s", DEFAULT_PATIENCE_S)
    waits = options.get("wait_for_operator", False)
    if not isinstance(waits, bool):
        raise InputError(
            "expected true or false", source=config.source, field="camera.wait_for_operator"
        )
    mistakes = options.get("mistakes_at", list(PlayersPlan.mistakes_at))
    if not isinstance(mistakes, list | tuple) or not all(
        isinstance(m, int) and not isinstance(m, bool) and m > 0 for m in mistakes
    ):
        raise InputError(
            "expected a list of turn numbers", source=config.source, field="camera.mistakes_at"
        )
    return PlayersPlan(pace_s, None if waits else patience_s, tuple(mistakes))


def _seconds(config: LiveConfig, key: str, default: float) -> float:
    value = config.camera.options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise InputError(
            "expected a number of seconds, 0 or more", source=config.source, field=f"camera.{key}"
        )
    return float(value)


def _option(backend: Part, key: str, kind: type, config: LiveConfig, section: str) -> Any:
    value = backend.options.get(key)
    if not isinstance(value, kind):
        raise InputError(
            f"expected a {kind.__name__}", source=config.source, field=f"{section}.{key}"
        )
    return value


def news(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What changed at the table, in a line or two for the terminal."""
    lines = []
    played = after.get("turns_played", 0)
    if played > before.get("turns_played", 0):
        lines.append(f"turn {played} accepted")
    flag = after.get("flag")
    if flag and flag != before.get("flag"):
        rules = "; ".join(v["message"] for v in flag["violations"]) or "the board differs"
        lines.append(f"flagged ({flag['outcome']}): {rules}")
    turn = after.get("turn")
    if turn and turn != before.get("turn"):
        vat = turn["vat"] if turn["vat"] is not None else "to be chosen"
        lines.append(f"  next: {turn['seat_name']} ({turn['colour']}), vat {vat}")
    if after.get("status") == "ended" and before.get("status") != "ended":
        winners = ", ".join(after.get("scores", {}).get("winners", []))
        lines.append(f"game over: {winners} won (Ctrl-C to stop the dashboard)")
    return lines
