"""An Ides of March game at the table: actions in, rules checked, log, LEDs and dashboard out.

Every applied action (a roll with the face it showed) is written to the :class:`GameLog`
before anyone hears of it, and the game is always the fold of the logged actions, so a
restart after ``kill -9`` resumes the same game: :meth:`IdesTable.__init__` replays the last
Ides game of the log.  The dashboard, the buttons and the demo all act through
:meth:`IdesTable.act`; one lock serialises them.  A log that fails verification starts the
table ``tampered``: nothing is played until the operator acknowledges it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from companion.errors import InputError
from companion.games.ides import (
    Action,
    Bribe,
    Dice,
    DiceFaces,
    DiceMode,
    FateRoll,
    Game,
    IllegalAction,
    Roll,
    Rule,
    action_from_dict,
    action_to_dict,
    each_face,
)
from companion.limits import name_problem
from companion.link.lights import TableLights
from companion.table import ides_words as words
from companion.table.evidence import TamperedLog, acknowledge, evidence_view, unacknowledged
from companion.table.feed import ViewerFeed
from companion.table.ides_lights import DiceLights, LightsOut, picture
from companion.table.ides_view import ides_view
from companion.table.log import Event, EventKind, GameLog, LogError, canonical_json

GAME_KIND = "ides"  # the ``game`` field of an Ides game's opening event
HEADER_FORMAT = "companion-ides-log/1"


class IdesStatus(StrEnum):
    SETUP = "setup"  # no Ides game in the log yet
    PLAYING = "playing"
    OVER = "over"  # won, or ended by the operator
    TAMPERED = "tampered"  # the log failed verification; the operator has not yet seen it


@dataclass(frozen=True)
class LogLine:
    """One applied action as the dashboard lists it."""

    seq: int
    turn: int
    seat: int
    text: str
    by: str

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "turn": self.turn,
            "seat": self.seat,
            "name": names[self.seat],
            "text": self.text,
            "by": self.by,
        }


def check_names(names: Any) -> list[str]:
    """2-4 player names of 1-40 characters; errors name the offending entry."""
    if not isinstance(names, list) or not 2 <= len(names) <= 4:
        raise InputError("expected a list of 2-4 player names", field="players")
    out: list[str] = []
    for i, name in enumerate(names):
        problem = name_problem(name)
        if problem is not None or not isinstance(name, str):
            raise InputError(problem or "expected a name", field=f"players[{i}]")
        out.append(name.strip())
    return out


def is_ides(event: Event) -> bool:
    return event.kind is EventKind.GAME_STARTED and event.payload.get("game") == GAME_KIND


class IdesTable:
    """Owns the Ides game in play; see the module docstring."""

    def __init__(
        self,
        log: GameLog,
        lights: LightsOut | None = None,
        *,
        dice: Dice | None = None,
        hub: ViewerFeed | None = None,
        roll_s: float = 0.8,
    ) -> None:
        self.log = log
        self.hub = hub or ViewerFeed()
        self._dice = dice
        self._lock = threading.RLock()
        self._lights = DiceLights(lights, roll_s=roll_s, on_settle=self._settled)
        self.game: Game | None = None
        self.dice_mode = DiceMode.ELECTRONIC
        self.game_id: int | None = None
        self.ended: str | None = None
        self.lines: list[LogLine] = []
        self.last_seq = 0
        self.refusal: IllegalAction | None = None
        self.cursor = 0
        self._version = 0
        self._snapshot: dict[str, Any] = {}
        self.verification = log.verify()
        self.tampered = unacknowledged(log, self.verification)
        self.replay_error: str | None = None
        self._resume()

    # -- reading ---------------------------------------------------------------------------

    @property
    def status(self) -> IdesStatus:
        if self.tampered:
            return IdesStatus.TAMPERED
        if self.game is None:
            return IdesStatus.SETUP
        if self.game.over or self.ended is not None:
            return IdesStatus.OVER
        return IdesStatus.PLAYING

    @property
    def lights_error(self) -> str | None:
        return self._lights.error

    @property
    def actions_applied(self) -> int:
        return len(self.lines)

    def snapshot(self) -> dict[str, Any]:
        """The latest published view (the ``/api/ides/state`` body)."""
        with self._lock:
            return self._snapshot

    def choices(self) -> list[Action]:
        """Exactly the actions the rules allow the current player now (none when over).

        With physical dice a roll is offered once per face, for the operator to pick the one
        the real die shows; electronic rolls are offered without a face."""
        game = self.game
        if game is None or self.status is not IdesStatus.PLAYING:
            return []
        legal = game.legal_actions()
        if self.dice_mode is DiceMode.ELECTRONIC:
            return legal
        out: list[Action] = []
        for action in legal:
            if isinstance(action, Roll | Bribe | FateRoll):
                out += each_face(action, game.faces)
            else:
                out.append(action)
        return out

    # -- resuming --------------------------------------------------------------------------

    def _resume(self) -> None:
        """Replays the last Ides game of the log; a logged action the rules refuse is damage."""
        try:
            opening = next((e for e in reversed(self.log.games()) if is_ides(e)), None)
            if opening is not None:
                self.game_id = opening.game
                for event in self.log.events(opening.game):
                    self._replay(event)
        except (LogError, InputError, ValueError, TypeError, AttributeError) as exc:
            if self.verification.ok:
                raise
            self.game, self.game_id = None, None  # an edited log may not replay: keep it
            self.replay_error = f"the last game cannot be replayed from the log: {exc}"
        self._publish(self._lights.show(picture(self.game)))

    def evidence(self) -> dict[str, Any]:
        """What the page says about the log's integrity."""
        return evidence_view(self.log, self.verification, self.tampered)

    def acknowledge(self) -> None:
        """The operator has seen the log's damage; the log keeps it and records the look."""
        with self._lock:
            if not self.tampered:
                raise TamperedLog("the table is not waiting for an acknowledgement")
            event = acknowledge(self.log, self.verification, self.game_id)
            self.last_seq = event.seq
            self.tampered = False
            self._publish(self._lights.show(picture(self.game)))

    def _replay(self, event: Event) -> None:
        self.last_seq = event.seq
        if event.kind is EventKind.GAME_STARTED:
            self._open(event.payload, event.seq)
        elif event.kind is EventKind.ACTION:
            assert self.game is not None
            try:
                action = action_from_dict(event.payload.get("action"))
                self._record(action, self.game.apply(action), event.seq, event.payload.get("by"))
            except (IllegalAction, InputError) as exc:
                raise LogError(
                    f"{self.log.path}: event {event.seq} cannot be replayed: {exc}"
                ) from exc
        elif event.kind is EventKind.GAME_ENDED:
            self.ended = str(event.payload.get("reason", "ended"))

    def _open(self, header: dict[str, Any], seq: int) -> None:
        faces = DiceFaces.from_dict(header.get("dice"))
        names = check_names(header.get("players"))
        # A log from before the choice existed was played with the companion's dice.
        mode = DiceMode.parse(header.get("dice_mode", DiceMode.ELECTRONIC.value))
        self.game = Game.setup(names, first_seat=int(header.get("first_seat", 0)), faces=faces)
        self.dice_mode = mode
        self.game_id = seq
        self.ended = None
        self.lines = []
        self.refusal = None
        self.cursor = 0

    def _record(self, action: Action, after: Game, seq: int, by: Any) -> None:
        assert self.game is not None
        names = [p.name for p in self.game.players]
        line = LogLine(
            seq, self.game.turn_number, self.game.current, words.label(action, names), str(by)
        )
        self.lines.append(line)
        self.game = after

    # -- acting ----------------------------------------------------------------------------

    def new_game(
        self,
        names: Any,
        *,
        first_seat: int = 0,
        faces: DiceFaces | None = None,
        dice_mode: DiceMode = DiceMode.ELECTRONIC,
    ) -> int:
        """Opens a new Ides game (ending one in play); returns its number in the log.  The
        dice mode is written in the game's opening event, so a replay knows who threw."""
        checked = check_names(names)
        if (
            not isinstance(first_seat, int)
            or isinstance(first_seat, bool)
            or not 0 <= first_seat < len(checked)
        ):
            raise InputError(f"expected a seat 0-{len(checked) - 1}", field="first_seat")
        header = {
            "game": GAME_KIND,
            "format": HEADER_FORMAT,
            "players": checked,
            "first_seat": first_seat,
            "dice": (faces or DiceFaces()).to_dict(),
            "dice_mode": DiceMode(dice_mode).value,
        }
        with self._lock:
            if self.tampered:
                raise TamperedLog("the game log was altered: acknowledge it before a new game")
            if self.status is IdesStatus.PLAYING and self.game_id is not None:
                self._append(EventKind.GAME_ENDED, {"reason": "replaced by a new game"})
            event = self.log.start_game(header)
            self.last_seq = event.seq
            self._open(header, event.seq)
            self._publish(self._lights.show(picture(self.game)))
            return event.seq

    def act(self, action: Action, *, by: str = "operator", dice: Dice | None = None) -> Action:
        """Applies ``action`` for the current player (throwing a roll first); returns it as
        applied.  A refusal raises ``IllegalAction`` and is shown until the next action; a
        roll that does not fit the dice mode raises ``InputError`` and changes nothing."""
        with self._lock:
            game = self._require_playing()
            self._check_dice_mode(action)
            thrower = dice or self._dice or Dice(game.faces)
            try:
                applied, after = game.play(action, thrower)
            except IllegalAction as exc:
                self.refusal = exc
                self._publish(self._lights.show(picture(game, refused=True)))
                raise
            event = self._append(EventKind.ACTION, {"action": action_to_dict(applied), "by": by})
            self._record(applied, after, event.seq, by)
            self.refusal = None
            self.cursor = 0
            if after.over:
                winner = after.players[after.winner or 0].name
                self._append(EventKind.GAME_ENDED, {"reason": f"{winner} wins the Forum"})
                self.ended = f"{winner} wins the Forum"
            rolled = isinstance(applied, Roll | Bribe | FateRoll)
            self._publish(self._lights.show(picture(after), roll=rolled))
            return applied

    def end(self, reason: str = "ended by the operator") -> None:
        with self._lock:
            self._require_playing()
            self._append(EventKind.GAME_ENDED, {"reason": reason})
            self.ended = reason
            self._publish(self._lights.show(picture(self.game)))

    def refuse(self, exc: IllegalAction) -> None:
        """Shows a refusal found outside :meth:`act` (a stale or malformed choice)."""
        with self._lock:
            self.refusal = exc
            self._publish(self._lights.show(picture(self.game, refused=True)))

    def note_button(self, button: str) -> None:
        """Logs a physical button press with the game (evidence; ignored on replay)."""
        with self._lock:
            if self.game_id is not None:
                self._append(EventKind.BUTTON, {"button": button, "game": GAME_KIND})

    # -- the offered-choice cursor (buttons) ----------------------------------------------

    def select(self, step: int) -> Action | None:
        """Moves the highlighted choice by ``step`` (wrapping); returns it."""
        with self._lock:
            offered = self.choices()
            if not offered:
                return None
            self.cursor = (self.cursor + step) % len(offered)
            self._publish(self._lights.shown or picture(self.game))
            return offered[self.cursor]

    def highlighted(self) -> Action | None:
        with self._lock:
            offered = self.choices()
            return offered[self.cursor % len(offered)] if offered else None

    # -- internals -------------------------------------------------------------------------

    def _check_dice_mode(self, action: Action) -> None:
        """Electronic dice are the companion's alone to throw; physical dice need the face
        the real die shows (checked against the die by the rules)."""
        if not isinstance(action, Roll | Bribe | FateRoll):
            return
        if self.dice_mode is DiceMode.ELECTRONIC and action.face is not None:
            raise InputError(
                "the companion throws the dice in this game; a roll cannot name its face",
                field="action.face",
            )
        if self.dice_mode is DiceMode.PHYSICAL and action.face is None:
            raise InputError(
                "this game uses physical dice: enter the face the die shows",
                field="action.face",
            )

    def _require_playing(self) -> Game:
        if self.tampered:
            raise IllegalAction(Rule.GAME_OVER, "the game log was altered: acknowledge it first")
        if self.game is None or self.status is not IdesStatus.PLAYING:
            raise IllegalAction(Rule.GAME_OVER, "no Ides game is in play: start a new game first")
        return self.game

    def _append(self, kind: EventKind, payload: dict[str, Any]) -> Event:
        assert self.game_id is not None
        event = self.log.append(self.game_id, kind, payload)
        self.last_seq = event.seq
        return event

    def _settled(self, _lights: TableLights) -> None:
        with self._lock:
            self._publish(self._lights.shown or picture(self.game))

    def _publish(self, lights: TableLights) -> None:
        self._version += 1
        view = ides_view(self, lights, self._version)
        with self._lock:
            self._snapshot = view
        self.hub.publish(view)

    def close(self) -> None:
        self._lights.close()


def state_digest(game: Game | None) -> str:
    """A short fingerprint of a game position, for comparing a resumed game with the original."""
    body = canonical_json(game.to_dict() if game is not None else None)
    return hashlib.sha256(body.encode()).hexdigest()[:16]
