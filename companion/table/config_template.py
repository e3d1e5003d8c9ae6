"""The commented ``table.toml`` that ``companion init`` writes.

Every key the table reads is in it, with its default and one line on what it does; the keys
of the chosen backends are set, the others are left commented so switching backend is a
matter of editing a few lines.  A key added to the reader belongs here too (a test checks).
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from companion.games.live_seam import live_of
from companion.games.registry import DEFAULT_GAME, games
from companion.games.simulated import DEFAULT_PATIENCE_S, DEMO_MISTAKES
from companion.table.config import BUTTON_KINDS, CAMERA_KINDS, LIGHT_KINDS


@dataclass(frozen=True)
class Option:
    """One backend key: the kinds that read it, its default (``None``: no default, the value
    shown is an example) and what it is for."""

    key: str
    value: Any
    kinds: tuple[str, ...]
    says: str
    default: bool = True


CAMERA_OPTIONS = (
    Option(
        "board",
        "troia",
        ("opencv", "picamera"),
        "board profile: a built-in name (troia, baelo-claudia) or a JSON file",
    ),
    Option("index", 0, ("opencv",), "which camera the system lists: 0 is the first"),
    Option(
        "size",
        [1280, 960],
        ("opencv", "picamera"),
        "frame size asked of the camera, [width, height] in pixels; the camera gives its "
        "nearest mode (of the Pi cameras' modes, 1280 x 720 reads the fewest boards exactly)",
    ),
    Option(
        "still_s",
        0.5,
        ("opencv", "picamera"),
        "seconds the board must stay still (no hand over it) before it is read",
    ),
    Option("record", "game.txt", ("record",), "the game record to replay", default=False),
    Option(
        "interval_s", 2.0, ("record", "simulated", "synthetic"), "seconds between simulated turns"
    ),
    Option(
        "seed",
        1,
        ("simulated", "synthetic"),
        "the same number replays the same game; leave out for a new game each start",
        default=False,
    ),
    Option(
        "mistakes_at",
        list(DEMO_MISTAKES),
        ("simulated", "synthetic"),
        "turns at which a simulated player takes a tile of the wrong colour, to show a flag",
    ),
    Option(
        "patience_s",
        DEFAULT_PATIENCE_S,
        ("simulated", "synthetic"),
        "seconds the simulated players leave a flagged move to the operator before they "
        "settle it themselves",
    ),
    Option(
        "wait_for_operator",
        False,
        ("simulated", "synthetic"),
        "true: the simulated players wait for the operator to settle every flag",
    ),
)
LIGHT_OPTIONS = (
    Option(
        "port",
        "/dev/companion-led",
        ("serial",),
        "serial port of the LED device; leave out to find the Pico by its USB id",
        default=False,
    ),
)
BUTTON_OPTIONS = (
    Option("accept_pin", 17, ("gpio",), "BCM GPIO number of the accept button", default=False),
    Option("undo_pin", 27, ("gpio",), "BCM GPIO number of the undo button", default=False),
)

CAMERA_SAYS = {
    "none": "no camera: boards are entered on the dashboard",
    "record": "replays a game record, turn by turn",
    "simulated": "simulated players, board pictures drawn from the game",
    "synthetic": "simulated players seen through a rendered camera (hands, glare)",
    "opencv": "a USB webcam",
    "picamera": "the Raspberry Pi camera (picamera2)",
}
LIGHT_SAYS = {
    "none": "no LEDs",
    "print": "the LED picture as a line on the terminal",
    "serial": "the LED device (a Pico) on a serial port",
    "emulated": "the LED firmware run on this machine behind a pseudo-terminal",
}
BUTTON_SAYS = {
    "none": "no buttons: accept and undo from the dashboard",
    "gpio": "push buttons on the Raspberry Pi's GPIO header",
}


@dataclass(frozen=True)
class TemplateChoices:
    """What ``companion init`` was asked for; the defaults suit a Raspberry Pi table."""

    camera: str = "picamera"
    lights: str = "serial"
    buttons: str = "gpio"
    host: str = "0.0.0.0"
    port: int = 5000
    data_dir: str = "companion-data"
    token_file: str = "operator-token"


def toml_value(value: Any) -> str:
    """A TOML literal for the simple values the template holds (JSON spells them alike)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def _kinds_block(name: str, kinds: tuple[str, ...], says: dict[str, str], chosen: str) -> list[str]:
    lines = [f'# What {name}: one of the following (default "none").']
    lines += [f"#   {kind:<10} {says[kind]}" for kind in kinds]
    lines.append(f"kind = {toml_value(chosen)}")
    return lines


