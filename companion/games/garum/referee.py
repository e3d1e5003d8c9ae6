"""Garum as the table's referee: camera sightings judged by the rules, flags the operator settles.

A :class:`GarumMatch` is the fold of one game's logged events (its :class:`History` and the
rules position rebuilt from the accepted steps); the generic session hands it sightings and
operator actions on its one thread.  A sighting is judged against the position: a legal turn
is accepted, a move that breaks a rule is flagged for the operator (``awaiting_correction``),
and a change no single turn explains (something accepted moved) puts the table in
``desync``.  Every decision is recorded before the match takes it as true.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.boards.profile import BUILTIN, BoardProfile, load_profile
from companion.errors import CompanionError, InputError
from companion.games.garum.history import Flag, History, fold
from companion.games.garum.lights import LightStatus, TurnLights
from companion.games.garum.record import header_dict
from companion.games.garum.replay import game_at, setup_from_header
from companion.games.garum.rules import Game
from companion.games.garum.setup import GameSetup, Seat, SetupError, Variant
from companion.games.garum.sighting import Sighting
from companion.games.garum.state import BoardState
from companion.games.garum.supply import impossible_board
from companion.games.garum.view import table_view, viewer_view
from companion.games.garum.violations import Verdict, ViolationCode
from companion.games.table_seam import (
    ActionError,
    ButtonPress,
    Desk,
    EventKind,
    LoggedEvent,
    Match,
    TablePhase,
    require_phase,
)
from companion.limits import name_problem
from companion.link.lights import VAT_NUMBERS

# Violations meaning that something already accepted moved: the board is out of step with
# the rules rather than showing one bad move.
DESYNC_CODES = frozenset({ViolationCode.TILE_CHANGED, ViolationCode.WORKER_CHANGED})
COLOURS = ("B", "G", "Y", "R")


@dataclass(frozen=True)
class SetupRequest:
    """What the setup form (or a config file) asks for."""

    board: str
    variant: str
    seats: tuple[tuple[str, tuple[str, ...]], ...]
    ghost: str | None = None
    first_seat: int = 0
    aureus: tuple[int, ...] | None = None  # drawn by the companion unless given

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SetupRequest:
        """Validates a new-game request: ``board``, ``variant``, ``seats`` [{name, colours}],
        ``ghost``, ``first_seat``; errors name the field."""
        seats_data = data.get("seats")
        if not isinstance(seats_data, list) or not seats_data:
            raise InputError("expected a list of seats", field="seats")
        seats: list[tuple[str, tuple[str, ...]]] = []
        for i, seat in enumerate(seats_data):
            if not isinstance(seat, dict):
                raise InputError("expected an object with name and colours", field=f"seats[{i}]")
            name = seat.get("name")
            colours = seat.get("colours")
            problem = name_problem(name)
            if problem is not None or not isinstance(name, str):
                raise InputError(problem or "expected a name", field=f"seats[{i}].name")
            if not isinstance(colours, list) or not all(c in COLOURS for c in colours):
                raise InputError(
                    "expected a list of colour letters B G Y R", field=f"seats[{i}].colours"
                )
            seats.append((name.strip(), tuple(colours)))
        ghost = data.get("ghost")
        if ghost is not None and ghost not in COLOURS:
            raise InputError("expected null or a colour letter B G Y R", field="ghost")
        first = data.get("first_seat", 0)
        if not isinstance(first, int) or not 0 <= first < len(seats):
            raise InputError(f"expected a seat index 0-{len(seats) - 1}", field="first_seat")
        board = data.get("board", "troia")
        if board not in BUILTIN:
            raise InputError(f"expected one of: {', '.join(BUILTIN)}", field="board")
        return cls(
            board=board,
            variant=str(data.get("variant", "standard")),
            seats=tuple(seats),
            ghost=ghost,
            first_seat=first,
        )

    @classmethod
    def of(cls, setup: GameSetup) -> SetupRequest:
        """The request that recreates ``setup`` exactly (a recorded game replayed)."""
        return cls(
            setup.board.name,
            setup.variant.value,
            tuple((s.name, s.colours) for s in setup.seats),
            setup.ghost,
            setup.first_seat,
            setup.aureus or None,
        )


def make_setup(
    request: SetupRequest, load_board: Callable[[str], BoardProfile], rng: random.Random | None
) -> GameSetup:
    """Validates a new-game request; the aureus is drawn here (electronically)."""
    try:
        variant = Variant(request.variant)
    except ValueError:
        raise InputError(
            f"unknown variant {request.variant!r} (standard, emperor, haruspex)", field="variant"
        ) from None
    board = load_board(request.board)
    seats = tuple(Seat(name=name, colours=tuple(colours)) for name, colours in request.seats)
    try:
        return GameSetup.create(
            board,
            variant,
            seats,
            ghost=request.ghost,
            aureus=request.aureus,
            first_seat=request.first_seat,
            rng=rng,
        )
    except SetupError as exc:
        raise InputError(exc.message, field=exc.field) from exc


# -- the operator's actions ------------------------------------------------------------


@dataclass(frozen=True)
class Accept:
    """Accept the flagged sighting as this turn's result."""


