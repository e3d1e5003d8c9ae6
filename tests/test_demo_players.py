"""The demo's simulated players at a real table session (real SQLite log, real Flask app):
they follow the operator, start new games from a cleared board, and what they do
themselves is logged as the demo's.  Driven step by step on a fake clock: no sleeps."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from garum_helpers import with_cells

from companion.games.garum import tile_owner
from companion.games.garum.live import DEFAULT_SETUP, new_game_from
from companion.games.garum.players import Move, PlayersPlan, SimulatedPlayers, legal_move
from companion.games.garum.referee import SetupRequest
from companion.games.garum.sighting import Sighting
from companion.games.garum.state import BoardState
from companion.table.fakes import RecordingLights
from companion.table.log import EventKind, GameLog
from companion.table.session import TableSession, TableState
from companion.web import Services, create_app
from companion.web.config import WebConfig

TOKEN = "pin-4321"


@dataclass
class Demo:
    """A table session watched by simulated players; the camera reads exactly what they
    leave on the board unless a test makes it misread."""

    session: TableSession
    players: SimulatedPlayers
    now_s: float = 0.0
    moves: list[Move] = field(default_factory=list)

    def step(self, *, seen: BoardState | None = None) -> Move | None:
        move = self.players.step(self.now_s)
        self.now_s += 1.0
        if move is not None:
            self.moves.append(move)
            self.session.feed(Sighting(seen or move.board))
            self.session.drain()
        return move

    def until(self, done: object, limit: int = 400) -> None:
        for _ in range(limit):
            if callable(done) and done():
                return
            self.step()
        raise AssertionError("the demo never got there")

    @property
    def played(self) -> int:
        history = self.session.history
        return len(history.boards) if history else 0

    def flags(self) -> list[dict[str, object]]:
        """Every verdict that flagged a move, in this table's log."""
        return [
            e.payload
            for e in self.session.log.events()
            if e.kind is EventKind.VERDICT and e.payload["outcome"] in ("dispute", "desync")
        ]

    def authors(self) -> set[str]:
        return {str(e.payload["by"]) for e in self.session.log.events() if "by" in e.payload}


@pytest.fixture
def log(tmp_path: Path) -> Iterator[GameLog]:
    with GameLog(tmp_path / "table.db") as opened:
        yield opened


def demo(log: GameLog, **plan: object) -> Demo:
    session = TableSession(log, RecordingLights(), rng=random.Random(7))
    session.operate("new_game", request=new_game_from(DEFAULT_SETUP, "test"))
    options = {"pace_s": 0.0, "patience_s": None, "mistakes_at": (3,)} | plan
    return Demo(session, SimulatedPlayers(session, PlayersPlan(**options), random.Random(5)))  # type: ignore[arg-type]


def flagged(d: Demo) -> bool:
    return d.session.state is TableState.AWAITING_CORRECTION


def test_after_the_operator_accepts_the_flagged_move_play_goes_on_without_a_flag(
    log: GameLog,
) -> None:
    d = demo(log)
    d.until(lambda: flagged(d))
    assert d.moves[-1].why == "mistake" and len(d.flags()) == 1
    wrong = d.moves[-1].board
    assert d.session.operate("accept") == "accepted"
    d.until(lambda: d.played >= 3 + 20)
    assert len(d.flags()) == 1  # only the planned mistake
    assert d.session.history is not None and d.session.history.boards[2] == wrong.to_dict()
    assert [m.why for m in d.moves[3:]] == ["play"] * 20  # played on from the accepted board


def test_after_the_operator_rejects_it_the_move_is_taken_back_and_played_again(
    log: GameLog,
) -> None:
    d = demo(log)
    d.until(lambda: flagged(d))
    game = d.session.game
    assert game is not None and game.turn is not None
    before, colour = game.state, game.turn.colour
    assert d.session.operate("undo") == "dismissed"
    back = d.step()
    assert back is not None and back.why == "take back" and back.board == before
    d.until(lambda: d.played >= 3 + 10)
    assert len(d.flags()) == 1
    history = d.session.history
    assert history is not None
    third = BoardState.from_dict(history.boards[2])
    placed = [i for i, (a, b) in enumerate(zip(before.cells, third.cells, strict=True)) if a != b]
    assert tile_owner("".join(third.cells[i] for i in placed)) == colour  # the right tile now


