"""What a game gives a live table: the seam between a game and the composition root.

The composition root (``companion run`` and ``companion demo``) wires the same parts for
every game: the game log, the table session, the LED device, the buttons, the dashboard and
the café.  What differs from game to game comes through :class:`LiveGame`: the game its
``[game]`` section asks for, what feeds the session (a camera, simulated players), what the
buttons mean, how the LEDs are driven, the demo's own options, and the example lines of the
``[game]`` section in the configuration template.

Games sit below the table, so this module sees the configuration and the session only
through the small protocols below (the table's own objects satisfy them).
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from companion.devices.buttons import Button, ButtonAction, ButtonEvent
from companion.games.table_seam import ButtonPress, LightsPicture
from companion.link.lights import TableLights

if TYPE_CHECKING:
    from companion.games.plugin import GamePlugin


class Part(Protocol):
    """One hardware section of the table's file: its ``kind`` and the other keys."""

    @property
    def kind(self) -> str: ...

    @property
    def options(self) -> Mapping[str, Any]: ...


class LiveConfig(Protocol):
    """The table's configuration as a game reads it (the table's ``TableConfig``)."""

    @property
    def source(self) -> str:
        """The file it came from, for error messages."""
        ...

    @property
    def camera(self) -> Part: ...

    @property
    def buttons(self) -> Part: ...

    @property
    def game(self) -> Mapping[str, Any] | None:
        """The ``[game]`` section, if any."""
        ...

    def path(self, value: str) -> Path:
        """A path from the file, relative to the file's own folder."""
        ...


class LiveTable(Protocol):
    """The table session as a game's live parts see it and act at it."""

    @property
    def state(self) -> str:
        """``setup``, ``playing``, ``ended``, ``tampered``, or the match's own phase."""
        ...

    @property
    def match(self) -> Any:
        """The game in play (the game's own match), or ``None``."""
        ...

    def position(self) -> tuple[Any, Any]:
        """The history and rules position as last published, read together."""
        ...

    def operate(self, kind: str, timeout_s: float = 10.0, **args: Any) -> Any:
        """Runs an operator action and waits for its outcome."""
        ...

    def act(self, name: str, args: Mapping[str, Any], timeout_s: float = 10.0) -> Any:
        """Runs the game's action ``name`` and waits for its outcome."""
        ...

    def post(self, name: str, args: Mapping[str, Any]) -> None:
        """Queues the game's action ``name`` without waiting (safe from the session's own
        thread, which is where the lights are shown)."""
        ...


class Readings(Protocol):
    """A source of observations (a camera) pumped into the session from its own thread."""

    def readings(self) -> Iterator[object | None]: ...

    def close(self) -> None: ...


class Lights(Protocol):
    """Where the session's lights pictures go (the LED device, the terminal, nowhere)."""

    def show(self, lights: LightsPicture) -> None: ...


@dataclass(frozen=True)
class ButtonPlan:
    """The table's GPIO buttons for a game: which button is on which pin, and the press
    each event means (``None``: the event does nothing)."""

    pins: Mapping[Button, int]
    meaning: Callable[[ButtonEvent], ButtonPress | None]


def pressed_as(names: Mapping[Button, str]) -> Callable[[ButtonEvent], ButtonPress | None]:
    """A meaning that presses ``names[button]`` when a mapped button goes down."""

    def meaning(event: ButtonEvent) -> ButtonPress | None:
        name = names.get(event.button)
        if event.action is not ButtonAction.PRESSED or name is None:
            return None
        return ButtonPress(name)

    return meaning


@dataclass(frozen=True)
class LiveInputs:
    """What feeds a live table besides the dashboard: an observation source, and the game
    the source implies (a recorded game replays its own setup)."""

    readings: Readings | None = None
    setup: object | None = None


class DemoPlayers(Protocol):
    """Simulated players who act at the table themselves until their game is over."""

    def play(self, table: LiveTable, stop: threading.Event) -> None:
        """Plays until the game is over or ``stop`` is set."""
        ...

    def summary(self, table: LiveTable, shown: TableLights | None) -> str:
        """One line on how the game ended; ``shown`` is what the LED device shows."""
        ...