@dataclass(frozen=True)
class Correct:
    """The true board as the operator states it (a misread, or the move as it should be)."""

    board: Any
    by: str = "operator"


@dataclass(frozen=True)
class ChooseVat:
    """Emperor variant: the round's vat, chosen by the holder."""

    vat: int


def action_named(name: str, args: Mapping[str, Any]) -> Accept | Correct | ChooseVat:
    match name:
        case "accept":
            return Accept()
        case "correct":
            if "board" not in args:
                raise InputError("missing the corrected board state", field="board")
            return Correct(args["board"], str(args.get("by", "operator")))
        case "choose_vat":
            return ChooseVat(_vat_number(args.get("vat"), from_form=bool(args.get("from_form"))))
    raise InputError(f"unknown action {name!r}", field="action")


def _vat_number(value: Any, *, from_form: bool) -> int:
    """A JSON integer, or a form's decimal text; the board checks the range."""
    if isinstance(value, str) and not from_form:
        raise InputError("must be a JSON number, not text", field="vat")
    if isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) <= 6:
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or value not in VAT_NUMBERS:
        low, high = VAT_NUMBERS[0], VAT_NUMBERS[-1]
        raise InputError(f"must be a whole number {low}-{high}", field="vat")
    return value


class GarumReferee:
    """Opens Garum matches; see the module docstring."""

    name = "garum"

    def __init__(self, load_board: Callable[[str], BoardProfile] = load_profile) -> None:
        self._load_board = load_board

    def new_game(
        self, request: object, rng: random.Random | None
    ) -> tuple[dict[str, Any], Match | None]:
        if not isinstance(request, SetupRequest):
            if not isinstance(request, Mapping):
                raise InputError("expected a JSON object", field="request")
            request = SetupRequest.from_dict(request)
        return header_dict(make_setup(request, self._load_board, rng)), None

    def open(self, opening: LoggedEvent, last: Match | None) -> GarumMatch:
        old = last.position if isinstance(last, GarumMatch) else None
        clearing = old.state if isinstance(old, Game) and old.state != BoardState() else None
        return GarumMatch(opening, clearing)

    def action(self, name: str, args: Mapping[str, Any]) -> object:
        return action_named(name, args)

    def idle_lights(self) -> TurnLights:
        return TurnLights(LightStatus.IDLE)

    def idle_view(self, status: str) -> dict[str, Any]:
        return table_view(status, None, None, self.idle_lights())

    def viewer_view(self, view: dict[str, Any]) -> dict[str, Any]:
        return viewer_view(view)

    def simulated_players(self, config: Mapping[str, Any]) -> object:
        from companion.games.garum.players import PlayersPlan

        return PlayersPlan(**config)


