"""``companion run`` with an Ides configuration: the table serves, takes operator choices,
shows them on the emulated LED device, and resumes its game after a restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from cafe_helpers import hub, wait_for
from run_helpers import refused_run

from companion.cafe.mosquitto import LocalBroker

TOKEN = "ides-pin"
CONFIG = """
data_dir = "data"
[web]
port = 0
[lights]
kind = "emulated"
[game]
game = "ides"
players = ["Livia", "Marcus", "Julia"]
"""


def start(config: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COMPANION_OPERATOR_TOKEN": TOKEN},
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("dashboard: http://127.0.0.1:"), first + proc.stderr.read()  # type: ignore[union-attr]
    return proc, first.split()[1].removesuffix("/ides")


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def act(url: str, action: dict[str, Any]) -> int:
    request = urllib.request.Request(
        url + "/api/ides/act",
        data=json.dumps({"action": action}).encode(),
        headers={"Content-Type": "application/json", "X-Companion-Token": TOKEN},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return int(response.status)


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


def test_an_ides_table_runs_from_its_config_and_resumes(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG)
    proc, url = start(config)
    try:
        state = get(url + "/api/ides/state")
        assert [p["name"] for p in state["players"]] == ["Livia", "Marcus", "Julia"]
        for _ in range(3):
            choice = get(url + "/api/ides/state")["choices"][0]["action"]
            assert act(url, choice) == 200
        played = get(url + "/api/ides/state")
    finally:
        stop(proc)
    proc, url = start(config)
    try:
        resumed = get(url + "/api/ides/state")
        assert resumed["game"] == played["game"]
        assert resumed["players"] == played["players"]
    finally:
        stop(proc)


def test_an_ides_config_without_players_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG.replace('players = ["Livia", "Marcus", "Julia"]', 'players = ["A"]'))
    stderr = refused_run(config)
    assert "game.players" in stderr and "2 to 4 players" in stderr


def test_an_ides_config_with_a_bad_dice_roll_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG + 'dice_roll_s = "slow"\n')
    stderr = refused_run(config)
    assert "game.dice_roll_s" in stderr and str(config) in stderr


@pytest.mark.mosquitto
@pytest.mark.timeout(120)
def test_the_ides_demo_is_published_to_the_cafe_like_any_table(
    tmp_path: Path, broker: LocalBroker
) -> None:
    """The demo of a game other than the default one is wired like every table: its game
    log is published, and the room's card follows the game to its end."""
    with hub(broker.url) as (room, _, _):
        result = subprocess.run(
            [sys.executable, "-m", "companion", "demo", "--game", "ides", "--fast",
             "--port", "0", "--seed", "5", "--players", "2", "--hold", "0",
             "--data-dir", str(tmp_path / "data"), "--mqtt", broker.url, "--table", "ides-1"],
            capture_output=True, text=True, timeout=100,
            env={**os.environ, "COMPANION_OPERATOR_TOKEN": TOKEN},
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        card = wait_for(lambda: room.card("ides-1"), what="the demo's card")
        wait_for(lambda: room.card("ides-1")["status"] == "ended", what="the game's end")
    card = room.card("ides-1")
    assert card is not None and card["game_kind"] == "ides"
    assert [seat["name"] for seat in card["seats"]] == ["Aulus", "Livia"]
