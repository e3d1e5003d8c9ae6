"""Property tests: legal games check clean everywhere; each mutation is named by its code."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from garum_helpers import TROIA, played, with_cells, with_workers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.garum import BoardState, Game, ViolationCode, legal_faces, score_state

CONFIGS = [
    (board, players, variant)
    for board in ("troia", "baelo-claudia")
    for players in (2, 3, 4)
    for variant in ("standard", "emperor", "haruspex")
]


@pytest.mark.parametrize(("board", "players", "variant"), CONFIGS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_simulated_games_check_clean(board: str, players: int, variant: str, seed: int) -> None:
    setup, states, games = played(seed, players, variant, board)
    assert len(states) == 4 * setup.board.rounds
    game = games[0]
    for state in states:
        verdict = game.judge(state)
        assert verdict.legal, verdict.violations
        assert verdict.placed_slot is not None
        game = game.advance(state)
    assert game.is_over
    assert "." not in "".join(
        game.state.cells[c] for vat in setup.board.vats for c in setup.board.vat_cells[vat]
    )
    sheet = score_state(setup.board, game.state, setup.seats, setup.ghost)
    assert sum(s.total for s in sheet.seats) == sum(
        sheet.colours[c].total for s in setup.seats for c in s.colours
    )


def test_turn_order_two_players_alternate_colours_and_the_amphora_moves() -> None:
    setup, _, _ = played(7, players=2)
    p0, p1 = setup.seats
    virtual = [p0.colours[0], p1.colours[0], p0.colours[1], p1.colours[1]]
    for r in range(setup.board.rounds):
        colours = [t.colour for t in setup.turn_plan[4 * r : 4 * r + 4]]
        start = (setup.first_seat + r) % 4
        assert colours == [virtual[(start + k) % 4] for k in range(4)]


def test_turn_order_three_players_ghost_places_last() -> None:
    setup, _, _ = played(3, players=3)
    for r in range(setup.board.rounds):
        turns = setup.turn_plan[4 * r : 4 * r + 4]
        assert turns[-1].colour == setup.ghost and turns[-1].seat is None
        assert [t.seat for t in turns[:3]] == [(setup.first_seat + r + k) % 3 for k in range(3)]


# ----------------------------------------------------------------- mutations


def _turn_data(seed: int, players: int = 4):  # type: ignore[no-untyped-def]
    _setup, states, games = played(seed, players)
    rng = random.Random(seed)
    index = rng.randrange(1, len(states) - 4)
    return rng, games[index], states[index]


def _free_slots_elsewhere(game: Game, after: BoardState) -> list[tuple[int, ...]]:
    vat = game.round_vat
    return [
        slot
        for v in game.board.vats
        if v != vat
        for slot in game.board.vat_slots[v]
        if all(after.cells[c] == "." for c in slot)
    ]


def _placed(game: Game, after: BoardState) -> tuple[int, int, int, int]:
    verdict = game.judge(after)
    assert verdict.placed_slot is not None
    return verdict.placed_slot.cells


seeds = st.integers(0, 10_000)
fast = settings(max_examples=40, deadline=None)


@fast
@given(seeds)
def test_moving_the_tile_to_another_vat_is_wrong_vat(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    placed = _placed(game, after)
    target = rng.choice(_free_slots_elsewhere(game, after))
    moved = with_cells(after, dict.fromkeys(placed, "."))
    moved = with_cells(moved, {t: after.cells[p] for t, p in zip(target, placed, strict=True)})
    assert game.judge(moved).codes == ["wrong_vat"]


@fast
@given(seeds)
def test_another_colours_tile_is_wrong_colour(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    placed = _placed(game, after)
    other = rng.choice([c for c in "BGYR" if c != game.turn.colour])  # type: ignore[union-attr]
    face = rng.choice(legal_faces(other))
    assert game.judge(with_cells(after, dict(zip(placed, face, strict=True)))).codes == [
        "wrong_colour"
    ]


@fast
@given(seeds)
def test_a_second_tile_is_extra_tile(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    free = [s for s in game.legal_slots() if all(after.cells[c] == "." for c in s.cells)]
    free_cells = _free_slots_elsewhere(game, after)[0] if not free else free[0].cells
    face = rng.choice(legal_faces(game.turn.colour))  # type: ignore[union-attr]
    assert game.judge(with_cells(after, dict(zip(free_cells, face, strict=True)))).codes == [
        "extra_tile"
    ]


@fast
@given(seeds)
def test_removing_the_tile_is_no_tile(seed: int) -> None:
    _, game, after = _turn_data(seed)
    placed = _placed(game, after)
    assert game.judge(with_cells(after, dict.fromkeys(placed, "."))).codes == ["no_tile"]


@fast
@given(seeds)
def test_changing_an_earlier_tile_is_tile_changed(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    occupied = [i for i, c in enumerate(game.state.cells) if c != "."]
    cell = rng.choice(occupied)
    new = rng.choice([c for c in "BGYR." if c != game.state.cells[cell]])
    assert game.judge(with_cells(after, {cell: new})).codes == ["tile_changed"]


def _worker_kind(game: Game, colour: str) -> str | None:
    vilicus, dominus = game.workers_left(colour)
    return "v" if vilicus else ("d" if dominus else None)


def _this_turns_worker_removed(game: Game, after: BoardState) -> BoardState:
    new = game.judge(after).new_workers
    return with_workers(after, dict.fromkeys(new, None))


@fast
@given(seeds)
def test_worker_off_the_vats_lines_is_worker_off_line(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    colour = game.turn.colour  # type: ignore[union-attr]
    kind = _worker_kind(game, colour)
    base = _this_turns_worker_removed(game, after)
    off = [
        x
        for x in range(32)
        if base.workers[x] is None and x not in game.board.vat_lines[game.round_vat]
    ]  # type: ignore[index]
    if kind is None or not off:
        return
    assert game.judge(with_workers(base, {rng.choice(off): colour + kind})).codes == [
        "worker_off_line"
    ]


@fast
@given(seeds)
def test_two_workers_is_extra_worker(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    colour = game.turn.colour  # type: ignore[union-attr]
    base = _this_turns_worker_removed(game, after)
    lines = [x for x in game.legal_worker_spaces() if base.workers[x] is None]
    vilicus, dominus = game.workers_left(colour)
    if len(lines) < 2 or vilicus + dominus < 2:
        return
    kinds = ["v"] * vilicus + ["d"] * dominus
    first, second = rng.sample(lines, 2)
    observed = with_workers(base, {first: colour + kinds[0], second: colour + kinds[1]})
    assert game.judge(observed).codes == ["extra_worker"]


@fast
@given(seeds)
def test_moving_a_placed_worker_is_worker_changed(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    standing = [x for x in range(32) if game.state.workers[x] is not None]
    if not standing:
        return
    line = rng.choice(standing)
    assert game.judge(with_workers(after, {line: None})).codes == ["worker_changed"]


@fast
@given(seeds)
def test_another_colours_worker_is_worker_wrong_colour(seed: int) -> None:
    rng, game, after = _turn_data(seed)
    base = _this_turns_worker_removed(game, after)
    lines = [x for x in game.legal_worker_spaces() if base.workers[x] is None]
    others = [
        (c, k)
        for c in "BGYR"
        if c != game.turn.colour  # type: ignore[union-attr]
        for k in [_worker_kind(game, c)]
        if k is not None
    ]
    if not lines or not others:
        return
    colour, kind = rng.choice(others)
    assert game.judge(with_workers(base, {rng.choice(lines): colour + kind})).codes == [
        "worker_wrong_colour"
    ]


@fast
@given(seeds)
def test_a_worker_on_the_ghosts_turn_is_ghost_worker(seed: int) -> None:
    setup, states, games = played(seed, players=3)
    rng = random.Random(seed)
    index = rng.randrange(len(states) // 4) * 4 + 3  # the ghost plays last in a round
    game, after = games[index], states[index]
    assert game.turn.seat is None  # type: ignore[union-attr]
    lines = [x for x in game.board.vat_lines[game.round_vat] if after.workers[x] is None]  # type: ignore[index]
    if not lines:
        return
    observed = with_workers(after, {rng.choice(lines): setup.ghost + "v"})  # type: ignore[operator]
    assert game.judge(observed).codes == ["ghost_worker"]


def test_a_sixth_vilicus_is_worker_supply() -> None:
    _setup, states, games = played(11)
    game, after = games[20], states[20]
    colour = game.turn.colour  # type: ignore[union-attr]
    base = _this_turns_worker_removed(game, after)
    legal = [x for x in game.legal_worker_spaces() if base.workers[x] is None]
    others = [x for x in range(32) if base.workers[x] is None and x not in legal][:5]
    before = with_workers(game.state, dict.fromkeys(others, colour + "v"))
    before = with_workers(
        before,
        dict.fromkeys(
            [x for x in range(32) if game.state.workers[x] and game.state.workers[x][0] == colour],
            None,
        ),
    )  # type: ignore[index]
    game = replace(game, state=before)
    observed = with_workers(replace(base, workers=before.workers), {legal[0]: colour + "v"})
    assert game.judge(observed).codes == ["worker_supply"]
    assert game.judge(with_workers(observed, {legal[0]: colour + "d"})).legal


def test_every_code_is_covered_by_a_test_here_or_in_the_rulebook_file() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    covered = {code for code in ViolationCode if f'"{code.value}"' in source}
    assert covered | {ViolationCode.WORKER_AREA_CLOSED} == set(ViolationCode)


def test_judge_ignores_unreadable_cells_instead_of_guessing() -> None:
    _, game, after = _turn_data(5)
    placed = _placed(game, after)
    blurred = with_cells(after, {placed[0]: "?"})
    verdict = game.judge(blurred)
    assert placed[0] in verdict.uncertain_cells
    assert "tile_changed" not in verdict.codes


def test_emperor_vat_comes_from_the_first_tile_or_the_holders_choice() -> None:
    from companion.games.garum import GameSetup

    setup, states, _ = played(2, variant="emperor")
    bare = GameSetup.create(
        setup.board, "emperor", setup.seats, setup.ghost, None, setup.first_seat
    )
    game = Game.new(bare)
    assert game.turn.vat is None  # type: ignore[union-attr]
    assert {s.vat for s in game.legal_slots()} == set(TROIA.vats)
    game = game.advance(states[0])
    assert game.round_vat == setup.aureus[0]
    chosen = Game.new(bare).choose_vat(setup.aureus[0])
    assert chosen.judge(states[0]).legal
    with pytest.raises(ValueError, match="already plays"):
        chosen.choose_vat(setup.aureus[1])


def test_an_expansion_sees_every_turn_and_can_add_violations() -> None:
    from companion.games.garum import GameSetup, Violation

    seen: list[int] = []

    class NoWorkersOnRowZero:
        name = "test-house-rule"

        def extra_violations(self, game, observed, verdict):  # type: ignore[no-untyped-def]
            seen.append(verdict.turn.number)
            if observed.workers[0] is not None and game.state.workers[0] is None:
                return (Violation(ViolationCode.WORKER_OFF_LINE, "row 0 is reserved"),)
            return ()

    setup, states, _ = played(21)
    ruled = GameSetup.create(
        setup.board,
        setup.variant,
        setup.seats,
        setup.ghost,
        setup.aureus,
        setup.first_seat,
        expansions=(NoWorkersOnRowZero(),),
    )
    game = Game.new(ruled)
    flagged = []
    for state in states:
        verdict, game = game.play(state)
        if not verdict.legal:
            flagged.append(verdict.turn.number)
    assert seen == list(range(1, 65))
    row_zero = [
        i + 1
        for i, s in enumerate(states)
        if s.workers[0] and (i == 0 or not states[i - 1].workers[0])
    ]
    assert flagged == row_zero
