"""The Ides of March as the table's referee: the operator's (or the buttons') choices in, the
rules' answer out.  There is no camera: every move is an action the rules check.

An :class:`IdesMatch` is the fold of one game's logged actions (a roll logged with the face
it showed), so a resumed game replays exactly.  A roll is thrown by the companion's dice in
the electronic dice mode, or entered as the face a real die shows in the physical mode.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
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
from companion.games.ides import words as words
from companion.games.ides.lights import picture
from companion.games.ides.view import LogLine, ides_view
from companion.games.table_seam import (
    ButtonPress,
    Desk,
    EventKind,
    LoggedEvent,
    Match,
    TablePhase,
)
from companion.limits import name_problem
from companion.link.lights import TableLights

HEADER_FORMAT = "companion-ides-log/1"
BUTTON_NAMES = ("confirm", "roll", "next", "previous")


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


@dataclass(frozen=True)
class IdesSetup:
    """A new game: the players clockwise, who starts, the dice and who throws them."""

    players: tuple[str, ...]
    first_seat: int = 0
    faces: DiceFaces | None = None
    dice_mode: DiceMode = DiceMode.ELECTRONIC

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IdesSetup:
        """``{"players": [...], "first_seat": 0, "dice_mode": "electronic"}``."""
        names = check_names(data.get("players"))
        first = data.get("first_seat", 0)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < len(names):
            raise InputError(f"expected a seat 0-{len(names) - 1}", field="first_seat")
        mode = DiceMode.parse(data.get("dice_mode", DiceMode.ELECTRONIC.value))
        return cls(tuple(names), first, None, mode)

    def header(self) -> dict[str, Any]:
        """The opening event of the game; the dice mode is in it, so a replay knows who
        threw."""
        return {
            "game": "ides",
            "format": HEADER_FORMAT,
            "players": list(self.players),
            "first_seat": self.first_seat,
            "dice": (self.faces or DiceFaces()).to_dict(),
            "dice_mode": DiceMode(self.dice_mode).value,
        }


# -- the operator's actions ------------------------------------------------------------


@dataclass(frozen=True)
class Play:
    """Apply ``action`` for the current player (a roll is thrown first unless it names the
    face a physical die shows); ``dice`` overrides the table's dice (a seeded demo)."""

    action: Action
    by: str = "operator"
    dice: Dice | None = None


@dataclass(frozen=True)
class Highlight:
    """Move the highlighted choice (the buttons' cursor) by ``step``, wrapping."""

    step: int


@dataclass(frozen=True)
class Refuse:
    """Show a refusal found outside the rules engine (a stale or malformed choice)."""

    refusal: IllegalAction


@dataclass(frozen=True)
class Settle:
    """The dice LEDs stopped rolling: the dashboard shows the faces too."""


class IdesReferee:
    """Opens Ides matches; ``dice`` throws for electronic games (the secure dice if none)."""

    name = "ides"

    def __init__(self, dice: Dice | None = None) -> None:
        self.dice = dice

    def new_game(
        self, request: object, rng: random.Random | None
    ) -> tuple[dict[str, Any], Match | None]:
        if isinstance(request, IdesSetup):  # checked like the form's, keeping its dice
            wanted = {"players": list(request.players), "first_seat": request.first_seat}
            checked = IdesSetup.from_dict({**wanted, "dice_mode": request.dice_mode})
            return replace(checked, faces=request.faces).header(), None
        if not isinstance(request, Mapping):
            raise InputError("expected a JSON object", field="request")
        return IdesSetup.from_dict(request).header(), None

    def open(self, opening: LoggedEvent, last: Match | None) -> IdesMatch:
        return IdesMatch(opening, self.dice)

    def action(self, name: str, args: Mapping[str, Any]) -> object:
        match name:
            case "play":
                action = args.get("action")
                if not isinstance(action, Action):
                    action = action_from_dict(action)
                dice = args.get("dice")
                return Play(action, str(args.get("by", "operator")), dice)
            case "highlight":
                step = args.get("step")
                if not isinstance(step, int) or isinstance(step, bool):
                    raise InputError("expected a whole number", field="step")
                return Highlight(step)
            case "settle":
                return Settle()
            case "refuse":
                refusal = args.get("refusal")
                if not isinstance(refusal, IllegalAction):
                    raise InputError("expected a refusal", field="refusal")
                return Refuse(refusal)
        raise InputError(f"unknown action {name!r}", field="action")

    def idle_lights(self) -> TableLights:
        return picture(None)

    def idle_view(self, status: str) -> dict[str, Any]:
        return ides_view(None, _status(status), picture(None))

    def viewer_view(self, view: dict[str, Any]) -> dict[str, Any]:
        return view  # nothing at an Ides table is hidden from the players

    def simulated_players(self, config: Mapping[str, Any]) -> object:
        from companion.games.ides.simulate import choose

        return choose


