"""The table session: stable readings in, rules verdicts, log, lights and dashboard out.

One owner thread runs :meth:`TableSession.run`; readings, button presses and operator
actions only enqueue.  Every decision is written to the :class:`GameLog` *before* the
lights or viewers hear of it, and the session's state is always a fold of the log, so a
restart after ``kill -9`` resumes the same game exactly.

States: ``SETUP`` (no game), ``PLAYING``, ``DESYNC`` (the board differs from what the rules
expect in a way no single turn explains: something accepted moved), ``AWAITING_CORRECTION``
(a move broke a rule; the operator accepts, corrects or undoes it) and ``ENDED``.  A log
that fails verification when the table starts puts it in ``TAMPERED`` instead: nothing is
judged until the operator acknowledges it, and the acknowledgement is itself logged.
"""

from __future__ import annotations

import contextlib
import queue
import random
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from companion.boards.profile import BUILTIN, BoardProfile, load_profile
from companion.errors import CompanionError, InputError
from companion.games.garum import (
    Game,
    GameSetup,
    Seat,
    SetupError,
    Variant,
    Verdict,
    ViolationCode,
    impossible_board,
)
from companion.games.garum.state import BoardState
from companion.limits import name_problem
from companion.table.evidence import acknowledge, evidence_view, unacknowledged
from companion.table.history import Flag, History, fold
from companion.table.hub import Hub
from companion.table.log import EventKind, GameLog, LogError, Verification
from companion.table.ports import (
    Button,
    ButtonPress,
    ButtonSource,
    LightsSink,
    LightStatus,
    Reading,
    ReadingSource,
    TableLights,
)
from companion.table.replay import game_at, header_of
from companion.table.view import table_view, viewer_view

# Violations meaning that something already accepted moved: the board is out of step with
# the rules rather than showing one bad move.
DESYNC_CODES = frozenset({ViolationCode.TILE_CHANGED, ViolationCode.WORKER_CHANGED})


class TableState(StrEnum):
    SETUP = "setup"
    PLAYING = "playing"
    DESYNC = "desync"
    AWAITING_CORRECTION = "awaiting_correction"
    ENDED = "ended"
    TAMPERED = "tampered"


class ActionError(CompanionError):
    """An operator action that does not fit the table's current state."""


@dataclass
class _Command:
    kind: str
    args: dict[str, Any] = field(default_factory=dict)
    done: Future[Any] = field(default_factory=Future)


@dataclass(frozen=True)
class NewGame:
    """What the setup form (or a config file) asks for."""

    board: str
    variant: str
    seats: tuple[tuple[str, tuple[str, ...]], ...]
    ghost: str | None = None
    first_seat: int = 0
    aureus: tuple[int, ...] | None = None  # drawn by the companion unless given

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NewGame:
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
            if not isinstance(colours, list) or not all(c in ("B", "G", "Y", "R") for c in colours):
                raise InputError(
                    "expected a list of colour letters B G Y R", field=f"seats[{i}].colours"
                )
            seats.append((name.strip(), tuple(colours)))
        ghost = data.get("ghost")
        if ghost is not None and ghost not in ("B", "G", "Y", "R"):
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
    def of(cls, setup: GameSetup) -> NewGame:
        """The request that recreates ``setup`` exactly (a recorded game replayed)."""
        return cls(
            setup.board.name,
            setup.variant.value,
            tuple((s.name, s.colours) for s in setup.seats),
            setup.ghost,
            setup.first_seat,
            setup.aureus or None,
        )


