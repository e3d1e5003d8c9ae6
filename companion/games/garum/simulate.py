"""Random legal games, for tests, the demo and the benchmark.

The simulator only ever plays moves drawn from the legal sets (free slots of the round's
vat, :func:`legal_worker_lines` with supply left), and writes them with a private, unchecked
fast path.  Tests replay every simulated game through the public :meth:`Game.judge` so that
fast path can never drift from the rules.
"""

from __future__ import annotations

import random

from companion.boards.profile import SPECIES, BoardProfile
from companion.games.garum.rules import legal_worker_lines
from companion.games.garum.setup import (
    DOMINUS_PER_COLOUR,
    VILICUS_PER_COLOUR,
    GameSetup,
    Seat,
    Variant,
)
from companion.games.garum.state import BoardState
from companion.games.garum.tiles import legal_faces

_FACES = {c: legal_faces(c) for c in SPECIES}
NAMES = ("Tanya", "Andrea", "Peter", "David")


def random_setup(
    board: BoardProfile, players: int, variant: Variant | str, rng: random.Random
) -> GameSetup:
    """A random legal configuration: colours, first seat and aureus order."""
    colours = list(SPECIES)
    rng.shuffle(colours)
    if players == 2:
        seats = [Seat(NAMES[0], (colours[0], colours[2])), Seat(NAMES[1], (colours[1], colours[3]))]
        first = rng.randrange(2)
    else:
        seats = [Seat(NAMES[i], (colours[i],)) for i in range(players)]
        first = rng.randrange(players)
    aureus = list(board.vats)
    rng.shuffle(aureus)
    return GameSetup.create(
        board,
        variant,
        seats,
        ghost=colours[3] if players == 3 else None,
        aureus=aureus,
        first_seat=first,
    )


def simulate_game(
    setup: GameSetup, rng: random.Random, worker_chance: float = 0.35
) -> list[BoardState]:
    """Plays one random legal game; returns the board after each turn.

    In the Emperor variant with no vats in the setup, the holder picks an open vat at random.
    """
    board = setup.board
    vat_slots = board.vat_slots
    cells = bytearray(b"." * 256)
    workers: list[str | None] = [None] * 32
    free = {vat: [0, 1, 2, 3] for vat in board.vats}
    filled = dict.fromkeys(board.vats, 0)
    full: set[int] = set()
    supply = {c: [VILICUS_PER_COLOUR, DOMINUS_PER_COLOUR] for c in SPECIES}
    piles: dict[str, list[str]] = {}
    hands: dict[str, list[str]] = {}
    for colour in SPECIES:
        faces = _FACES[colour]
        pile = [faces[int(rng.random() * len(faces))] for _ in range(board.tiles_per_colour)]
        hands[colour] = pile[: board.hand_size]
        piles[colour] = pile[board.hand_size :]
    ghost = setup.ghost
    vats = list(setup.aureus)
    open_vats = [v for v in board.vats if v not in vats]
    states: list[BoardState] = []
    append = states.append
    random_ = rng.random
    for turn in setup.turn_plan:
        r = turn.round - 1
        if r >= len(vats):  # Emperor: the holder chooses
            vats.append(open_vats.pop(int(random_() * len(open_vats))))
        vat = vats[r]
        colour = turn.colour
        slots = free[vat]
        slot = vat_slots[vat][slots.pop(int(random_() * len(slots)))]
        hand = hands[colour]
        face = hand.pop(int(random_() * len(hand)))
        if piles[colour]:
            hand.append(piles[colour].pop())
        cells[slot[0]] = ord(face[0])
        cells[slot[1]] = ord(face[1])
        cells[slot[2]] = ord(face[2])
        cells[slot[3]] = ord(face[3])
        left = supply[colour]
        if colour != ghost and (left[0] or left[1]) and random_() < worker_chance:
            lines = legal_worker_lines(board, vat, workers, full)
            if lines:
                line = lines[int(random_() * len(lines))]
                if left[1] and (not left[0] or random_() < 0.2):
                    left[1] -= 1
                    workers[line] = colour + "d"
                else:
                    left[0] -= 1
                    workers[line] = colour + "v"
        filled[vat] += 1
        if filled[vat] == 4:
            full.add(vat)
        append(BoardState(cells.decode(), tuple(workers)))
    return states