def _status(table_status: str) -> str:
    """The Ides view's word for the table's state: a finished game is ``over``."""
    return "over" if table_status == "ended" else table_status


class IdesMatch:
    """One Ides game at the table; see the module docstring."""

    def __init__(self, opening: LoggedEvent, dice: Dice | None = None) -> None:
        header = opening.payload
        faces = DiceFaces.from_dict(header.get("dice"))
        names = check_names(header.get("players"))
        # A log from before the choice existed was played with the companion's dice.
        self.dice_mode = DiceMode.parse(header.get("dice_mode", DiceMode.ELECTRONIC.value))
        self.position = Game.setup(names, first_seat=int(header.get("first_seat", 0)), faces=faces)
        self.opening = self.position  # where the game started: a simulated script starts here
        self.game = opening.game
        self.history: list[LogLine] = []
        self.ended: str | None = None
        self.refusal: IllegalAction | None = None
        self.cursor = 0
        self._dice = dice
        self._last_seq = opening.seq
        self._views = 0
        self._rolled = False  # the lights show the last throw still rolling
        self._next: tuple[dict[str, Any], Game] | None = None  # a played action, computed

    @property
    def phase(self) -> TablePhase:
        return (
            TablePhase.ENDED if self.position.over or self.ended is not None else TablePhase.PLAYING
        )

    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def actions_applied(self) -> int:
        return len(self.history)

    def apply(self, event: LoggedEvent) -> None:
        self._last_seq = event.seq
        if event.kind is EventKind.ACTION:
            payload = event.payload
            ahead, self._next = self._next, None
            try:
                action = action_from_dict(payload.get("action"))
                if ahead is not None and ahead[0] == payload.get("action"):
                    after = ahead[1]
                else:
                    after = self.position.apply(action)
            except (IllegalAction, InputError) as exc:
                raise ValueError(f"event {event.seq} cannot be replayed: {exc}") from exc
            self._record(action, after, event.seq, payload.get("by"))
        elif event.kind is EventKind.GAME_ENDED:
            self.ended = str(event.payload.get("reason", "ended"))

    def _record(self, action: Action, after: Game, seq: int, by: Any) -> None:
        game = self.position
        names = [p.name for p in game.players]
        label = words.label(action, names)
        self.history.append(LogLine(seq, game.turn_number, game.current, label, str(by)))
        self.position = after

    # -- choices ---------------------------------------------------------------------------

    def choices(self) -> list[Action]:
        """Exactly the actions the rules allow the current player now (none when over).

        With physical dice a roll is offered once per face, for the operator to pick the one
        the real die shows; electronic rolls are offered without a face."""
        game = self.position
        if self.phase is not TablePhase.PLAYING:
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

    def _highlight(self, step: int) -> Action | None:
        offered = self.choices()
        if not offered:
            return None
        self.cursor = (self.cursor + step) % len(offered)
        return offered[self.cursor]

    def highlighted(self) -> Action | None:
        offered = self.choices()
        return offered[self.cursor % len(offered)] if offered else None

    # -- acting ------------------------------------------------------------------------

    def act(self, action: object, desk: Desk) -> object:
        match action:
            case Play(action=chosen, by=by, dice=dice):
                return self._play(chosen, by, dice, desk)
            case Highlight(step=step):
                return self._highlight(step)
            case Refuse(refusal=refusal):
                self.refusal = refusal
                return refusal.message
            case Settle():
                self._rolled = False
                return "settled"
        raise InputError(f"not an Ides of March action: {action!r}", field="action")

    def _play(self, action: Action, by: str, dice: Dice | None, desk: Desk) -> Action:
        """Applies ``action`` (throwing a roll first); returns it as applied.  A refusal
        raises ``IllegalAction`` and is shown until the next action; a roll that does not
        fit the dice mode raises ``InputError`` and changes nothing."""
        game = self._require_playing()
        self._check_dice_mode(action)
        thrower = dice or self._dice or Dice(game.faces)
        self._rolled = False
        try:
            applied, after = game.play(action, thrower)
        except IllegalAction as exc:
            self.refusal = exc
            raise
        logged = action_to_dict(applied)
        self._next = (logged, after)
        desk.record(EventKind.ACTION, {"action": logged, "by": by})
        self.refusal = None
        self.cursor = 0
        if after.over:
            winner = after.players[after.winner or 0].name
            desk.record(EventKind.GAME_ENDED, {"reason": f"{winner} wins the Forum"})
        self._rolled = isinstance(applied, Roll | Bribe | FateRoll)
        return applied

    def press(self, press: ButtonPress, desk: Desk) -> str:
        """*roll* throws when a plain roll is offered; *next* and *previous* move the
        highlighted choice; *confirm* applies it.  What the rules cannot use is refused in
        words, like any refusal."""
        desk.record(EventKind.BUTTON, {"button": press.button, "game": "ides"})
        button = press.button
        if button not in BUTTON_NAMES:
            return f"the {button} button is not used in an Ides game"
        try:
            if button in ("next", "previous"):
                chosen = self._highlight(1 if button == "next" else -1)
                return "nothing to choose" if chosen is None else f"highlighted {chosen.KIND}"
            if button == "roll":
                rolls = [a for a in self.choices() if isinstance(a, Roll)]
                if len(rolls) != 1:
                    why = (
                        "physical dice: pick the face the die shows with next and confirm"
                        if self.dice_mode is DiceMode.PHYSICAL
                        else "no roll is offered now: choose with next and confirm"
                    )
                    self.refusal = IllegalAction(Rule.WRONG_STEP, why)
                    raise self.refusal
                return f"rolled {self._play(rolls[0], 'buttons', None, desk).KIND}"
            chosen_action = self.highlighted()
            if chosen_action is None:
                return "nothing to confirm"
            return f"applied {self._play(chosen_action, 'buttons', None, desk).KIND}"
        except IllegalAction as exc:
            return f"refused: {exc.message}"

    def undo(self, by: str, desk: Desk) -> str:
        raise IllegalAction(Rule.WRONG_STEP, "an applied action cannot be taken back")

    def forget_sighting(self) -> None:
        pass  # no camera: nothing is seen twice

    def observe(self, observation: object, desk: Desk) -> str:
        return "no camera"

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
        if self.phase is not TablePhase.PLAYING:
            raise IllegalAction(Rule.GAME_OVER, "no Ides game is in play: start a new game first")
        return self.position

    # -- what the table shows ------------------------------------------------------------

    def lights(self) -> TableLights:
        return picture(self.position, refused=self.refusal is not None, rolling=self._rolled)

    def view(self, status: str) -> dict[str, Any]:
        self._views += 1
        return ides_view(self, _status(status), self.lights(), self._views)
