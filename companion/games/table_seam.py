"""What a game gives the table session: the referee seam.

The generic session (:mod:`companion.table.session`) owns the log, the lights, the viewers
and one owner thread; it knows nothing of any game's rules.  A game plugs in as a
:class:`Referee` that opens a :class:`Match` from a setup request, and the match folds the
logged events of one game into its position, judges what the camera sees and what the
operator asks, and draws the game as JSON for the viewers and as a lights picture.

The log's event kinds are generic (:class:`EventKind`); each game puts its own payloads in
them.  Every decision reaches the log through the session's :class:`Recorder` *before* the
match takes it as true, so folding the log always rebuilds the same match.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from companion.errors import CompanionError
from companion.link.lights import TableLights as DevicePicture


class EventKind(StrEnum):
    """What a logged event records; each game fills the payloads with its own data."""

    GAME_STARTED = "game_started"  # payload: the game's header, with "game": its name
    READING = "reading"  # a stable observation the camera delivered
    VERDICT = "verdict"  # the rules' judgement of an observation
    ACCEPTED = "accepted"  # an observation accepted as a turn's result: {..., "by"}
    CORRECTION = "correction"  # the operator's corrected observation, accepted
    UNDO = "undo"  # the last accepted turn taken back
    DISMISSED = "dismissed"  # a flagged observation dismissed by the operator
    VAT_CHOSEN = "vat_chosen"  # a choice made between turns: {"vat", "by"}
    ACTION = "action"  # an operator's (or player's) action as applied: {"action", "by"}
    BUTTON = "button"  # a physical button press: {"button", ...}
    LED = "led"  # a picture sent to the LED device
    GAME_ENDED = "game_ended"  # {"reason"}
    # the operator saw that the log failed verification: {"bad_seqs", "through_seq", "by"}
    TAMPERING_ACKNOWLEDGED = "tampering_acknowledged"

    @classmethod
    def _missing_(cls, value: object) -> EventKind | None:
        """Logs from before the kinds were generic named a game's action after the game
        (``"<game>_action"``); such events fold as :attr:`ACTION`.  The stored kind (and so
        its hash) is untouched."""
        if isinstance(value, str) and value.endswith("_action") and value.count("_") == 1:
            return cls.ACTION
        return None


class LoggedEvent(Protocol):
    """One event as the log hands it back (the table's ``Event`` satisfies this)."""

    @property
    def seq(self) -> int: ...
    @property
    def game(self) -> int: ...
    @property
    def kind(self) -> EventKind: ...
    @property
    def payload(self) -> dict[str, Any]: ...
    @property
    def photo(self) -> str | None: ...
    @property
    def hash(self) -> str: ...


class Desk(Protocol):
    """What the session lends a match while it decides: the log and the viewers."""

    def record(
        self, kind: EventKind, payload: dict[str, Any], photo: bytes | None = None
    ) -> LoggedEvent:
        """Writes one event of the match's game durably, then folds it into the match."""
        ...

    def photo(self, digest: str) -> bytes | None:
        """An evidence photo kept with the log."""
        ...

    def publish(self) -> None:
        """Shows viewers and lights the match as it is now (a turn decided on the way)."""
        ...


class TablePhase(StrEnum):
    """Where a match stands, as far as the table (lights, buttons, actions) is concerned."""

    PLAYING = "playing"
    DESYNC = "desync"  # the table differs from the position in a way no single turn explains
    AWAITING_CORRECTION = "awaiting_correction"  # a move broke a rule; the operator decides
    ENDED = "ended"


class ActionError(CompanionError):
    """An operator action that does not fit the table's current state."""


def require_phase(status: str, *allowed: str) -> None:
    """Refuses an action unless the table's ``status`` is one of ``allowed``."""
    if status not in allowed:
        wanted = " or ".join(s.replace("_", " ") for s in allowed)
        raise ActionError(f"the table is {status.replace('_', ' ')}, not {wanted}")


@runtime_checkable
class LightsPicture(Protocol):
    """What the LEDs should show: for the log and the viewers as JSON, for the device as a
    link picture."""

    def to_dict(self) -> dict[str, object]: ...

    def on_device(self) -> DevicePicture: ...


@dataclass(frozen=True)
class ButtonPress:
    """A physical button press as the table hears it: ``button`` is the game's name for
    it ("accept", "undo", "vat", "roll", ...), ``value`` an optional number."""

    button: str
    value: int | None = None


class Match(Protocol):
    """One game in play, owned by the session's thread; see the module docstring."""

    #: The game's number in the log (the seq of its ``game_started`` event).
    game: int
    #: The rules position (the game's own type), for simulated players and tests.
    position: Any
    #: The folded story of the game (the game's own type), for pages and tests.
    history: Any

    @property
    def phase(self) -> TablePhase: ...

    @property
    def last_seq(self) -> int:
        """The newest event folded in: the viewers' version of the game."""
        ...

    def apply(self, event: LoggedEvent) -> None:
        """Folds one more logged event of this game (replay, or right after recording)."""
        ...

    def observe(self, observation: object, desk: Desk) -> str:
        """Judges what the camera saw; returns a one-word outcome."""
        ...

    def act(self, action: object, desk: Desk) -> object:
        """Carries out one of the game's operator actions (see :meth:`Referee.action`);
        returns its outcome, raises :class:`ActionError` when it does not fit now."""
        ...

    def press(self, press: ButtonPress, desk: Desk) -> str:
        """Does what a physical button means in this game; raises :class:`ActionError`."""
        ...

    def undo(self, by: str, desk: Desk) -> str:
        """Takes back the last decision (a flag, or else the last accepted turn)."""
        ...

    def forget_sighting(self) -> None:
        """The last observation was not decided (the log failed): judge it again."""
        ...

    def lights(self) -> LightsPicture: ...

    def view(self, status: str) -> dict[str, Any]:
        """The whole game as JSON for the operator (the table adds its generic keys)."""
        ...


@runtime_checkable
class Referee(Protocol):
    """What a game gives the table: new matches, resumed matches, pictures and views."""

    name: str

    def new_game(
        self, request: object, rng: random.Random | None
    ) -> tuple[dict[str, Any], Match | None]:
        """Validates a setup request (the game's own request, or the setup form's JSON);
        returns the header to log, and optionally a match to hand on (what the last game
        leaves on the table).  Errors are :class:`~companion.errors.InputError`."""
        ...

    def open(self, opening: LoggedEvent, last: Match | None) -> Match:
        """The match a logged ``game_started`` event opens (``last`` is the match it
        replaces, if any: a camera game may need the old board)."""
        ...

    def action(self, name: str, args: Mapping[str, Any]) -> object:
        """The game's operator action called ``name``; unknown names are input errors."""
        ...

    def idle_lights(self) -> LightsPicture:
        """The lights with no game (or a log waiting for the operator)."""
        ...

    def idle_view(self, status: str) -> dict[str, Any]:
        """The view with no game in play."""
        ...

    def viewer_view(self, view: dict[str, Any]) -> dict[str, Any]:
        """``view`` as anyone watching may see it (a copy when anything is hidden)."""
        ...

    def simulated_players(self, config: Mapping[str, Any]) -> object:
        """The demo's players for this game (the game's own object)."""
        ...


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, plain ASCII (the log hashes it)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def fold_match(referee: Referee, events: Iterable[LoggedEvent]) -> Match:
    """The match one game's events rebuild; the first must be its ``game_started``."""
    it: Iterator[LoggedEvent] = iter(events)
    first = next(it, None)
    if first is None or first.kind is not EventKind.GAME_STARTED:
        raise ValueError("a game's events start with game_started")
    match = referee.open(first, None)
    for event in it:
        match.apply(event)
    return match
