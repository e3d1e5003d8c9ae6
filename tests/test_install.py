"""Installing a table: ``companion init``, the operator token file and the shipped service."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from companion.app.table import game_of
from companion.cli import main
from companion.errors import InputError
from companion.games.live_seam import live_of
from companion.games.registry import DEFAULT_GAME, games
from companion.table.config import load_config
from companion.table.config_template import TemplateChoices, config_template
from companion.vision.sources import DEFAULT_FRAME_SIZE
from companion.web.config import WebConfig
from companion.web.token_file import read_token, write_token

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "hardware" / "companion.service"
HOME = "/home/companion"  # the service user's home in the unit and the install guide
READERS = (
    "companion/table/config.py",
    "companion/app/parts.py",
    "companion/app/table.py",
    "companion/games/garum/live.py",
    "companion/games/ides/live.py",
)


def unit_service_section(path: Path) -> dict[str, list[str]]:
    """The ``[Service]`` keys of a systemd unit (a key may repeat, as Environment= does)."""
    keys: dict[str, list[str]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]":
            key, _, value = line.partition("=")
            keys.setdefault(key, []).append(value)
    return keys


def init(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "init", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )


def operator_post(url: str, token: str) -> int:
    request = urllib.request.Request(
        url, data=b"{}", method="POST", headers={"X-Companion-Token": token}
    )
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_shipped_service_runs_the_table_that_init_writes(tmp_path: Path) -> None:
    """The unit's own ExecStart, with its home moved to a temporary folder, serves the table
    from the config ``init`` writes in that home, on the token ``init`` made."""
    made = init(
        tmp_path,
        *("--camera", "simulated", "--lights", "none", "--buttons", "none"),
        *("--host", "127.0.0.1", "--port", "0"),
    )
    assert made.returncode == 0, made.stderr
    token = re.search(r"operator token: (\S+)", made.stdout)
    assert token is not None
    service = unit_service_section(UNIT)
    (exec_start,) = service["ExecStart"]
    argv = [arg.replace(HOME, str(tmp_path)) for arg in shlex.split(exec_start)]
    assert argv[1:] == ["run", "--config", str(tmp_path / "table.toml")]
    program = Path(argv[0])  # the checkout's venv in the user's home: this venv stands in
    program.parent.mkdir(parents=True)
    program.symlink_to(Path(sys.executable).with_name("companion"))
    (workdir,) = service["WorkingDirectory"]
    environment = dict(shlex.split(e)[0].split("=", 1) for e in service.get("Environment", []))
    env = {k: v for k, v in os.environ.items() if k != "COMPANION_OPERATOR_TOKEN"}
    proc = subprocess.Popen(
        argv,
        cwd=workdir.replace(HOME, str(tmp_path)),
        env={**env, **environment, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("dashboard: http://127.0.0.1:"), first
        url = first.split()[1]
        journal = proc.stdout.readline()
        assert token.group(1) not in journal and "operator-token" in journal
        with urllib.request.urlopen(url + "api/state", timeout=10) as response:
            assert json.loads(response.read())["status"] == "playing"
        assert operator_post(url + "api/end", "not-the-token") == 401
        assert operator_post(url + "api/end", token.group(1)) == 200
    finally:
        proc.send_signal(signal.SIGTERM)  # what systemctl stop sends
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert (tmp_path / "companion-data" / "table.db").exists()


def test_init_writes_every_key_the_table_reads() -> None:
    text = config_template(TemplateChoices())
    read = set()
    for reader in READERS:
        source = (ROOT / reader).read_text()
        read |= set(re.findall(r"\b(?:options|web|data|section|game)\.get\(\s*\"(\w+)\"", source))
        read |= set(re.findall(r"_option\(\s*backend,\s*\"(\w+)\"", source))
    assert {"data_dir", "host", "port", "token_file", "kind", "record", "players"} <= read
    missing = {key for key in read if not re.search(rf"^#? ?{key} =|[ #]{key} = ", text, re.M)}
    assert not missing, f"keys the table reads but the template does not show: {missing}"


@pytest.mark.parametrize("name", list(games()))
def test_each_games_example_section_starts_that_game(tmp_path: Path, name: str) -> None:
    """The template shows every installed game's ``[game]`` keys; uncommented, they start
    that game."""
    plugin = games()[name]
    example = list(live_of(plugin).template())
    template = config_template(TemplateChoices(camera="none", lights="none", buttons="none"))
    assert example and all(f"# {line}" in template.splitlines() for line in example)
    assert f"For {plugin.title} (game = {json.dumps(name)}):" in template
    path = tmp_path / "table.toml"
    path.write_text(template + f"[game]\ngame = {json.dumps(name)}\n" + "\n".join(example))
    config = load_config(path)
    assert game_of(config) is plugin
    assert live_of(plugin).setup(config.game, config.source) is not None
    if name == DEFAULT_GAME:  # a file naming no game plays the default one
        path.write_text(template + "[game]\n" + "\n".join(example))
        assert game_of(load_config(path)) is plugin


@pytest.mark.parametrize(
    "choices",
    [
        TemplateChoices(),
        TemplateChoices(camera="opencv", lights="emulated", buttons="none", host="127.0.0.1"),
        TemplateChoices(camera="synthetic", lights="print", buttons="none", port=0),
    ],
)
def test_the_template_loads_as_the_table_asked_for(
    tmp_path: Path, choices: TemplateChoices
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(config_template(choices))
    config = load_config(path)
    assert (config.camera.kind, config.lights.kind, config.buttons.kind) == (
        choices.camera,
        choices.lights,
        choices.buttons,
    )
    assert (config.host, config.port, config.game) == (choices.host, choices.port, None)
    assert config.token_file == tmp_path / "operator-token"
    assert config.data_dir == tmp_path / "companion-data"
    if choices.buttons == "gpio":
        assert config.buttons.options == {"accept_pin": 17, "undo_pin": 27}
    if choices.camera == "opencv":
        assert config.camera.options == {
            "board": "troia",
            "index": 0,
            "size": list(DEFAULT_FRAME_SIZE),
            "still_s": 0.5,
        }


def test_init_keeps_an_existing_file_and_token(tmp_path: Path) -> None:
    first = init(tmp_path)
    assert first.returncode == 0, first.stderr
    config, token_file = tmp_path / "table.toml", tmp_path / "operator-token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = read_token(token_file)
    assert f"operator token: {token}" in first.stdout
    config.write_text(config.read_text().replace("port = 5000", "port = 5055"))
    again = init(tmp_path)
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "table.toml" in again.stderr and "--force" in again.stderr
    assert "port = 5055" in config.read_text()
    forced = init(tmp_path, "--force", "--port", "5077")
    assert forced.returncode == 0, forced.stderr
    assert load_config(config).port == 5077
    assert read_token(token_file) == token and token not in forced.stdout


def test_token_show_and_rotate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(tmp_path / "table.toml")
    assert main(["init", "--config", config]) == 0
    token_file = tmp_path / "operator-token"
    old = read_token(token_file)
    capsys.readouterr()
    assert main(["token", "show", "--config", config]) == 0
    assert capsys.readouterr().out == f"{old}\n"
    assert main(["token", "rotate", "--config", config]) == 0
    out = capsys.readouterr().out
    new = read_token(token_file)
    assert new != old and f"operator token: {new}" in out and "restart" in out
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert main(["token", "rotate", "--config", config, "--token", "4321"]) == 0
    assert read_token(token_file) == "4321"
    assert main(["token", "rotate", "--config", config, "--token", "12"]) == 2
    assert "at least 4 characters" in capsys.readouterr().err
    assert read_token(token_file) == "4321"  # a refused token loses nothing


def test_the_environment_token_wins_over_the_file(tmp_path: Path) -> None:
    token_file = tmp_path / "operator-token"
    write_token(token_file, "from-file")
    from_file = WebConfig.from_env({}, token_file=token_file)
    assert from_file.operator_token == "from-file"
    assert "from-file" not in from_file.token_note()
    from_env = WebConfig.from_env({"COMPANION_OPERATOR_TOKEN": "from-env"}, token_file=token_file)
    assert from_env.operator_token == "from-env" and from_env.token_note() == "from-env"


def test_a_token_file_others_can_read_or_a_missing_one_is_refused(tmp_path: Path) -> None:
    token_file = tmp_path / "operator-token"
    with pytest.raises(InputError, match="companion init") as missing:
        WebConfig.from_env({}, token_file=token_file)
    assert missing.value.source == str(token_file)
    write_token(token_file, "secret-pin")
    token_file.chmod(0o644)
    with pytest.raises(InputError, match="chmod 600"):
        read_token(token_file)


def test_run_names_a_missing_token_file_in_one_line(tmp_path: Path) -> None:
    assert (
        init(tmp_path, "--camera", "none", "--lights", "none", "--buttons", "none").returncode == 0
    )
    (tmp_path / "operator-token").unlink()
    result = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(tmp_path / "table.toml")],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "COMPANION_OPERATOR_TOKEN"},
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "operator-token" in result.stderr


def test_init_refuses_a_token_file_others_can_read_and_writes_nothing(tmp_path: Path) -> None:
    token_file = tmp_path / "operator-token"
    write_token(token_file, "old-token")
    token_file.chmod(0o640)
    result = init(tmp_path)
    assert result.returncode == 2 and "chmod 600" in result.stderr
    assert not (tmp_path / "table.toml").exists()