def test_an_undone_turn_is_taken_off_the_board(log: GameLog) -> None:
    d = demo(log, mistakes_at=())
    d.until(lambda: d.played >= 4)
    assert d.session.operate("undo") == "undone"
    game = d.session.game
    assert game is not None
    back = d.step()
    assert back is not None and back.why == "take back" and back.board == game.state
    d.until(lambda: d.played >= 10)
    assert d.flags() == []


def test_after_the_operator_corrects_it_the_corrected_board_is_the_truth(log: GameLog) -> None:
    d = demo(log)
    d.until(lambda: flagged(d))
    game = d.session.game
    assert game is not None
    corrected = legal_move(game, random.Random(99))
    assert corrected is not None and corrected != d.players.board
    assert d.session.operate("correct", board=corrected.to_dict()) == "corrected"
    follow = d.step()
    assert follow is not None and follow.why == "follow" and follow.board == corrected
    d.until(lambda: d.played >= 3 + 10)
    assert len(d.flags()) == 1
    history = d.session.history
    assert history is not None and history.boards[2] == corrected.to_dict()


def test_a_new_game_from_the_api_clears_the_board_and_starts_at_turn_one(log: GameLog) -> None:
    d = demo(log, mistakes_at=(4,))
    d.until(lambda: flagged(d))  # a new game asked for while a flag waits
    config = WebConfig(operator_token=TOKEN, secret_key="k")
    client = create_app(config, Services(d.session, log)).test_client()
    body = {
        "board": "baelo-claudia",
        "variant": "standard",
        "seats": [{"name": "Ana", "colours": ["B", "G"]}, {"name": "Ben", "colours": ["Y", "R"]}],
    }
    response = client.post("/api/new_game", json=body, headers={"X-Companion-Token": TOKEN})
    assert response.status_code == 200, response.get_data(as_text=True)
    state = response.get_json()["state"]
    assert state["turn"]["number"] == 1 and state["turns_played"] == 0
    clear = d.step()
    assert clear is not None and clear.why == "clear" and clear.board == BoardState()
    assert clear.profile.name == "baelo-claudia"  # the board under the camera changes too
    flags_before = len(d.flags())
    d.until(lambda: d.played >= 12)
    # The operator's game plays clean: the planned mistakes belong to the demo's first game.
    assert len(d.flags()) == flags_before
    assert "mistake" not in [m.why for m in d.moves[-12:]]


@pytest.mark.parametrize("variant", ["standard", "emperor", "haruspex"])
@pytest.mark.parametrize(
    "board, seats, ghost",
    [
        ("troia", (("Ana", ("B",)), ("Ben", ("G",)), ("Cy", ("Y",))), "R"),
        ("baelo-claudia", (("Ana", ("B", "G")), ("Ben", ("Y", "R"))), None),
    ],
)
def test_a_whole_game_with_an_accepted_mistake_ends_with_that_one_flag(
    log: GameLog,
    variant: str,
    board: str,
    seats: tuple[tuple[str, tuple[str, ...]], ...],
    ghost: str | None,
) -> None:
    d = demo(log, mistakes_at=(7,))
    d.session.operate("new_game", request=SetupRequest(board, variant, seats, ghost))
    d.until(lambda: flagged(d))
    d.session.operate("accept")
    d.until(lambda: d.session.state is TableState.ENDED, limit=1000)
    game = d.session.game
    assert game is not None and game.is_over
    assert len(d.flags()) == 1 and d.played == len(game.setup.turn_plan)


def test_players_wait_for_the_operator_however_long_it_takes(log: GameLog) -> None:
    d = demo(log)
    d.until(lambda: flagged(d))
    for _ in range(1000):
        assert d.step() is None
    assert flagged(d) and d.authors() == {"camera"}


def test_players_fix_their_own_mistake_after_their_patience(log: GameLog) -> None:
    d = demo(log, patience_s=30.0)
    d.until(lambda: flagged(d))
    flagged_at = d.now_s
    d.until(lambda: not flagged(d))
    assert d.moves[-1].why == "fix" and d.now_s - flagged_at >= 30.0
    d.until(lambda: d.played >= 10)
    assert len(d.flags()) == 1
    assert d.authors() == {"camera"}  # the players fixed the board; nobody operated


