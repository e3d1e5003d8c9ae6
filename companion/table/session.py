"""The table session: any game's observations and actions in; log, lights and viewers out.

One owner thread runs :meth:`TableSession.run`; observations, button presses and operator
actions only enqueue a command (:mod:`companion.table.commands`).  The game plugs in as its
referee (:mod:`companion.games.table_seam`), found through the registry by the name in the
game's opening event, so the session serves any installed game.  Every decision is written
to the :class:`GameLog` *before* the lights or viewers hear of it, and the match is always
a fold of the log, so a restart after ``kill -9`` resumes the same game exactly.

States: ``SETUP`` (no game), then the match's phase (``PLAYING``, ``DESYNC``,
``AWAITING_CORRECTION``, ``ENDED``).  A log that fails verification when the table starts
puts it in ``TAMPERED`` instead: nothing is judged until the operator acknowledges it, and
the acknowledgement is itself logged.
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

from companion.games import registry
from companion.games.table_seam import (
    ActionError,
    ButtonPress,
    EventKind,
    LightsPicture,
    LoggedEvent,
    Match,
    Referee,
    require_phase,
)
from companion.table.commands import (
    Acknowledge,
    Act,
    Command,
    EndGame,
    NewGame,
    Observe,
    Press,
    SourceFailed,
    Undo,
)
from companion.table.evidence import acknowledge, evidence_view, unacknowledged
from companion.table.feed import ViewerFeed
from companion.table.log import GameLog, LogError, Verification
from companion.table.ports import ButtonSource, LightsSink, ObservationSource

__all__ = ["ActionError", "TableSession", "TableState"]


class TableState(StrEnum):
    SETUP = "setup"
    PLAYING = "playing"
    DESYNC = "desync"
    AWAITING_CORRECTION = "awaiting_correction"
    ENDED = "ended"
    TAMPERED = "tampered"


@dataclass
class _Queued:
    command: Command
    done: Future[Any] = field(default_factory=Future)


class TableSession:
    """Owns the game at the table; see the module docstring."""

    def __init__(
        self,
        log: GameLog,
        lights: LightsSink,
        viewers: ViewerFeed | None = None,
        *,
        game: str = registry.DEFAULT_GAME,
        referee: Referee | None = None,
        rng: random.Random | None = None,
    ) -> None:
        """``game`` names the table's game (the registry's default); ``referee`` gives its
        referee ready made (seeded dice, say) instead of the plugin's."""
        self.log = log
        self.viewers = viewers or ViewerFeed()
        self._lights = lights
        self._rng = rng
        self._referee: Referee = referee or registry.game(game).referee()
        self._match: Match | None = None
        self._inbox: queue.Queue[_Queued | None] = queue.Queue()
        self._lock = threading.Lock()
        self._pumps: list[threading.Thread] = []
        self._shown: LightsPicture | None = None
        self._snapshot: dict[str, Any] = {}
        self._published: tuple[Any, Any] = (None, None)
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
        if self._match is None:
            return TableState.SETUP
        return TableState(self._match.phase.value)

    @property
    def referee(self) -> Referee:
        """The referee of the game at the table (the table's own game before any)."""
        return self._referee

    @property
    def match(self) -> Match | None:
        return self._match

    @property
    def game(self) -> Any:
        """The rules position of the game in play (the game's own type), or ``None``."""
        return self._match.position if self._match is not None else None

    @property
    def history(self) -> Any:
        """The folded story of the game in play (the game's own type), or ``None``."""
        return self._match.history if self._match is not None else None

    def snapshot(self) -> dict[str, Any]:
        """The latest published view of the table (the ``/api/state`` body)."""
        with self._lock:
            return self._snapshot

    def position(self) -> tuple[Any, Any]:
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
                events = iter(self.log.events(game_id))
                opening = next(events)
                referee = self._referee_for(opening.payload)
                match = referee.open(opening, None)
                for event in events:
                    match.apply(event)
                self._referee, self._match = referee, match
            except Exception as exc:  # an edited log may not even replay: say so, keep it
                if self.verification.ok:
                    raise LogError(f"{self.log.path}: {exc}") from exc
                self._match = None
                self.replay_error = f"the last game cannot be replayed from the log: {exc}"
        self._refresh(log_lights=False)

    def _referee_for(self, header: dict[str, Any]) -> Referee:
        name = header.get("game")
        if not isinstance(name, str) or name == self._referee.name:
            return self._referee
        return registry.game(name).referee()

    def evidence(self) -> dict[str, Any]:
        """What the pages say about the log's integrity."""
        return evidence_view(self.log, self.verification, self._tampered)

    # -- inputs (any thread) -------------------------------------------------------------

    def submit(self, command: Command) -> Future[Any]:
        queued = _Queued(command)
        self._inbox.put(queued)
        return queued.done

    def do(self, command: Command, timeout_s: float = 10.0) -> Any:
        """Runs a command on the owner thread and waits for its outcome."""
        done = self.submit(command)
        if not self._running.is_set():  # no owner thread: the caller is the owner
            self.drain()
        return done.result(timeout=timeout_s)

    def operate(self, kind: str, timeout_s: float = 10.0, **args: Any) -> Any:
        """Runs an operator action named as the API names it: the table's own actions
        (``new_game``, ``undo``, ``end``, ``acknowledge``) or one of the game's."""
        command: Command
        match kind:
            case "new_game":
                command = NewGame(args.get("request", args), args.get("game"))
            case "undo":
                command = Undo(str(args.get("by", "operator")))
            case "end":
                command = EndGame()
            case "acknowledge":
                command = Acknowledge()
            case _:
                return self.act(kind, args, timeout_s)
        return self.do(command, timeout_s)

    def act(self, name: str, args: Mapping[str, Any], timeout_s: float = 10.0) -> Any:
        """Runs the game's operator action ``name`` (read by its referee from ``args``)."""
        return self.do(Act(self._referee.action(name, args)), timeout_s)

    def feed(self, observation: object | None) -> None:
        if observation is not None:
            self.submit(Observe(observation))

    def press(self, press: ButtonPress) -> None:
        self.submit(Press(press))

    def attach_readings(self, source: ObservationSource) -> None:
        """Pumps an observation source (a camera) from its own thread into the queue."""

        def loop() -> None:
            for observation in source.readings():
                self.feed(observation)

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
                self.submit(SourceFailed(f"{name}: {exc}"))

        thread = threading.Thread(target=guarded, name=f"table-{name}", daemon=True)
        thread.start()
        self._pumps.append(thread)

    def join_inputs(self, timeout_s: float = 5.0) -> None:
        """Waits for the input threads to end once their sources are closed (a frame being
        recognised is finished, not cut off at interpreter exit)."""
        for thread in self._pumps:
            thread.join(timeout_s)

    # -- the owner thread ------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None) -> None:
        """Processes commands until :meth:`stop` (or ``stop`` is set)."""
        self._running.set()
        try:
            while stop is None or not stop.is_set():
                try:
                    queued = self._inbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                if queued is None:
                    return
                self._handle(queued)
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
                queued = self._inbox.get_nowait()
            except queue.Empty:
                return n
            if queued is None:
                return n
            self._handle(queued)
            n += 1

    def _handle(self, queued: _Queued) -> None:
        """Runs one command; its caller hears the outcome once the snapshot shows it (an API
        answer carrying the table's state never shows the state from before)."""
        try:
            result = self._carry_out(queued.command)
        except Exception as exc:
            try:
                self._refresh()
            finally:
                queued.done.set_exception(exc)
        else:
            try:
                self._refresh()
            finally:
                queued.done.set_result(result)

    def _carry_out(self, command: Command) -> Any:
        match command:
            case Observe(observation=observation):
                return self._observe(observation)
            case NewGame(request=request, game=name):
                return self._new_game(request, name)
            case Act(action=action):
                return self._playing().act(action, self)
            case Press(press=press):
                return self._press(press)
            case Undo(by=by):
                return self._playing().undo(by, self)
            case EndGame(reason=reason):
                require_phase(self.state, *_IN_PLAY)
                self.record(EventKind.GAME_ENDED, {"reason": reason})
                return "ended"
            case Acknowledge():
                return self._acknowledge()
            case SourceFailed(error=error):
                self.source_error = error
                return error

    def _playing(self) -> Match:
        """The match, unless there is none or the log waits for the operator (the match
        itself checks its phase against each action)."""
        if self._tampered:
            raise ActionError("the table is tampered: acknowledge the altered game log first")
        if self._match is None:
            require_phase(self.state, *_IN_PLAY)
        assert self._match is not None
        return self._match

    def _observe(self, observation: object) -> str:
        if self._tampered:
            return "tampered"
        match = self._match
        if match is None or self.state is TableState.ENDED:
            return "no game"
        try:
            return match.observe(observation, self)
        except LogError:
            match.forget_sighting()  # not decided: the same observation is judged again
            raise

    def _new_game(self, request: object, name: str | None) -> int:
        if self._tampered:
            raise ActionError("the game log was altered: acknowledge it before a new game")
        referee = self._referee if name is None else registry.game(name).referee()
        header, _ = referee.new_game(request, self._rng)
        header = {**header, "game": referee.name}
        if self._match is not None and self.state is not TableState.ENDED:
            self.record(EventKind.GAME_ENDED, {"reason": "replaced by a new game"})
        event = self.log.start_game(header)
        self._match = referee.open(event, self._match)
        self._referee = referee
        return event.game

    def _press(self, press: ButtonPress) -> str:
        try:
            return self._playing().press(press, self)
        except ActionError as exc:
            return f"ignored: {exc}"

    def _acknowledge(self) -> str:
        """The operator has seen that the log failed verification; play may go on.  The
        log keeps the damage as it is; this event records who saw it and how far."""
        require_phase(self.state, TableState.TAMPERED)
        game = self._match.game if self._match is not None else None
        event = acknowledge(self.log, self.verification, game)
        if self._match is not None:
            self._match.apply(event)
        self._acknowledged_seq = event.seq  # a new version for viewers, even with no game
        self._tampered = False
        return "acknowledged"

    # -- the desk a match decides at (owner thread only) ---------------------------------

    def record(
        self, kind: EventKind, payload: dict[str, Any], photo: bytes | None = None
    ) -> LoggedEvent:
        """Writes one event of the game in play durably, then folds it into the match."""
        assert self._match is not None
        try:
            event = self.log.append(self._match.game, kind, payload, photo)
        except LogError as exc:
            self.log_error = str(exc)
            raise
        self.log_error = None
        self._match.apply(event)
        return event

    def photo(self, digest: str) -> bytes | None:
        return self.log.photo(digest)

    def publish(self) -> None:
        self._refresh()

    # -- output ----------------------------------------------------------------------------

    def _refresh(self, *, log_lights: bool = True) -> None:
        match = self._match
        lights = (
            match.lights() if match is not None and not self._tampered
            else self._referee.idle_lights()
        )  # fmt: skip
        if lights != self._shown:
            if log_lights and match is not None:
                with contextlib.suppress(LogError):  # kept in log_error; lights still follow
                    self.record(EventKind.LED, lights.to_dict())
            self._shown = lights
            self._lights_pending = True
        if self._lights_pending:
            try:
                self._lights.show(lights)
                self._lights_pending = False
                self.lights_error = None
            except OSError as exc:  # the table plays on without its LEDs; retried next time
                self.lights_error = str(exc)
        status = self.state.value
        view = match.view(status) if match is not None else self._referee.idle_view(status)
        view["game_kind"] = self._referee.name
        view.setdefault("game", match.game if match is not None else None)
        view["evidence"] = self.evidence()
        view["version"] = max(view.get("version", 0), self._acknowledged_seq)
        view["lights_error"] = self.lights_error
        view["log_error"] = self.log_error
        view["replay_error"] = self.replay_error
        view["source_error"] = self.source_error
        with self._lock:
            self._snapshot = view
            self._published = (self.history, self.game)
        self.viewers.publish(self._referee.viewer_view(view))  # the live stream is open to all


_IN_PLAY = (TableState.PLAYING, TableState.AWAITING_CORRECTION, TableState.DESYNC)
