"""The table session against the real rules, a real SQLite log and fake hardware."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InputError
from companion.games.garum import GameSetup, Variant, parse_record, simulate_game
from companion.games.garum.lights import LightStatus
from companion.games.garum.referee import SetupRequest
from companion.games.garum.replay import export_lines
from companion.games.garum.sighting import Sighting
from companion.games.garum.sources import misplaced
from companion.games.garum.state import BoardState
from companion.table.commands import NewGame, Observe, Undo
from companion.table.fakes import QueueButtons, RecordingLights, ScriptedReadings
from companion.table.log import EventKind, GameLog, LogError
from companion.table.ports import ButtonPress, ButtonRole
from companion.table.session import ActionError, TableSession, TableState

TWO = (("Ana", ("B", "G")), ("Ben", ("Y", "R")))


def start(
    tmp_path: Path, variant: str = "standard", seed: int = 1
) -> tuple[TableSession, RecordingLights]:
    lights = RecordingLights()
    session = TableSession(GameLog(tmp_path / "table.db"), lights, rng=random.Random(seed))
    session.submit(NewGame(SetupRequest("troia", variant, TWO)))
    session.drain()
    return session, lights


def play(session: TableSession, state: BoardState, jpeg: bytes | None = b"frame") -> None:
    session.feed(Sighting(state, jpeg))
    session.drain()


def script(session: TableSession, seed: int = 2) -> list[BoardState]:
    assert session.game is not None
    return simulate_game(session.game.setup, random.Random(seed))


def wrong_vat(session: TableSession, legal_next: BoardState) -> BoardState:
    assert session.game is not None
    return misplaced(session.game, legal_next)


def kinds(session: TableSession) -> list[EventKind]:
    return [e.kind for e in session.log.events(session.history.game)]  # type: ignore[union-attr]


def test_legal_readings_advance_log_and_light(tmp_path: Path) -> None:
    session, lights = start(tmp_path)
    states = script(session)
    first_vat = session.game.turn.vat  # type: ignore[union-attr]
    assert lights.last is not None and lights.last.status is LightStatus.TURN
    assert lights.last.vat == first_vat
    play(session, states[0])
    play(session, states[0])  # the same stable reading again changes nothing
    assert session.state is TableState.PLAYING
    assert session.game.state == states[0]  # type: ignore[union-attr]
    assert session.game.turn.number == 2  # type: ignore[union-attr]
    assert kinds(session).count(EventKind.ACCEPTED) == 1
    accepted = [e for e in session.log.events() if e.kind is EventKind.ACCEPTED]
    assert accepted[0].photo is not None and session.log.photo(accepted[0].photo) == b"frame"
    assert lights.last.colour == session.game.turn.colour  # type: ignore[union-attr]
    assert EventKind.LED in kinds(session)


def test_an_illegal_move_is_flagged_then_accepted_by_the_operator(tmp_path: Path) -> None:
    session, lights = start(tmp_path)
    states = script(session)
    play(session, states[0])
    bad = wrong_vat(session, states[1])
    play(session, bad, b"after")
    assert session.state is TableState.AWAITING_CORRECTION
    assert lights.last is not None and lights.last.status is LightStatus.ILLEGAL
    flag = session.snapshot()["flag"]
    assert flag["outcome"] == "dispute"
    assert {v["code"] for v in flag["violations"]} & {"wrong_vat", "extra_tile"}
    assert all(v["message"] for v in flag["violations"])
    assert (
        flag["before_photo"] and flag["after_photo"] and flag["before_photo"] != flag["after_photo"]
    )
    assert session.game.turn.number == 2  # type: ignore[union-attr]  # the game waits
    assert session.operate("accept") == "accepted"
    session.drain()
    assert session.state is TableState.PLAYING
    assert session.game.state == bad  # type: ignore[union-attr]


def test_a_flagged_move_fixed_by_the_player_is_accepted(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    play(session, states[0])
    play(session, wrong_vat(session, states[1]))
    play(session, states[1])
    assert session.state is TableState.PLAYING
    assert session.game.state == states[1]  # type: ignore[union-attr]


def test_undo_dismisses_a_flag_or_takes_back_a_turn(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    play(session, states[0])
    play(session, states[1])
    play(session, wrong_vat(session, states[2]))
    session.submit(Undo())
    session.drain()
    assert session.state is TableState.PLAYING
    assert session.game.state == states[1]  # type: ignore[union-attr]
    session.submit(Undo())
    session.drain()
    assert session.game.state == states[0]  # type: ignore[union-attr]
    assert session.game.turn.number == 2  # type: ignore[union-attr]
    # The board still shows turn 2's tile: a desync until the players take it back.
    play(session, states[1])
    assert session.state is TableState.PLAYING  # replaying the same move is legal again
    assert session.game.turn.number == 3  # type: ignore[union-attr]


def test_a_moved_accepted_tile_is_a_desync_with_the_cells_outlined(tmp_path: Path) -> None:
    session, lights = start(tmp_path)
    states = script(session)
    play(session, states[0])
    play(session, states[1])
    missing = next(i for i, ch in enumerate(states[1].cells) if ch != ".")
    cells = list(states[1].cells)
    cells[missing] = "."
    play(session, BoardState("".join(cells), states[1].workers))
    assert session.state is TableState.DESYNC
    assert lights.last is not None and lights.last.status is LightStatus.DESYNC
    assert missing in session.snapshot()["flag"]["cells"]
    play(session, states[1])  # put back: in step again
    assert session.state is TableState.PLAYING


def test_correction_replaces_a_misread_board(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    play(session, wrong_vat(session, states[0]))
    assert session.operate("correct", board=states[0].to_dict()) == "corrected"
    assert session.game.state == states[0]  # type: ignore[union-attr]
    assert EventKind.CORRECTION in kinds(session)
    with pytest.raises(InputError, match=r"cells\[0\]"):
        session.operate("correct", board={"cells": ["x"] * 16})


def test_unreadable_readings_are_held_not_judged(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    blurred = BoardState("?" + states[0].cells[1:], states[0].workers)
    play(session, blurred)
    assert session.state is TableState.PLAYING and session.game.turn.number == 1  # type: ignore[union-attr]
    assert session.snapshot()["unreadable_cells"] == [0]
    assert kinds(session)[-2:] == [EventKind.READING, EventKind.VERDICT]
    play(session, states[0])
    assert session.game.turn.number == 2  # type: ignore[union-attr]


def test_a_half_hidden_turn_is_completed_by_the_next_readable_view(tmp_path: Path) -> None:
    """Turn 1 is seen with its new tile unreadable; the next readable view already shows
    turn 2. The unreadable cells take the values the later view shows (placed tiles do not
    move), so both turns are accepted instead of one flagged double move."""
    session, _ = start(tmp_path)
    states = script(session)
    new_cells = [i for i, ch in enumerate(states[0].cells) if ch != "."]
    cells = list(states[0].cells)
    cells[new_cells[0]] = "?"
    play(session, BoardState("".join(cells), states[0].workers), b"half-hidden")
    play(session, states[1])
    assert session.state is TableState.PLAYING
    assert session.history is not None and session.history.boards == [
        states[0].to_dict(),
        states[1].to_dict(),
    ]
    # Without that held view the same double move is a dispute.
    again, _ = start(tmp_path / "other")
    play(again, states[1])
    assert again.state is TableState.AWAITING_CORRECTION


def test_operator_actions_that_do_not_fit_are_refused(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    with pytest.raises(ActionError, match="not awaiting correction or desync"):
        session.operate("accept")
    with pytest.raises(ActionError, match="nothing to undo"):
        session.operate("undo")
    with pytest.raises(ActionError, match="emperor"):
        session.operate("choose_vat", vat=3)
    with pytest.raises(InputError, match="unknown action"):
        session.operate("cheat")


def test_a_whole_game_ends_and_exports_as_a_record(tmp_path: Path) -> None:
    session, lights = start(tmp_path)
    states = script(session)
    for state in states:
        play(session, state)
    assert session.state is TableState.ENDED
    assert lights.last is not None and lights.last.status is LightStatus.ENDED
    assert session.snapshot()["scores"]["winners"]
    lines = export_lines(session.history)  # type: ignore[arg-type]
    record = parse_record(lines, "export")
    assert list(record.states) == states
    assert record.setup.aureus == session.game.setup.aureus  # type: ignore[union-attr]


def test_emperor_vat_from_button_or_from_the_first_tile(tmp_path: Path) -> None:
    session, lights = start(tmp_path, "emperor")
    game = session.game
    assert game is not None and game.turn is not None and game.turn.vat is None
    assert lights.last is not None and lights.last.status is LightStatus.CHOOSE_VAT
    vat = game.setup.board.vats[5]
    session.press(ButtonPress(ButtonRole.VAT, vat))
    session.drain()
    assert session.game.turn.vat == vat  # type: ignore[union-attr]
    assert lights.last.vat == vat
    # Play round 1 from a simulation of this same choice, then let a tile name round 2's vat.
    setup = GameSetup.create(game.setup.board, Variant.EMPEROR, game.setup.seats, aureus=[vat])
    states = simulate_game(setup, random.Random(3))
    for state in states[:5]:
        play(session, state)
    assert session.game.turn.round == 2 and session.game.turn.vat is not None  # type: ignore[union-attr]
    assert session.game.vats[1] == session.game.round_vat  # type: ignore[union-attr]
    record = parse_record(export_lines(session.history), "export")  # type: ignore[arg-type]
    assert record.setup.aureus == session.game.vats  # type: ignore[union-attr]


def test_haruspex_lights_show_the_whole_order(tmp_path: Path) -> None:
    session, lights = start(tmp_path, "haruspex")
    assert lights.last is not None
    assert lights.last.upcoming_vats == session.game.setup.aureus  # type: ignore[union-attr]


def test_a_restart_resumes_the_same_game_even_mid_dispute(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    play(session, states[0])
    play(session, wrong_vat(session, states[1]))
    before = session.snapshot()
    session.log.close()
    again = TableSession(GameLog(tmp_path / "table.db"), RecordingLights())
    assert again.state is TableState.AWAITING_CORRECTION
    assert again.snapshot() == before
    assert again.operate("accept") == "accepted"


def test_unplugged_lights_do_not_stop_the_table(tmp_path: Path) -> None:
    session, lights = start(tmp_path)
    states = script(session)
    lights.unplugged = True
    play(session, states[0])
    assert session.game.turn.number == 2  # type: ignore[union-attr]
    assert "not connected" in session.snapshot()["lights_error"]
    lights.unplugged = False
    play(session, states[1])
    assert session.snapshot()["lights_error"] is None
    assert lights.last is not None and lights.last.colour == session.game.turn.colour  # type: ignore[union-attr]


def test_threads_only_enqueue_and_the_owner_decides(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    buttons = QueueButtons()
    stop = threading.Event()
    owner = threading.Thread(target=session.run, args=(stop,))
    owner.start()
    try:
        with session.viewers.subscribe() as sub:
            source = ScriptedReadings([None, Sighting(states[0]), None, Sighting(states[1])])
            session.attach_readings(source)
            session.attach_buttons(buttons)
            while True:
                update = sub.get(5.0)
                assert update is not None, "no update within 5 s"
                if update.get("turns_played") == 2:
                    break
            buttons.press(ButtonPress(ButtonRole.UNDO), times=1)
            while True:
                update = sub.get(5.0)
                assert update is not None
                if update.get("turns_played") == 1:
                    break
    finally:
        buttons.close()
        stop.set()
        owner.join()
    assert kinds(session).count(EventKind.BUTTON) == 1


def test_an_emperor_game_resumes_with_its_chosen_vats(tmp_path: Path) -> None:
    session, _ = start(tmp_path, "emperor")
    game = session.game
    assert game is not None
    vat = game.setup.board.vats[2]
    session.operate("choose_vat", vat=vat)
    setup = GameSetup.create(game.setup.board, Variant.EMPEROR, game.setup.seats, aureus=[vat])
    for state in simulate_game(setup, random.Random(5))[:6]:
        play(session, state)
    before = session.snapshot()
    session.log.close()
    again = TableSession(GameLog(tmp_path / "table.db"), RecordingLights())
    assert again.game is not None and again.game.vats == session.game.vats  # type: ignore[union-attr]
    assert again.snapshot() == before


class FullDisk(GameLog):
    """A real log whose disk fills up after ``room`` more events."""

    room = 10**9

    def append(self, *args: Any, **kwargs: Any) -> Any:
        if self.room <= 0:
            raise LogError(f"{self.path}: cannot write to the game log: database or disk is full")
        self.room -= 1
        return super().append(*args, **kwargs)


def test_a_full_disk_stops_nothing_but_accepts_nothing(tmp_path: Path) -> None:
    log = FullDisk(tmp_path / "table.db")
    session = TableSession(log, RecordingLights(), rng=random.Random(1))
    session.operate("new_game", request=SetupRequest("troia", "standard", TWO))
    states = script(session)
    log.room = 0
    future = session.submit(Observe(Sighting(states[0])))
    session.drain()
    with pytest.raises(LogError, match="disk is full"):
        future.result(0)
    assert session.game is not None and session.game.turn.number == 1  # type: ignore[union-attr]
    assert "disk is full" in session.snapshot()["log_error"]
    log.room = 10**9
    play(session, states[0])  # the same stable reading, judged once there is room again
    assert session.game.turn.number == 2  # type: ignore[union-attr]
    assert session.snapshot()["log_error"] is None
    assert log.verify().ok


def test_an_unplugged_camera_is_reported_and_the_table_stays_up(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    source = ScriptedReadings([Sighting(states[0])])
    source.fail_at_end = OSError("camera 0: no frame (unplugged?)")
    stop = threading.Event()
    owner = threading.Thread(target=session.run, args=(stop,))
    owner.start()
    try:
        with session.viewers.subscribe() as sub:
            session.attach_readings(source)
            while (update := sub.get(5.0)) is not None and not update.get("source_error"):
                pass
        assert update is not None and "unplugged" in update["source_error"]
        assert update["turns_played"] == 1
        assert session.operate("end") == "ended"  # the operator can still act
    finally:
        stop.set()
        owner.join()


def test_a_misplaced_tile_taken_back_before_a_clear_view_is_still_flagged(
    tmp_path: Path,
) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    assert session.game is not None
    bad = misplaced(session.game, states[0])
    cells = list(bad.cells)
    cells[next(i for i, ch in enumerate(states[0].cells) if ch != ".")] = "?"
    play(session, BoardState("".join(cells), bad.workers), b"blurred")
    play(session, states[0])  # the player fixed it; the clear view is legal
    verdicts = [e.payload for e in session.log.events() if e.kind is EventKind.VERDICT]
    assert [v["outcome"] for v in verdicts] == ["unreadable", "dispute", "accept"]
    assert session.state is TableState.PLAYING and session.game.turn.number == 2  # type: ignore[union-attr]


def test_noise_in_a_still_view_is_not_taken_for_a_move(tmp_path: Path) -> None:
    session, _ = start(tmp_path)
    states = script(session)
    new = next(i for i, ch in enumerate(states[0].cells) if ch != ".")
    cells = list("." * 256)
    cells[new] = "?"  # nothing readable changed: just an unreadable cell
    play(session, BoardState("".join(cells)), b"noisy")  # the empty board, one cell unread
    play(session, states[0])
    verdicts = [e.payload["outcome"] for e in session.log.events() if e.kind is EventKind.VERDICT]
    assert verdicts == ["unreadable", "accept"]


def test_the_last_games_board_being_cleared_is_no_move_of_the_new_game(tmp_path: Path) -> None:
    # After a new game the camera still sees the old board until the players clear it: that
    # is neither a move nor a desync; a tile that was never there is judged as usual.
    session, _ = start(tmp_path)
    states = script(session)
    for state in states[:6]:
        play(session, state)
    old = session.game.state  # type: ignore[union-attr]
    session.submit(NewGame(SetupRequest("troia", "standard", TWO)))
    session.drain()
    half = BoardState("".join(c if i % 2 else "." for i, c in enumerate(old.cells)), old.workers)
    for seen in (old, half, BoardState()):
        play(session, seen)
        assert session.state is TableState.PLAYING
    assert session.history.flag is None  # type: ignore[union-attr]
    first = script(session, seed=5)[0]
    play(session, first)
    assert session.game.turn.number == 2  # type: ignore[union-attr]
    # Once cleared, the old board coming back is judged again: a desync.
    play(session, old)
    assert session.state is not TableState.PLAYING