def test_a_misread_is_corrected_by_the_demo_and_logged_as_the_demos(log: GameLog) -> None:
    d = demo(log, patience_s=5.0, mistakes_at=())
    d.until(lambda: d.played >= 2)
    game = d.session.game
    assert game is not None and game.turn is not None
    move = None
    while move is None:
        move = d.players.step(d.now_s)
        d.now_s += 1.0
    cells = [
        i for i, (a, b) in enumerate(zip(game.state.cells, move.board.cells, strict=True)) if a != b
    ]
    misread = with_cells(move.board, {cells[0]: "."})
    d.session.feed(Sighting(misread))  # the camera misses one fish of the new tile
    d.session.drain()
    assert flagged(d)
    d.until(lambda: not flagged(d))
    history = d.session.history
    assert history is not None and history.steps[-1].by == "demo"
    assert history.boards[-1] == move.board.to_dict()
    assert "operator" not in d.authors()
    d.until(lambda: d.played >= 8)
    assert len(d.flags()) == 1


@pytest.mark.parametrize("patience_s, after_s", [(5.0, 5.0), (None, 60.0)])
def test_a_misread_the_camera_accepted_is_undone_and_corrected_by_the_demo(
    log: GameLog, patience_s: float | None, after_s: float
) -> None:
    """Even players who wait for the operator: a misread taken for a legal move raises no
    flag, so the operator would never hear of it."""
    d = demo(log, patience_s=patience_s, mistakes_at=())
    d.until(lambda: d.played >= 2)
    game = d.session.game
    move = None
    while move is None:
        move = d.players.step(d.now_s)
        d.now_s += 1.0
    assert game is not None
    other = legal_move(game, random.Random(1))
    assert other is not None and other != move.board
    d.session.feed(Sighting(other))  # read as another legal move
    d.session.drain()
    assert d.played == 3 and d.session.state is TableState.PLAYING
    misread_at = d.now_s
    d.until(lambda: d.session.history is not None and d.session.history.steps[-1].by == "demo")
    assert d.now_s - misread_at >= after_s
    history = d.session.history
    assert history is not None and history.boards[-1] == move.board.to_dict()
    kinds = [(e.kind, e.payload.get("by")) for e in log.events() if e.payload.get("by") == "demo"]
    assert kinds == [(EventKind.UNDO, "demo"), (EventKind.CORRECTION, "demo")]
    d.until(lambda: d.played >= 8)
    assert d.flags() == []


def test_a_view_the_camera_cannot_read_is_not_taken_for_the_operator_undoing(
    log: GameLog,
) -> None:
    d = demo(log, mistakes_at=())
    d.until(lambda: d.played >= 2)
    game = d.session.game
    move = None
    while move is None:
        move = d.players.step(d.now_s)
        d.now_s += 1.0
    assert game is not None
    new = [
        i for i, (a, b) in enumerate(zip(game.state.cells, move.board.cells, strict=True)) if a != b
    ]
    d.session.feed(Sighting(with_cells(move.board, {new[0]: "?"})))  # a hand hides a fish
    d.session.drain()
    assert d.session.snapshot()["unreadable_cells"] == [new[0]]
    for _ in range(20):
        assert d.step() is None  # still waiting for the table to read their move
    d.session.feed(Sighting(move.board))
    d.session.drain()
    d.until(lambda: d.played >= 6)
    assert d.flags() == [] and "take back" not in [m.why for m in d.moves]


def test_the_players_keep_their_pace(log: GameLog) -> None:
    d = demo(log, pace_s=3.0, mistakes_at=())
    assert d.players.step(0.0) is None  # the players sit down at an empty board
    assert d.players.step(10.0) is None  # the board has been still since now
    assert d.players.step(12.9) is None
    move = d.players.step(13.0)
    assert move is not None and move.why == "play"


def test_a_plan_is_taken_from_the_table_file(tmp_path: Path) -> None:
    from companion.errors import InputError
    from companion.games.garum.live import players_plan
    from companion.table.config import demo_config

    config = demo_config(tmp_path, pace_s=4.0, patience_s=None, mistakes_at=(2, 9))
    assert players_plan(config) == PlayersPlan(4.0, None, (2, 9))
    bad = replace(config, camera=replace(config.camera, options={"patience_s": "soon"}))
    with pytest.raises(InputError) as caught:
        players_plan(bad)
    assert caught.value.field == "camera.patience_s"
