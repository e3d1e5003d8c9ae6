"""The valid inputs the generators start from: real simulated games, their boards, profiles."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from companion.boards import load_profile
from companion.games.garum import random_setup, record_lines, simulate_game


@dataclass(frozen=True)
class Samples:
    """Game records as lines (header first), score-able board states and a board profile."""

    records: tuple[tuple[str, ...], ...]
    states: tuple[dict[str, Any], ...]
    profile: dict[str, Any]


def garum_samples(seed: int) -> Samples:
    rng = random.Random(seed)
    records: list[tuple[str, ...]] = []
    states: list[dict[str, Any]] = []
    for board, players, variant in (
        ("troia", 4, "standard"),
        ("troia", 2, "haruspex"),
        ("troia", 3, "emperor"),
        ("baelo-claudia", 4, "standard"),
    ):
        setup = random_setup(load_profile(board), players, variant, rng)
        boards = simulate_game(setup, rng)
        lines = tuple(record_lines(setup, boards))
        records.append(lines)
        header = json.loads(lines[0])
        for board_state in (boards[len(boards) // 2], boards[-1]):
            state = board_state.to_dict()
            state.update(board=header["board"], seats=header["seats"], ghost=header["ghost"])
            states.append(state)
    profile = json.loads(json.dumps(load_profile("troia").to_dict()))
    return Samples(tuple(records), tuple(states), profile)