class GarumMatch:
    """One Garum game at the table: its history, its position, and the sightings in hand."""

    def __init__(self, opening: LoggedEvent, clearing: BoardState | None = None) -> None:
        self.game = opening.game
        self.history: History = fold([opening])
        self.position: Game = Game.new(setup_from_header(opening.payload))
        # The last game's board, while the players clear it away after a new game: seeing
        # part of it is no move of the new game.
        self._clearing = clearing
        self._last_seen: BoardState | None = None
        self._unreadable: Sighting | None = None  # a still view with unreadable cells
        self._next: tuple[dict[str, Any], Game] | None = None  # an accepted board, computed

    # -- the fold --------------------------------------------------------------------------

    @property
    def phase(self) -> TablePhase:
        h = self.history
        if h.ended is not None or self.position.is_over:
            return TablePhase.ENDED
        if h.flag is not None:
            return (
                TablePhase.DESYNC if h.flag.outcome == "desync" else TablePhase.AWAITING_CORRECTION
            )
        return TablePhase.PLAYING

    @property
    def last_seq(self) -> int:
        return self.history.last_seq

    def apply(self, event: LoggedEvent) -> None:
        self.history = self.history.apply(event)
        payload = event.payload
        match event.kind:
            case EventKind.ACCEPTED | EventKind.CORRECTION:
                ahead, self._next = self._next, None
                if ahead is not None and ahead[0] == payload["board"]:
                    self.position = ahead[1]
                else:
                    self.position = self.position.advance(BoardState.from_dict(payload["board"]))
            case EventKind.VAT_CHOSEN:
                self.position = self.position.choose_vat(int(payload["vat"]))
            case EventKind.UNDO:
                self.position = game_at(self.history)
            case _:
                pass

    # -- sightings ---------------------------------------------------------------------

    def observe(self, observation: object, desk: Desk) -> str:
        if not isinstance(observation, Sighting):
            raise InputError("expected a sighting of the Garum board", field="observation")
        observed = observation.state
        if observed == self._last_seen:
            return "ignored"
        if not observed.is_certain:
            outcome = self._hold_unreadable(observation, desk)
        else:
            self._settle_unreadable(observed, desk)
            outcome = "ended" if self.position.is_over else self._judge(observation, desk)
        self._last_seen = observed
        return outcome

    def forget_sighting(self) -> None:
        self._last_seen = None

    def _hold_unreadable(self, sighting: Sighting, desk: Desk) -> str:
        """A still board with cells the camera cannot read is never judged as it is; it is
        kept, with the unreadable cells on record, until a readable view explains it."""
        state = sighting.state
        desk.record(EventKind.READING, {"board": state.to_dict()}, sighting.jpeg)
        desk.record(
            EventKind.VERDICT,
            {
                "outcome": "unreadable",
                "cells": [i for i, ch in enumerate(state.cells) if ch == "?"],
                "lines": [i for i, w in enumerate(state.workers) if w == "?"],
                "glare": sorted(sighting.glare),
            },
        )
        self._unreadable = sighting
        return "unreadable"

    def _settle_unreadable(self, observed: BoardState, desk: Desk) -> None:
        """Placed tiles and workers never move, so an unreadable cell of a held reading is
        what a later readable view shows there.  When the held view's readable part already
        showed a change, the view so completed is judged as a turn of its own: a half-hidden
        legal turn is accepted, a move taken back before a clear view is still flagged."""
        held, self._unreadable = self._unreadable, None
        if held is None:
            return
        expected = self.position.state
        seen = held.state
        changed = any(h not in ("?", e) for h, e in zip(seen.cells, expected.cells, strict=True))
        changed = changed or any(
            h != "?" and h != e for h, e in zip(seen.workers, expected.workers, strict=True)
        )
        cells = "".join(
            o if h == "?" else h for h, o in zip(seen.cells, observed.cells, strict=True)
        )
        workers = tuple(
            o if h == "?" else h for h, o in zip(seen.workers, observed.workers, strict=True)
        )
        completed = BoardState(cells, workers)
        if changed and completed not in (observed, expected):
            self._judge(Sighting(completed, held.jpeg), desk)
            desk.publish()  # viewers see that turn (or its flag) before the next one

    def _judge(self, sighting: Sighting, desk: Desk) -> str:
        observed = sighting.state
        game = self.position
        expected = game.state
        if self._clearing is not None:
            if observed != expected and _left_over(observed, self._clearing):
                return "clearing"  # the players are still putting the last game away
            self._clearing = None
        if observed == expected:
            if self.history.flag is not None:
                desk.record(EventKind.READING, {"board": observed.to_dict()}, sighting.jpeg)
                desk.record(EventKind.VERDICT, {"outcome": "restored"})
            return "unchanged"
        verdict = game.judge(observed)
        desk.record(EventKind.READING, {"board": observed.to_dict()}, sighting.jpeg)
        outcome = _outcome(verdict)
        desk.record(EventKind.VERDICT, verdict_payload(verdict, outcome, expected, observed))
        if outcome == "accept":
            self._accept(observed, sighting.jpeg, EventKind.ACCEPTED, "camera", desk)
        return outcome

    def _accept(
        self, board: BoardState, jpeg: bytes | None, kind: EventKind, by: str, desk: Desk
    ) -> None:
        after = self.position.advance(board)  # a board the rules cannot take is never logged
        seen = board.to_dict()
        payload = {"board": seen, "by": by}
        self._next = (seen, after)
        desk.record(kind, payload, jpeg)  # logged, then true
        if self.position.is_over:
            desk.record(EventKind.GAME_ENDED, {"reason": "finished"})

    # -- the operator and the buttons ----------------------------------------------------

    def act(self, action: object, desk: Desk) -> str:
        match action:
            case Accept():
                return self._accept_flag(desk)
            case Correct(board=board, by=by):
                return self._correct(board, by, desk)
            case ChooseVat(vat=vat):
                return self._choose_vat(vat, desk)
        raise InputError(f"not a Garum action: {action!r}", field="action")

    def press(self, press: ButtonPress, desk: Desk) -> str:
        desk.record(EventKind.BUTTON, {"button": str(press.button), "value": press.value})
        if press.button == "accept":
            return self._accept_flag(desk)
        if press.button == "undo":
            return self.undo("operator", desk)
        if press.value is None:
            raise ActionError("the vat button press carries no vat number")
        return self._choose_vat(press.value, desk)

    def _flag(self) -> Flag:
        assert self.history.flag is not None
        return self.history.flag

    def _accept_flag(self, desk: Desk) -> str:
        require_phase(self.phase, TablePhase.AWAITING_CORRECTION, TablePhase.DESYNC)
        flag = self._flag()
        photo = desk.photo(flag.reading.photo) if flag.reading.photo else None
        board = BoardState.from_dict(flag.reading.board)
        self._accept(board, photo, EventKind.ACCEPTED, "operator", desk)
        return "accepted"

    def _correct(self, board: Any, by: str, desk: Desk) -> str:
        """``by`` names who corrected (the demo's simulated players correct misreads)."""
        require_phase(
            self.phase, TablePhase.PLAYING, TablePhase.AWAITING_CORRECTION, TablePhase.DESYNC
        )
        game = self.position
        state = BoardState.from_dict(board, path="board")
        if not state.is_certain:
            raise InputError("a correction cannot contain unreadable '?' cells", field="board")
        impossible = impossible_board(game.board, state)
        if impossible is not None:
            raise InputError(impossible, field="board")
        if state == game.state:
            desk.record(EventKind.DISMISSED, {"by": by})
            return "dismissed"
        photo = None
        if self.history.flag is not None:
            fid = self.history.flag.reading.photo
            photo = desk.photo(fid) if fid else None
        verdict = game.judge(state)
        desk.record(EventKind.VERDICT, verdict_payload(verdict, "correction", game.state, state))
        self._accept(state, photo, EventKind.CORRECTION, by, desk)
        return "corrected"

    def _choose_vat(self, vat: int, desk: Desk) -> str:
        game = self.position
        vats = game.board.vats
        if vat not in vats:
            raise InputError(f"must be a whole number {min(vats)}-{max(vats)}", field="vat")
        require_phase(self.phase, TablePhase.PLAYING)
        if game.setup.variant is not Variant.EMPEROR:
            raise ActionError("only the emperor variant lets a player choose the vat")
        if game.turn is None or game.turn.vat is not None:
            raise ActionError("the vat of this round is already chosen")
        try:
            game.choose_vat(vat)
        except (ValueError, CompanionError) as exc:
            raise ActionError(f"vat {vat} cannot be chosen now: {exc}") from exc
        desk.record(EventKind.VAT_CHOSEN, {"vat": vat, "by": "operator"})
        return "chosen"

    def undo(self, by: str, desk: Desk) -> str:
        """Dismisses a flagged move, or else takes back the last accepted turn."""
        require_phase(
            self.phase, TablePhase.PLAYING, TablePhase.AWAITING_CORRECTION, TablePhase.DESYNC
        )
        if self.history.flag is not None:
            desk.record(EventKind.DISMISSED, {"by": by})
            self._last_seen = None
            return "dismissed"
        if not self.history.steps:
            raise ActionError("nothing to undo: no turn has been accepted yet")
        desk.record(EventKind.UNDO, {"by": by})
        self._last_seen = None
        return "undone"

    # -- what the table shows ------------------------------------------------------------

    def lights(self) -> TurnLights:
        game = self.position
        phase = self.phase
        if phase is TablePhase.ENDED or game.turn is None:
            return TurnLights(LightStatus.ENDED)
        turn = game.turn
        upcoming: tuple[int, ...] = ()
        if game.setup.variant is Variant.HARUSPEX:
            upcoming = tuple(game.setup.aureus[turn.round - 1 :])
        status = {
            TablePhase.DESYNC: LightStatus.DESYNC,
            TablePhase.AWAITING_CORRECTION: LightStatus.ILLEGAL,
        }.get(phase, LightStatus.CHOOSE_VAT if turn.vat is None else LightStatus.TURN)
        return TurnLights(status, turn.vat, turn.colour, turn.seat, upcoming)

    def view(self, status: str) -> dict[str, Any]:
        view = table_view(status, self.position, self.history, self.lights())
        held = self._unreadable
        view["unreadable_cells"] = (
            [i for i, ch in enumerate(held.state.cells) if ch == "?"] if held else []
        )
        view["glare_vats"] = self._glare_vats(held)
        return view

    def _glare_vats(self, held: Sighting | None) -> list[int]:
        """The vats where glare washed out cells the held view could not read: no later
        frame reads them while the lamp stays where it is."""
        if held is None:
            return []
        return self.position.board.vats_of(i for i in held.glare if held.state.cells[i] == "?")


