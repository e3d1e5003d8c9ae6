"""The Ides tests' way to the table: a real :class:`TableSession` with the Ides referee,
driven through the session's commands as the dashboard, the buttons and the demo do."""

from __future__ import annotations

import hashlib
import threading
from enum import StrEnum
from typing import Any

from companion.app.parts import NoLights
from companion.app.table import LiveSession
from companion.games.ides import Action, Dice, DiceFaces, DiceMode, Game
from companion.games.ides.lights import LightsOut
from companion.games.ides.live import IdesLive
from companion.games.ides.referee import IdesMatch, IdesReferee, IdesSetup
from companion.games.table_seam import ButtonPress, canonical_json
from companion.table.commands import Press
from companion.table.config import TableConfig
from companion.table.log import GameLog
from companion.table.session import TableSession


class IdesStatus(StrEnum):
    """The Ides view's words for the table's state."""

    SETUP = "setup"
    PLAYING = "playing"
    OVER = "over"
    TAMPERED = "tampered"


class IdesDriver:
    """A session playing The Ides of March on ``log``; with an animation (``roll_s`` > 0)
    its owner thread runs, otherwise each call is carried out on the caller's thread."""

    def __init__(
        self,
        log: GameLog,
        lights: LightsOut | None = None,
        *,
        dice: Dice | None = None,
        roll_s: float = 0.0,
    ) -> None:
        self.log = log
        self.session = ides_session(log, lights, roll_s=roll_s, dice=dice)
        self._stop = threading.Event()
        self._owner: threading.Thread | None = None
        if roll_s > 0:
            self._owner = threading.Thread(target=self.session.run, args=(self._stop,), daemon=True)
            self._owner.start()

    # -- what the table shows --------------------------------------------------------------

    @property
    def match(self) -> IdesMatch | None:
        match = self.session.match
        assert match is None or isinstance(match, IdesMatch)
        return match

    @property
    def game(self) -> Game | None:
        return self.match.position if self.match is not None else None

    @property
    def game_id(self) -> int | None:
        return self.match.game if self.match is not None else None

    @property
    def status(self) -> IdesStatus:
        return IdesStatus(self.session.snapshot()["status"])

    @property
    def last_seq(self) -> int:
        return self.match.last_seq if self.match is not None else 0

    @property
    def ended(self) -> str | None:
        return self.match.ended if self.match is not None else None

    @property
    def lines(self) -> list[Any]:
        return self.match.history if self.match is not None else []

    @property
    def actions_applied(self) -> int:
        return len(self.lines)

    @property
    def dice_mode(self) -> DiceMode | None:
        return self.match.dice_mode if self.match is not None else None

    @property
    def verification(self) -> Any:
        return self.session.verification

    def choices(self) -> list[Action]:
        return self.match.choices() if self.match is not None else []

    def highlighted(self) -> Action | None:
        return self.match.highlighted() if self.match is not None else None

    def snapshot(self) -> dict[str, Any]:
        return self.session.snapshot()

    # -- acting ----------------------------------------------------------------------------

    def new_game(
        self,
        names: Any,
        *,
        first_seat: Any = 0,
        faces: DiceFaces | None = None,
        dice_mode: DiceMode = DiceMode.ELECTRONIC,
    ) -> int:
        if faces is None:
            request: object = {"players": names, "first_seat": first_seat, "dice_mode": dice_mode}
        else:
            request = IdesSetup(tuple(names), first_seat, faces, dice_mode)
        return int(self.session.operate("new_game", request=request))

    def act(self, action: Action, *, by: str = "operator", dice: Dice | None = None) -> Any:
        return self.session.act("play", {"action": action, "by": by, "dice": dice})

    def end(self) -> None:
        self.session.operate("end")

    def acknowledge(self) -> None:
        self.session.operate("acknowledge")

    def press(self, press: ButtonPress) -> str:
        return str(self.session.do(Press(press)))

    def close(self) -> None:
        self._stop.set()
        if self._owner is not None:
            self._owner.join(timeout=5)


def ides_session(
    log: GameLog, lights: LightsOut | None, *, roll_s: float, dice: Dice | None = None
) -> TableSession:
    """A table session playing The Ides of March on ``log``, its lights wired as a live
    table wires them: a roll animates the dice LEDs for ``roll_s`` before the faces show
    (on the dashboard too)."""
    handle = LiveSession()
    game = {"game": "ides", "dice_roll_s": roll_s}
    config = TableConfig(source="test", data_dir=log.path.parent, game=game)
    sink = IdesLive().lights(lights or NoLights(), config, handle)
    table = TableSession(log, sink, referee=IdesReferee(dice))
    handle.bind(table)
    return table


def state_digest(game: Game | None) -> str:
    """A short fingerprint of a game position, for comparing a resumed game with the original."""
    body = canonical_json(game.to_dict() if game is not None else None)
    return hashlib.sha256(body.encode()).hexdigest()[:16]
