"""`companion run`: a table assembled from a configuration file, served for real."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest
from run_helpers import refused_run

from companion.app.table import Table
from companion.boards import load_profile
from companion.errors import InputError
from companion.games.garum import GameSetup, Seat, Variant, record_lines, simulate_game
from companion.link import StatusLight
from companion.table.chain_key import default_key_path, load_or_create_key
from companion.table.config import demo_config, load_config
from companion.table.fakes import RecordingLights
from companion.table.led import LinkLights
from companion.table.log import ChainStatus, EventKind, GameLog
from companion.web.config import WebConfig

DEMO_SEATS = [{"name": "Ana", "colours": ["B", "G"]}, {"name": "Ben", "colours": ["Y", "R"]}]
CONFIG = """
data_dir = "data"
[web]
port = 0
[camera]
kind = "record"
record = "game.jsonl"
interval_s = 0.02
[game]
board = "troia"
variant = "standard"
seats = [{name = "Ana", colours = ["B", "G"]}, {name = "Ben", colours = ["Y", "R"]}]
"""


def write_table(tmp_path: Path, config: str = CONFIG) -> Path:
    setup = GameSetup.create(
        load_profile("troia"), Variant.STANDARD, (Seat("Ana", ("B", "G")), Seat("Ben", ("Y", "R")))
    )
    states = simulate_game(setup, random.Random(8))[:6]
    (tmp_path / "game.jsonl").write_text("\n".join(record_lines(setup, states)) + "\n")
    path = tmp_path / "table.toml"
    path.write_text(config)
    return path


def test_a_configured_table_plays_and_serves(tmp_path: Path) -> None:
    config = load_config(write_table(tmp_path))
    assert config.log_path == tmp_path / "data" / "table.db"
    lights = RecordingLights()
    table = Table.open(config, lights=lights, web=WebConfig("pin-1234", "k")).start()
    try:
        with table.session.viewers.subscribe() as sub:
            while (update := sub.get(10.0)) is not None and update.get("turns_played", 0) < 3:
                pass
        assert update is not None
        with urllib.request.urlopen(table.server.url + "/api/state", timeout=10) as response:
            state = json.loads(response.read())
        assert state["turns_played"] >= 3
        assert lights.shown
    finally:
        table.close()
    # A restart resumes the same game instead of starting a new one.
    again = Table.open(config, lights=RecordingLights(), web=WebConfig("pin-1234", "k"))
    try:
        assert again.session.history is not None and again.session.history.game == 1
        assert len(again.session.history.boards) >= 3
    finally:
        again.close()


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[web]\nport = 'x'\n", "web.port"),
        ("[camera]\nkind = 'webcam'\n", "camera.kind"),
        ("[lights]\nkind = 'laser'\n", "lights.kind"),
        ("data_dir = 3\n", "data_dir"),
    ],
)
def test_bad_configuration_names_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_config(path)
    assert caught.value.field == field and caught.value.source == str(path)


def test_the_command_reports_bad_files_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[web\n")
    stderr = refused_run(path)
    assert "broken.toml" in stderr and "not valid TOML" in stderr
    no_camera = CONFIG.replace('kind = "record"', 'kind = "none"')
    bad_game = write_table(tmp_path, no_camera.replace('"Ana"', '""'))
    stderr = refused_run(bad_game)
    assert "game.seats[0].name" in stderr


def test_simulated_players_make_a_mistake_that_is_flagged_then_play_on(tmp_path: Path) -> None:
    demo = demo_config(tmp_path / "data", port=0, seed=3, pace_s=0.01, patience_s=0.3)
    config = replace(demo, camera=replace(demo.camera, kind="simulated"))
    table = Table.open(config, lights=RecordingLights(), web=WebConfig("pin-1234", "k")).start()
    outcomes = []
    try:
        with table.session.viewers.subscribe() as sub:
            while (update := sub.get(10.0)) is not None and update.get("turns_played", 0) < 8:
                if update["flag"]:
                    outcomes.append(update["flag"]["outcome"])
                    assert update["flag"]["after_photo"]  # the rendered frame, as evidence
    finally:
        table.close()
    assert outcomes and set(outcomes) == {"dispute"}
    assert update is not None and update["turns_played"] >= 8


def _post(url: str, action: str, body: dict[str, object] | None = None) -> dict[str, object]:
    request = urllib.request.Request(
        f"{url}/api/{action}",
        data=json.dumps(body or {}).encode(),
        headers={"X-Companion-Token": "pin-1234", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        answer: dict[str, object] = json.loads(response.read())
    return answer


def _flags(log: GameLog, game: int) -> int:
    return sum(
        1
        for e in log.events(game)
        if e.kind is EventKind.VERDICT and e.payload["outcome"] in ("dispute", "desync")
    )


def test_the_demo_table_follows_the_operator_over_http(tmp_path: Path) -> None:
    """The served demo table: the operator accepts the players' flagged move, later starts a
    new game; the players play on from each without another flag."""
    demo = demo_config(tmp_path / "data", port=0, seed=5, pace_s=0.01, patience_s=None)
    config = replace(demo, camera=replace(demo.camera, kind="simulated"))
    table = Table.open(config, lights=RecordingLights(), web=WebConfig("pin-1234", "k")).start()
    url = table.server.url
    try:
        with table.session.viewers.subscribe() as sub:
            while (update := sub.get(10.0)) is not None and not update["flag"]:
                pass
            assert update is not None and update["turn"]["number"] == 5  # the planned mistake
            assert _post(url, "accept")["result"] == "accepted"
            while (update := sub.get(10.0)) is not None and update.get("turns_played", 0) < 20:
                pass
            assert update is not None and update["turns_played"] >= 20
            first_game = update["game"]
            assert _flags(table.log, first_game) == 1
            body = {"board": "troia", "variant": "standard", "seats": DEMO_SEATS}
            answer = _post(url, "new_game", body)
            state = answer["state"]
            assert isinstance(state, dict) and state["turn"]["number"] == 1
            while (update := sub.get(10.0)) is not None and update.get("turns_played", 0) < 4:
                pass
            assert update is not None and update["turns_played"] == 4
            assert update["game"] != first_game and _flags(table.log, update["game"]) == 0
    finally:
        table.close()
    with GameLog(config.log_path) as log:
        authors = {e.payload["by"] for e in log.events() if "by" in e.payload}
    assert authors == {"camera", "operator"}  # the operator's accept; the rest was seen


def test_the_led_device_follows_the_table(tmp_path: Path) -> None:
    """The emulated device runs the real firmware code behind a real pseudo-terminal."""
    config = load_config(write_table(tmp_path, CONFIG + '\n[lights]\nkind = "emulated"\n'))
    table = Table.open(config, web=WebConfig("pin-1234", "k")).start()
    try:
        assert isinstance(table.lights, LinkLights) and table.lights.emulator is not None
        with table.session.viewers.subscribe() as sub:  # the whole recorded game: then still
            while (update := sub.get(10.0)) is not None and update.get("turns_played", 0) < 6:
                pass
        assert update is not None and update["turn"] is not None
        assert table.lights.link.wait_synced(10.0)
        shown = table.lights.emulator.snapshot().lights
        assert shown is not None
        assert (shown.vat, shown.seat) == (update["turn"]["vat"], update["turn"]["seat"])
        assert shown.status is StatusLight.OK
    finally:
        table.close()


def test_run_demo_serves_then_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--demo", str(tmp_path / "d"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COMPANION_OPERATOR_TOKEN": "demo-pin"},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("dashboard: http://127.0.0.1:")
        url = first.split()[1]
        with urllib.request.urlopen(url + "api/state", timeout=10) as response:
            state = json.loads(response.read())
        assert state["status"] == "playing" and state["setup"]["seats"][0]["name"] == "Livia"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert (tmp_path / "d" / "table.db").exists()


def test_the_demo_command_plays_at_a_live_table_and_starts_fresh(tmp_path: Path) -> None:
    def demo() -> tuple[list[str], str]:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion",
                "demo",
                "--data",
                str(tmp_path),
                "--port",
                "0",
                "--seed",
                "2",
                "--players",
                "2",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COMPANION_OPERATOR_TOKEN": "demo-pin"},
        )
        assert proc.stdout is not None
        lines = []
        try:
            while not any(line.startswith("turn 1 accepted") for line in lines):
                line = proc.stdout.readline()
                assert line, "the demo stopped early"
                lines.append(line)
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        return lines, err

    lines, _ = demo()
    assert lines[0].startswith("dashboard: http://127.0.0.1:")
    assert any("next:" in line for line in lines)
    demo()  # the same folder again: a new game from an empty board, not a desync
    key = load_or_create_key(default_key_path())  # the demo's key, under this test's config home
    with GameLog(tmp_path / "table.db", key=key) as log:
        assert len(log.games()) == 2 and log.verify().status is ChainStatus.KEYED


ROOT = Path(__file__).resolve().parent.parent
TOY_RUN = (
    "import sys, toy_game\n"
    "from companion.games import registry\n"
    "registry.register(toy_game.GAME)\n"
    "from companion.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
TOY_CONFIG = """
data_dir = "data"
[web]
port = 0
[lights]
kind = "print"
[game]
game = "twentyone"
players = ["Ann", "Bo", "Cy"]
"""


def run_toy_table(config: Path) -> subprocess.Popen[str]:
    """``companion run`` in a process where the toy game of the seam tests is installed."""
    return subprocess.Popen(
        [sys.executable, "-c", TOY_RUN, "run", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
            "COMPANION_OPERATOR_TOKEN": "pin-1234",
        },
    )


def test_a_table_file_naming_another_installed_game_serves_that_game(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(TOY_CONFIG)
    for start in ("new", "resumed"):
        proc = run_toy_table(config)
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("dashboard: http://127.0.0.1:"), first
            url = first.split()[1].rstrip("/")
            with urllib.request.urlopen(url + "/api/state", timeout=10) as response:
                state = json.loads(response.read())
            assert state["game_kind"] == "twentyone" and state["status"] == "playing"
            assert state["players"] == ["Ann", "Bo", "Cy"] and state["total"] == 0
            rest = proc.stdout.readline() + proc.stdout.readline()
            assert str(tmp_path / "data" / "table.db") in rest
            if start == "resumed":
                assert proc.stdout.readline().startswith(f"resuming game {state['game']}")
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "lights: seat 0" in err  # the game's own picture, on the terminal
    with GameLog(tmp_path / "data" / "table.db", key=load_or_create_key(default_key_path())) as log:
        assert len(log.games()) == 1  # the restart took the game up again


def test_a_table_file_naming_no_installed_game_is_refused_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(TOY_CONFIG.replace("twentyone", "chess"))
    stderr = refused_run(config)
    assert "game.game" in stderr and "no game called 'chess'" in stderr
    assert str(config) in stderr and "Traceback" not in stderr