def _outcome(verdict: Verdict) -> str:
    if verdict.legal:
        return "accept"
    if any(v.code in DESYNC_CODES for v in verdict.violations):
        return "desync"
    return "dispute"


def verdict_payload(
    verdict: Verdict, outcome: str, expected: BoardState, observed: BoardState
) -> dict[str, Any]:
    """The log's record of a judgement, with the cells and lines that differ highlighted."""
    cells = sorted(
        {i for i, (a, b) in enumerate(zip(expected.cells, observed.cells, strict=True)) if a != b}
        | {c for v in verdict.violations for c in v.cells}
    )
    lines = sorted(
        {
            i
            for i, (a, b) in enumerate(zip(expected.workers, observed.workers, strict=True))
            if a != b
        }
        | {ln for v in verdict.violations for ln in v.lines}
    )
    t = verdict.turn
    return {
        "outcome": outcome,
        "legal": verdict.legal,
        "turn": {
            "number": t.number,
            "round": t.round,
            "colour": t.colour,
            "seat": t.seat,
            "vat": t.vat,
        },
        "violations": [
            {
                "code": v.code.value,
                "message": v.message,
                "cells": list(v.cells),
                "lines": list(v.lines),
            }
            for v in verdict.violations
        ],
        "cells": cells,
        "lines": lines,
    }


def _left_over(seen: BoardState, old: BoardState) -> bool:
    """Whether everything ``seen`` shows is what stood on the last game's board (part of it
    taken away already)."""
    cells = all(c in (".", "?", o) for c, o in zip(seen.cells, old.cells, strict=True))
    workers = all(w in (None, "?", o) for w, o in zip(seen.workers, old.workers, strict=True))
    return cells and workers
