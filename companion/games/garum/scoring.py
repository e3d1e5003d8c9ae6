"""Final scoring: bonuses, each worker's line, the tie-break and the score track laps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.boards.profile import GRID, SPECIES, BoardProfile
from companion.games.garum.rules import slot_cells, slot_of_cell
from companion.games.garum.setup import Seat
from companion.games.garum.state import BoardState
from companion.games.garum.tiles import tile_owner

# Points by fish count n on a worker's line: n <= 4, 5, 6, 7, 8, >= 9.
VILICUS_POINTS = (-1, 1, 2, 4, 7, 11)
DOMINUS_POINTS = (-2, 2, 4, 8, 14, 22)


def line_points(kind: str, fish: int) -> int:
    """Points of one worker whose line holds ``fish`` cells of its colour."""
    table = DOMINUS_POINTS if kind == "d" else VILICUS_POINTS
    return table[min(max(fish - 4, 0), 5)]


@dataclass(frozen=True, slots=True)
class LineScore:
    line: int  # 0..15 rows, 16..31 columns
    kind: str  # "v" or "d"
    fish: int
    points: int


@dataclass(frozen=True, slots=True)
class ColourScore:
    colour: str
    bonus: int
    workers: int
    lines: tuple[LineScore, ...]

    @property
    def total(self) -> int:
        return self.bonus + self.workers


@dataclass(frozen=True, slots=True)
class SeatScore:
    name: str
    colours: tuple[str, ...]
    total: int
    vilicus: int
    laps: int  # times round the score track: the +25 / +50 tile
    track_position: int


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    colours: dict[str, ColourScore]
    seats: tuple[SeatScore, ...]
    winners: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The ``companion score --json`` document."""
        return {
            "colours": {
                c: {"bonus": s.bonus, "workers": s.workers, "total": s.total}
                for c, s in self.colours.items()
            },
            "seats": [{"name": s.name, "total": s.total, "vilicus": s.vilicus} for s in self.seats],
            "winners": list(self.winners),
        }


def bonus_points(board: BoardProfile, cells: str, ghost: str | None) -> dict[str, int]:
    """Bonuses of a finished board: each covered bonus cell pays the tile's owner.

    The owner is the tile's predominant colour; the covering cell's species decides the
    points (2 on its own species' space, 1 on a joker).  The ghost scores none.
    """
    points = dict.fromkeys(SPECIES, 0)
    for cell, kind in board.bonus_kind.items():
        fish = cells[cell]
        if fish not in SPECIES:
            continue
        owner = tile_owner("".join(cells[c] for c in slot_cells(slot_of_cell(cell))))
        if owner is None or owner == ghost:
            continue
        points[owner] += 1 if kind == "J" else (2 if kind == fish else 0)
    return points


def score_state(
    board: BoardProfile, state: BoardState, seats: tuple[Seat, ...], ghost: str | None
) -> ScoreSheet:
    """Scores a board as if the game ended now."""
    cells = state.cells
    bonus = bonus_points(board, cells, ghost)
    lines: dict[str, list[LineScore]] = {c: [] for c in SPECIES}
    for line, worker in enumerate(state.workers):
        if worker is None or worker == "?":
            continue
        colour, kind = worker[0], worker[1]
        if line < GRID:
            fish = cells[line * GRID : (line + 1) * GRID].count(colour)
        else:
            fish = cells[line - GRID :: GRID].count(colour)
        lines[colour].append(LineScore(line, kind, fish, line_points(kind, fish)))
    colours = {
        c: ColourScore(c, bonus[c], sum(x.points for x in lines[c]), tuple(lines[c]))
        for c in SPECIES
    }
    track = board.score_track_length
    seat_scores = []
    for seat in seats:
        total = sum(colours[c].total for c in seat.colours)
        vilicus = sum(state.workers.count(c + "v") for c in seat.colours)
        laps = max(total, 0) // track
        seat_scores.append(
            SeatScore(seat.name, seat.colours, total, vilicus, laps, total - laps * track)
        )
    return ScoreSheet(colours, tuple(seat_scores), winners(seat_scores))


def winners(seats: list[SeatScore]) -> tuple[str, ...]:
    """Highest total; among ties fewer vilicus on the board; still tied, shared."""
    if not seats:
        return ()
    best = max(s.total for s in seats)
    tied = [s for s in seats if s.total == best]
    fewest = min(s.vilicus for s in tied)
    return tuple(s.name for s in tied if s.vilicus == fewest)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _vilicus(count: int) -> str:
    return f"{count} vilicus"


def winner_reason(seats: Sequence[SeatScore]) -> str:
    """Who won and why, in words: the highest total, or how a tie on it was broken.

    Said beside the scores so a table that sees two equal totals knows the rule
    (fewer vilicus on the board wins; still equal, the victory is shared).
    """
    if not seats:
        return ""
    best = max(s.total for s in seats)
    tied = [s for s in seats if s.total == best]
    won = winners(list(seats))
    if len(tied) == 1:
        return f"{tied[0].name} wins with the highest score, {best} points."
    tied_names = _names([s.name for s in tied])
    fewest = min(s.vilicus for s in tied)
    if len(won) == 1:
        others = "; ".join(f"{s.name} {_vilicus(s.vilicus)}" for s in tied if s.name != won[0])
        return (
            f"{tied_names} tie on {best} points; {won[0]} wins with fewer vilicus on the "
            f"board ({_vilicus(fewest)}; {others})."
        )
    if len(won) == len(tied):
        return (
            f"{tied_names} tie on {best} points with the same number of vilicus on the "
            f"board ({fewest} each): the victory is shared."
        )
    return (
        f"{tied_names} tie on {best} points; {_names(list(won))} have the fewest vilicus "
        f"on the board ({fewest} each) and share the victory."
    )