class TableSession:
    """Owns the rules position of the game at the table; see the module docstring."""

    def __init__(
        self,
        log: GameLog,
        lights: LightsSink,
        hub: Hub | None = None,
        *,
        rng: random.Random | None = None,
        load_board: Callable[[str], BoardProfile] = load_profile,
    ) -> None:
        self.log = log
        self.hub = hub or Hub()
        self._lights = lights
        self._rng = rng
        self._load_board = load_board
        self._inbox: queue.Queue[_Command | None] = queue.Queue()
        self._lock = threading.Lock()
        self._history: History | None = None
        self._game: Game | None = None
        self._last_seen: BoardState | None = None
        # The last game's board, while the players clear it away after a new game: seeing
        # part of it is no move of the new game.
        self._clearing: BoardState | None = None
        self._unreadable: Reading | None = None  # a still view with unreadable cells
        self._pumps: list[threading.Thread] = []
        self._shown: TableLights | None = None
        self._snapshot: dict[str, Any] = {}
        self._published: tuple[History | None, Game | None] = (None, None)
        self.lights_error: str | None = None
        self.log_error: str | None = None
        self.source_error: str | None = None
        self._lights_pending = False
        self._running = threading.Event()
        self._drain_lock = threading.Lock()
        self.verification = Verification(True, 0)
        self._tampered = False
        self._acknowledged_seq = 0
        self.replay_error: str | None = None
        self._resume()

    # -- state -----------------------------------------------------------------------------

    @property
    def state(self) -> TableState:
        if self._tampered:
            return TableState.TAMPERED
        h = self._history
        if h is None:
            return TableState.SETUP
        if h.ended is not None or (self._game is not None and self._game.is_over):
            return TableState.ENDED
        if h.flag is not None:
            return (
                TableState.DESYNC if h.flag.outcome == "desync" else TableState.AWAITING_CORRECTION
            )
        return TableState.PLAYING

    @property
    def game(self) -> Game | None:
        return self._game

    @property
    def history(self) -> History | None:
        return self._history

    def snapshot(self) -> dict[str, Any]:
        """The latest published view of the table (the ``/api/state`` body)."""
        with self._lock:
            return self._snapshot

    def position(self) -> tuple[History | None, Game | None]:
        """The history and rules position as last published: read together, from any
        thread, they always belong to the same moment (the attributes may be mid-change)."""
        with self._lock:
            return self._published

    def _resume(self) -> None:
        """Rebuilds the last game from the log, once the log has proved itself intact."""
        self.verification = self.log.verify()
        self._tampered = unacknowledged(self.log, self.verification)
        game_id = self.log.last_game()
        if game_id is not None:
            try:
                self._history = fold(self.log.events(game_id))
                self._rebuild()
            except Exception as exc:  # an edited log may not even replay: say so, keep it
                if self.verification.ok:
                    raise
                self._history, self._game = None, None
                self.replay_error = f"the last game cannot be replayed from the log: {exc}"
        self._refresh(log_lights=False)

    def evidence(self) -> dict[str, Any]:
        """What the pages say about the log's integrity."""
        return evidence_view(self.log, self.verification, self._tampered)

    def _rebuild(self) -> None:
        """The rules position is a pure function of the accepted steps."""
        assert self._history is not None
        self._game = game_at(self._history)

    # -- inputs (any thread) -------------------------------------------------------------

    def submit(self, kind: str, **args: Any) -> Future[Any]:
        cmd = _Command(kind, args)
        self._inbox.put(cmd)
        return cmd.done

    def operate(self, kind: str, timeout_s: float = 10.0, **args: Any) -> Any:
        """Runs an operator action on the owner thread and waits for its outcome."""
        if kind not in _OPERATOR_ACTIONS:
            raise InputError(f"unknown action {kind!r}", field="action")
        done = self.submit(kind, **args)
        if not self._running.is_set():  # no owner thread: the caller is the owner
            self.drain()
        return done.result(timeout=timeout_s)

    def feed(self, reading: Reading | None) -> None:
        if reading is not None:
            self.submit("reading", reading=reading)

    def press(self, press: ButtonPress) -> None:
        self.submit("button", press=press)

    def attach_readings(self, source: ReadingSource) -> None:
        """Pumps a reading source from its own thread into the queue."""

        def loop() -> None:
            for reading in source.readings():
                self.feed(reading)

        self._pump(loop, "readings")

    def attach_buttons(self, source: ButtonSource) -> None:
        def loop() -> None:
            for press in source.presses():
                self.press(press)

        self._pump(loop, "buttons")

    def _pump(self, loop: Callable[[], None], name: str) -> None:
        def guarded() -> None:
            try:
                loop()
            except Exception as exc:  # an unplugged camera: the table stays up and says so
                self.submit("source_failed", error=f"{name}: {exc}")

        thread = threading.Thread(target=guarded, name=f"table-{name}", daemon=True)
        thread.start()
        self._pumps.append(thread)

    def join_inputs(self, timeout_s: float = 5.0) -> None:
        """Waits for the input threads to end once their sources are closed (a frame being
        recognised is finished, not cut off at interpreter exit)."""
        for thread in self._pumps:
            thread.join(timeout_s)

    def _do_source_failed(self, error: str) -> str:
        self.source_error = error
        return error

    # -- the owner thread ------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None) -> None:
        """Processes commands until :meth:`stop` (or ``stop`` is set)."""
        self._running.set()
        try:
            while stop is None or not stop.is_set():
                try:
                    cmd = self._inbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                if cmd is None:
                    return
                self._handle(cmd)
        finally:
            self._running.clear()

    def stop(self) -> None:
        self._inbox.put(None)

    def drain(self) -> int:
        """Processes everything queued, on the calling thread (tests and single-thread use)."""
        with self._drain_lock:
            return self._drain()

    def _drain(self) -> int:
        n = 0
        while True:
            try:
                cmd = self._inbox.get_nowait()
            except queue.Empty:
                return n
            if cmd is None:
                return n
            self._handle(cmd)
            n += 1

    def _handle(self, cmd: _Command) -> None:
        """Runs one command; its caller hears the outcome once the snapshot shows it (an API
        answer carrying the table's state never shows the state from before)."""
        try:
            result = getattr(self, f"_do_{cmd.kind}")(**cmd.args)
        except Exception as exc:
            try:
                self._refresh()
            finally:
                cmd.done.set_exception(exc)
        else:
            try:
                self._refresh()
            finally:
                cmd.done.set_result(result)

    # -- readings --------------------------------------------------------------------------

    def _do_reading(self, reading: Reading) -> str:
        observed = reading.state
        if self._tampered:
            return "tampered"
        if self._game is None or self.state is TableState.ENDED:
            return "no game"
        if observed == self._last_seen:
            return "ignored"
        try:
            if not observed.is_certain:
                outcome = self._hold_unreadable(reading)
            else:
                self._settle_unreadable(observed)
                over = self._game is None or self._game.is_over
                outcome = "ended" if over else self._judge(reading)
        except LogError:
            self._last_seen = None  # not decided: the same reading is judged again
            raise
        self._last_seen = observed
        return outcome

    def _hold_unreadable(self, reading: Reading) -> str:
        """A still board with cells the camera cannot read is never judged as it is; it is
        kept, with the unreadable cells on record, until a readable view explains it."""
        state = reading.state
        self._append(EventKind.READING, {"board": state.to_dict()}, reading.jpeg)
        self._append(
            EventKind.VERDICT,
            {
                "outcome": "unreadable",
                "cells": [i for i, ch in enumerate(state.cells) if ch == "?"],
                "lines": [i for i, w in enumerate(state.workers) if w == "?"],
            },
        )
        self._unreadable = reading
        return "unreadable"

    def _settle_unreadable(self, observed: BoardState) -> None:
        """Placed tiles and workers never move, so an unreadable cell of a held reading is
        what a later readable view shows there.  When the held view's readable part already
        showed a change, the view so completed is judged as a turn of its own: a half-hidden
        legal turn is accepted, a move taken back before a clear view is still flagged."""
        held, self._unreadable = self._unreadable, None
        if held is None or self._game is None:
            return
        expected = self._game.state
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
            self._judge(Reading(completed, held.jpeg))
            self._refresh()  # viewers see that turn (or its flag) before the next one

    def _judge(self, reading: Reading) -> str:
        observed = reading.state
        assert self._game is not None
        game = self._game
        expected = game.state
        if self._clearing is not None:
            if observed != expected and _left_over(observed, self._clearing):
                return "clearing"  # the players are still putting the last game away
            self._clearing = None
        if observed == expected:
            if self._history is not None and self._history.flag is not None:
                self._append(EventKind.READING, {"board": observed.to_dict()}, reading.jpeg)
                self._append(EventKind.VERDICT, {"outcome": "restored"})
            return "unchanged"
        verdict = game.judge(observed)
        self._append(EventKind.READING, {"board": observed.to_dict()}, reading.jpeg)
        outcome = self._outcome(verdict)
        self._append(EventKind.VERDICT, verdict_payload(verdict, outcome, expected, observed))
        if outcome == "accept":
            self._accept(observed, reading.jpeg, EventKind.ACCEPTED, "camera")
        return outcome

    @staticmethod
    def _outcome(verdict: Verdict) -> str:
        if verdict.legal:
            return "accept"
        if any(v.code in DESYNC_CODES for v in verdict.violations):
            return "desync"
        return "dispute"

    def _accept(self, board: BoardState, jpeg: bytes | None, kind: EventKind, by: str) -> None:
        assert self._game is not None
        game = self._game.advance(board)
        self._append(kind, {"board": board.to_dict(), "by": by}, jpeg)  # logged, then true
        self._game = game
        if game.is_over:
            self._append(EventKind.GAME_ENDED, {"reason": "finished"})

    def _choose_vat(self, vat: int, by: str) -> None:
        assert self._game is not None
        try:
            game = self._game.choose_vat(vat)
        except (ValueError, CompanionError) as exc:
            raise ActionError(f"vat {vat} cannot be chosen now: {exc}") from exc
        self._append(EventKind.VAT_CHOSEN, {"vat": vat, "by": by})
        self._game = game

    # -- operator actions and buttons ------------------------------------------------------

    def _do_new_game(self, request: NewGame) -> int:
        if self._tampered:
            raise ActionError("the game log was altered: acknowledge it before a new game")
        setup = make_setup(request, self._load_board, self._rng)
        if self._history is not None and self._history.ended is None:
            self._append(EventKind.GAME_ENDED, {"reason": "replaced by a new game"})
        old_board = self._game.state if self._game is not None else None
        self._clearing = old_board if old_board not in (None, BoardState()) else None
        header = header_of(setup)
        event = self.log.start_game(header)
        self._history = fold([event])
        self._game = Game.new(setup)
        self._last_seen = None
        return event.game

    def _require(self, *states: TableState) -> None:
        if self.state not in states:
            wanted = " or ".join(s.value.replace("_", " ") for s in states)
            raise ActionError(f"the table is {self.state.value.replace('_', ' ')}, not {wanted}")

    def _flag(self) -> Flag:
        assert self._history is not None and self._history.flag is not None
        return self._history.flag

    def _do_accept(self) -> str:
        """Accepts the flagged reading as this turn's result."""
        self._require(TableState.AWAITING_CORRECTION, TableState.DESYNC)
        flag = self._flag()
        photo = self.log.photo(flag.reading.photo) if flag.reading.photo else None
        self._accept(
            BoardState.from_dict(flag.reading.board), photo, EventKind.ACCEPTED, "operator"
        )
        return "accepted"

    def _do_correct(self, board: Mapping[str, Any], by: str = "operator") -> str:
        """The operator states the true board (a misread, or the move as it should be);
        ``by`` names who did (the demo's simulated players correct misreads themselves)."""
        self._require(TableState.PLAYING, TableState.AWAITING_CORRECTION, TableState.DESYNC)
        assert self._game is not None
        state = BoardState.from_dict(board, path="board")
        if not state.is_certain:
            raise InputError("a correction cannot contain unreadable '?' cells", field="board")
        impossible = impossible_board(self._game.board, state)
        if impossible is not None:
            raise InputError(impossible, field="board")
        if state == self._game.state:
            self._append(EventKind.DISMISSED, {"by": by})
            return "dismissed"
        photo = None
        if self._history is not None and self._history.flag is not None:
            fid = self._history.flag.reading.photo
            photo = self.log.photo(fid) if fid else None
        verdict = self._game.judge(state)
        self._append(
            EventKind.VERDICT,
            verdict_payload(verdict, "correction", self._game.state, state),
        )
        self._accept(state, photo, EventKind.CORRECTION, by)
        return "corrected"

    def _do_undo(self, by: str = "operator") -> str:
        """Dismisses a flagged move, or else takes back the last accepted turn."""
        self._require(TableState.PLAYING, TableState.AWAITING_CORRECTION, TableState.DESYNC)
        assert self._history is not None
        if self._history.flag is not None:
            self._append(EventKind.DISMISSED, {"by": by})
            self._last_seen = None
            return "dismissed"
        if not self._history.steps:
            raise ActionError("nothing to undo: no turn has been accepted yet")
        self._append(EventKind.UNDO, {"by": by})
        self._rebuild()
        self._last_seen = None
        return "undone"

    def _do_end(self) -> str:
        self._require(TableState.PLAYING, TableState.AWAITING_CORRECTION, TableState.DESYNC)
        self._append(EventKind.GAME_ENDED, {"reason": "ended by the operator"})
        return "ended"

    def _do_choose_vat(self, vat: int) -> str:
        self._require(TableState.PLAYING)
        assert self._game is not None
        if self._game.setup.variant is not Variant.EMPEROR:
            raise ActionError("only the emperor variant lets a player choose the vat")
        if self._game.turn is None or self._game.turn.vat is not None:
            raise ActionError("the vat of this round is already chosen")
        self._choose_vat(vat, "operator")
        return "chosen"

    def _do_acknowledge(self) -> str:
        """The operator has seen that the log failed verification; play may go on.  The
        log keeps the damage as it is; this event records who saw it and how far."""
        self._require(TableState.TAMPERED)
        game = self._history.game if self._history is not None else None
        event = acknowledge(self.log, self.verification, game)
        if self._history is not None:
            self._history = self._history.apply(event)
        self._acknowledged_seq = event.seq  # a new version for viewers, even with no game
        self._tampered = False
        return "acknowledged"

    def _do_button(self, press: ButtonPress) -> str:
        if self._history is not None:
            self._append(EventKind.BUTTON, {"button": press.button.value, "value": press.value})
        try:
            if press.button is Button.ACCEPT:
                return self._do_accept()
            if press.button is Button.UNDO:
                return self._do_undo()
            if press.value is None:
                raise ActionError("the vat button press carries no vat number")
            return self._do_choose_vat(press.value)
        except ActionError as exc:
            return f"ignored: {exc}"

    # -- output ----------------------------------------------------------------------------

    def _append(self, kind: EventKind, payload: dict[str, Any], photo: bytes | None = None) -> None:
        assert self._history is not None
        try:
            event = self.log.append(self._history.game, kind, payload, photo)
        except LogError as exc:
            self.log_error = str(exc)
            raise
        self.log_error = None
        self._history = self._history.apply(event)

    def _refresh(self, *, log_lights: bool = True) -> None:
        lights = self._lights_now()
        if lights != self._shown:
            if log_lights and self._history is not None:
                with contextlib.suppress(LogError):  # kept in log_error; lights still follow
                    self._append(EventKind.LED, lights.to_dict())
            self._shown = lights
            self._lights_pending = True
        if self._lights_pending:
            try:
                self._lights.show(lights)
                self._lights_pending = False
                self.lights_error = None
            except OSError as exc:  # the table plays on without its LEDs; retried next time
                self.lights_error = str(exc)
        view = table_view(self.state.value, self._game, self._history, lights)
        view["evidence"] = self.evidence()
        view["version"] = max(view["version"], self._acknowledged_seq)
        view["lights_error"] = self.lights_error
        view["log_error"] = self.log_error
        view["replay_error"] = self.replay_error
        view["source_error"] = self.source_error
        held = self._unreadable.state if self._unreadable else None
        view["unreadable_cells"] = (
            [i for i, ch in enumerate(held.cells) if ch == "?"] if held else []
        )
        with self._lock:
            self._snapshot = view
            self._published = (self._history, self._game)
        self.hub.publish(viewer_view(view))  # the live stream is open to everyone

    def _lights_now(self) -> TableLights:
        game = self._game
        state = self.state
        if game is None or state is TableState.TAMPERED:
            return TableLights(LightStatus.IDLE)
        if state is TableState.ENDED or game.turn is None:
            return TableLights(LightStatus.ENDED)
        turn = game.turn
        upcoming: tuple[int, ...] = ()
        if game.setup.variant is Variant.HARUSPEX:
            upcoming = tuple(game.setup.aureus[turn.round - 1 :])
        status = {
            TableState.DESYNC: LightStatus.DESYNC,
            TableState.AWAITING_CORRECTION: LightStatus.ILLEGAL,
        }.get(state, LightStatus.CHOOSE_VAT if turn.vat is None else LightStatus.TURN)
        return TableLights(status, turn.vat, turn.colour, turn.seat, upcoming)


_OPERATOR_ACTIONS = frozenset(
    {"new_game", "accept", "correct", "undo", "end", "choose_vat", "acknowledge"}
)


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


def make_setup(
    request: NewGame, load_board: Callable[[str], BoardProfile], rng: random.Random | None
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


def _left_over(seen: BoardState, old: BoardState) -> bool:
    """Whether everything ``seen`` shows is what stood on the last game's board (part of it
    taken away already)."""
    cells = all(c in (".", "?", o) for c, o in zip(seen.cells, old.cells, strict=True))
    workers = all(w in (None, "?", o) for w, o in zip(seen.workers, old.workers, strict=True))
    return cells and workers