def _options_block(options: tuple[Option, ...], chosen: str) -> list[str]:
    lines = []
    for option in options:
        default = f"default {toml_value(option.value)}" if option.default else "no default"
        about = f"{', '.join(option.kinds)}: {option.says} ({default})."
        lines += textwrap.wrap(about, width=92, initial_indent="# ", subsequent_indent="#   ")
        setting = f"{option.key} = {toml_value(option.value)}"
        lines.append(setting if chosen in option.kinds else f"# {setting}")
    return lines


def game_block() -> list[str]:
    """The commented ``[game]`` section: which game, then each game's own keys."""
    known = games()
    lines = [
        "# The game to start when none is in play. Leave the section out to seat the players",
        "# from the dashboard's /setup page instead.",
        "# [game]",
        f"# game = {toml_value(DEFAULT_GAME)}  # one of: {', '.join(known)} "
        f"(default {toml_value(DEFAULT_GAME)})",
    ]
    for name, plugin in known.items():
        example = live_of(plugin).template()
        if example:
            lines.append(f"# For {plugin.title} (game = {toml_value(name)}):")
            lines += [f"# {line}" for line in example]
    return lines


def config_template(choices: TemplateChoices, *, now: datetime | None = None) -> str:
    """The whole file; loading it gives a table with ``choices``."""
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"# The companion table's configuration, written by `companion init` on {when}.",
        "# Start the table with: companion run --config <this file>",
        "# Relative paths are taken from this file's folder. Lines starting with # are",
        "# comments: remove the # to use a setting.",
        "",
        '# Folder for the game log (table.db), kept across restarts (default "companion-data").',
        f"data_dir = {toml_value(choices.data_dir)}",
        "",
        "[web]",
        '# Address the dashboard listens on: "127.0.0.1" is this machine only (the default),',
        '# "0.0.0.0" every network, so phones on the café Wi-Fi can watch.',
        f"host = {toml_value(choices.host)}",
        "# Port of the dashboard (default 5000).",
        f"port = {choices.port}",
        "# File holding the operator token, readable by its owner only (no default: without it",
        "# a new token is made at every start). `companion token show` prints it, `companion",
        "# token rotate` replaces it. COMPANION_OPERATOR_TOKEN, when set, wins over the file.",
        f"token_file = {toml_value(choices.token_file)}",
        "",
        "[log]",
        "# File holding the key that chains the game log, so an edit to the log is caught when",
        "# the table starts (default ~/.config/companion/chain.key, made on first use, owner",
        "# only). Keep it outside data_dir: a copy of the log must not carry its key.",
        '# key_file = "~/.config/companion/chain.key"',
        "",
        "[camera]",
        *_kinds_block("reads the board", CAMERA_KINDS, CAMERA_SAYS, choices.camera),
        *_options_block(CAMERA_OPTIONS, choices.camera),
        "",
        "[lights]",
        *_kinds_block(
            "shows the vat and the seat to play", LIGHT_KINDS, LIGHT_SAYS, choices.lights
        ),
        *_options_block(LIGHT_OPTIONS, choices.lights),
        "",
        "[buttons]",
        *_kinds_block("the players press", BUTTON_KINDS, BUTTON_SAYS, choices.buttons),
        *_options_block(BUTTON_OPTIONS, choices.buttons),
        "",
        *game_block(),
        "",
    ]
    return "\n".join(lines)