@dataclass(frozen=True)
class DemoTable:
    """A demo at a live table, as the game asks the composition root to serve it."""

    #: The game log's folder; ``None``: a temporary folder, removed when the demo ends.
    data_dir: Path | None
    #: The ``[camera]`` section: ``kind`` and its options.
    camera: Mapping[str, Any] = field(default_factory=lambda: {"kind": "none"})
    #: The ``[game]`` section of the game to start.
    game: Mapping[str, Any] | None = None
    #: Start that game even when the log holds one in play.
    fresh: bool = False
    #: Printed once the table is up.
    intro: str | None = None
    #: Players who act themselves; the demo ends with their game (else at Ctrl-C).
    players: DemoPlayers | None = None
    #: Seconds the dashboard stays up once the players' game is over.
    hold_s: float = 0.0
    #: Printed when the demo is stopped before its game is over.
    stopped: str = "stopped"


class LiveGame(Protocol):
    """What a game gives a live table; see the module docstring."""

    #: The game log's file name in the data folder.
    log_name: str
    #: The path of the game's dashboard page.
    page: str

    def setup(self, section: Mapping[str, Any] | None, source: str) -> object | None:
        """The setup request the ``[game]`` section asks for (``None``: none asked; the
        operator seats the players on the dashboard).  Errors are input errors located
        in ``source``."""
        ...

    def inputs(self, config: LiveConfig, table: LiveTable) -> LiveInputs:
        """The observation source the ``[camera]`` section asks for, if any."""
        ...

    def lights(self, out: Lights, config: LiveConfig, table: LiveTable) -> Lights:
        """The session's lights sink on ``out`` (the device, the terminal or nothing)."""
        ...

    def buttons(self, config: LiveConfig) -> ButtonPlan:
        """What the ``[buttons]`` section's GPIO buttons are and mean in this game."""
        ...

    def news(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        """What changed between two views, in a line or two for the terminal."""
        ...

    def add_demo_arguments(self, parser: argparse._ArgumentGroup) -> None:
        """The game's own ``companion demo`` options."""
        ...

    def demo(self, args: argparse.Namespace) -> DemoTable | int:
        """The demo ``args`` ask for, to be served at a live table, or the exit status of
        a demo the game played by itself (in the terminal, say)."""
        ...

    def template(self) -> Sequence[str]:
        """Example lines of the game's ``[game]`` keys for the configuration template,
        uncommented, each key with what it does and its default."""
        ...


class PlainLive:
    """The live table of a game that says nothing more: the ``[game]`` section is the
    setup request as it stands, no camera, the lights as the game draws them, no buttons."""

    log_name = "table.db"
    page = "/"

    def setup(self, section: Mapping[str, Any] | None, source: str) -> object | None:
        del source
        request = {key: value for key, value in (section or {}).items() if key != "game"}
        return request or None

    def inputs(self, config: LiveConfig, table: LiveTable) -> LiveInputs:
        del config, table
        return LiveInputs()

    def lights(self, out: Lights, config: LiveConfig, table: LiveTable) -> Lights:
        del config, table
        return out

    def buttons(self, config: LiveConfig) -> ButtonPlan:
        del config
        return ButtonPlan({}, pressed_as({}))

    def news(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
        del before, after
        return []

    def add_demo_arguments(self, parser: argparse._ArgumentGroup) -> None:
        del parser

    def demo(self, args: argparse.Namespace) -> DemoTable | int:
        del args
        return DemoTable(data_dir=None)

    def template(self) -> Sequence[str]:
        return ()


def live_of(plugin: GamePlugin) -> LiveGame:
    """The game's live table; a plugin whose hook is not implemented gets :class:`PlainLive`."""
    hook = getattr(plugin, "live", None)  # a game from before the hook has none
    if hook is None:
        return PlainLive()
    try:
        live: LiveGame = hook()
    except NotImplementedError:
        return PlainLive()
    return live
