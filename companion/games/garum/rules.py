"""The Garum position and its public door: legal moves, verdicts, and advancing.

A :class:`Game` is immutable.  Every change from outside goes through :meth:`Game.judge`
(which always returns a verdict) and :meth:`Game.advance` (which accepts an observed state,
legal or operator-accepted).  Nothing here trusts an observation without diffing it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.boards.profile import GRID, LINES, BoardProfile
from companion.games.garum.setup import (
    DOMINUS_PER_COLOUR,
    VILICUS_PER_COLOUR,
    GameSetup,
    PlannedTurn,
    Variant,
)
from companion.games.garum.state import BoardState
from companion.games.garum.tiles import tile_owner
from companion.games.garum.violations import ORDER, Verdict, Violation, ViolationCode

COLOUR_NAMES = {"B": "blue", "G": "green", "Y": "yellow", "R": "red"}


class GameOver(ValueError):
    """Raised when a turn is asked of a game whose vats are all full."""


@dataclass(frozen=True, slots=True)
class Turn:
    number: int
    round: int
    colour: str
    seat: int | None  # None for the ghost colour
    vat: int | None  # None only in the Emperor variant before the round's vat is chosen


@dataclass(frozen=True, slots=True)
class Slot:
    """One of a vat's four 2 x 2 tile places."""

    vat: int
    index: int
    cells: tuple[int, int, int, int]


def line_name(line: int) -> str:
    """A worker line as players count it: rows and columns numbered from 1."""
    return f"row {line + 1}" if line < GRID else f"column {line - GRID + 1}"


def slot_of_cell(cell: int) -> int:
    """The 2 x 2 slot position (0..63) a cell belongs to, on any board."""
    return (cell // GRID // 2) * (GRID // 2) + (cell % GRID) // 2


def slot_cells(position: int) -> tuple[int, int, int, int]:
    top = (position // (GRID // 2)) * 2 * GRID + (position % (GRID // 2)) * 2
    return (top, top + 1, top + GRID, top + GRID + 1)


def full_vats(board: BoardProfile, cells: str) -> frozenset[int]:
    """Vats whose 16 cells all hold fish."""
    return frozenset(
        vat for vat, vc in board.vat_cells.items() if all(cells[c] not in ".?" for c in vc)
    )


def worker_counts(workers: tuple[str | None, ...], colour: str) -> tuple[int, int]:
    """(vilicus, dominus) of ``colour`` standing on the board."""
    return workers.count(colour + "v"), workers.count(colour + "d")


def legal_worker_lines(
    board: BoardProfile,
    vat: int,
    workers: tuple[str | None, ...] | list[str | None],
    full: frozenset[int] | set[int],
) -> list[int]:
    """Free lines through ``vat`` whose area is still open (supply is checked apart)."""
    free: list[int] = []
    for lines, others in board.vat_areas[vat]:
        if all(v in full for v in others):
            continue  # closed: every other vat of this area is full
        free.extend(line for line in lines if workers[line] is None)
    return free


@dataclass(frozen=True, slots=True)
class Game:
    """A Garum game at the start of one turn (or over)."""

    setup: GameSetup
    state: BoardState
    turn_index: int = 0  # index into ``setup.turn_plan`` of the turn to play
    vats: tuple[int, ...] = ()  # round vats known so far
    bonus: tuple[int, int, int, int] = (0, 0, 0, 0)  # live bonuses, B G Y R

    @classmethod
    def new(cls, setup: GameSetup) -> Game:
        return cls(setup, BoardState(), 0, setup.aureus)

    # ----------------------------------------------------------------- queries

    @property
    def board(self) -> BoardProfile:
        return self.setup.board

    @property
    def is_over(self) -> bool:
        return self.turn_index >= len(self.setup.turn_plan)

    @property
    def planned(self) -> PlannedTurn | None:
        plan = self.setup.turn_plan
        return plan[self.turn_index] if self.turn_index < len(plan) else None

    @property
    def round_vat(self) -> int | None:
        planned = self.planned
        if planned is None or planned.round > len(self.vats):
            return None
        return self.vats[planned.round - 1]

    @property
    def turn(self) -> Turn | None:
        p = self.planned
        if p is None:
            return None
        return Turn(p.number, p.round, p.colour, p.seat, self.round_vat)

    @property
    def bonus_scores(self) -> dict[str, int]:
        return dict(zip("BGYR", self.bonus, strict=True))

    def workers_left(self, colour: str) -> tuple[int, int]:
        vilicus, dominus = worker_counts(self.state.workers, colour)
        return VILICUS_PER_COLOUR - vilicus, DOMINUS_PER_COLOUR - dominus

    def full_vats(self) -> frozenset[int]:
        return full_vats(self.board, self.state.cells)

    def legal_slots(self) -> tuple[Slot, ...]:
        """Free slots of the round's vat (of every open vat while an Emperor has not chosen)."""
        if self.is_over:
            return ()
        vat = self.round_vat
        candidates = [vat] if vat is not None else self._choosable_vats()
        cells = self.state.cells
        return tuple(
            Slot(v, i, slot)
            for v in candidates
            for i, slot in enumerate(self.board.vat_slots[v])
            if all(cells[c] == "." for c in slot)
        )

    def _choosable_vats(self) -> list[int]:
        full = self.full_vats()
        return [v for v in self.board.vats if v not in self.vats and v not in full]

    def legal_worker_spaces(self) -> tuple[int, ...]:
        """Lines on which the colour to play may put a worker this turn."""
        turn = self.turn
        if turn is None or turn.vat is None or turn.seat is None:
            return ()
        if self.workers_left(turn.colour) == (0, 0):
            return ()
        return tuple(legal_worker_lines(self.board, turn.vat, self.state.workers, self.full_vats()))

    # ----------------------------------------------------------------- changes

    def choose_vat(self, vat: int) -> Game:
        """Emperor: the amphora holder names the round's vat."""
        turn = self.turn
        if self.setup.variant is not Variant.EMPEROR:
            raise ValueError("only the Emperor variant lets the amphora holder choose the vat")
        if turn is None:
            raise GameOver("the game is over")
        if turn.vat is not None:
            raise ValueError(f"round {turn.round} already plays vat {turn.vat}")
        if vat not in self._choosable_vats():
            raise ValueError(f"vat {vat} is not an open, unplayed vat of this board")
        return replace(self, vats=(*self.vats, vat))

    def judge(self, observed: BoardState) -> Verdict:
        """Compares the observed board after this turn with what the rules allow."""
        turn = self.turn
        if turn is None:
            raise GameOver("the game is over: every vat is full")
        verdict = _Judge(self, turn, observed).verdict()
        for expansion in self.setup.expansions:
            extra = expansion.extra_violations(self, observed, verdict)
            if extra:
                found = sorted((*verdict.violations, *extra), key=lambda v: ORDER[v.code])
                verdict = replace(verdict, violations=tuple(found))
        return verdict

    def advance(self, observed: BoardState) -> Game:
        """Accepts ``observed`` as the result of this turn and moves to the next one."""
        return self.play(observed)[1]

    def play(self, observed: BoardState) -> tuple[Verdict, Game]:
        """Judges ``observed`` and accepts it: the verdict, and the game at the next turn.

        Illegal turns are accepted too (the operator decides); the verdict says what was
        wrong, and the next turn is judged against the board as it really is.
        """
        verdict = self.judge(observed)
        vats = self.vats
        if verdict.turn.vat is None and verdict.placed_slot is not None:
            vats = (*vats, verdict.placed_slot.vat)  # Emperor: the first tile names the vat
        bonus = list(self.bonus)
        if verdict.turn.seat is not None:
            gained = _bonus_gained(self.board, self.state.cells, observed.cells)
            bonus["BGYR".index(verdict.turn.colour)] += gained
        game = Game(
            self.setup,
            observed,
            self.turn_index + 1,
            vats,
            (bonus[0], bonus[1], bonus[2], bonus[3]),
        )
        return verdict, game


def _bonus_gained(board: BoardProfile, before: str, after: str) -> int:
    """Points for bonus cells newly covered: 2 for the same species, 1 on a joker."""
    points = 0
    for cell, kind in board.bonus_kind.items():
        fish = after[cell]
        if before[cell] == "." and fish in "BGYR":
            points += 1 if kind == "J" else (2 if kind == fish else 0)
    return points


class _Judge:
    """One verdict's worth of diffing; kept apart so :class:`Game` stays small."""

    def __init__(self, game: Game, turn: Turn, observed: BoardState) -> None:
        self.game = game
        self.board = game.board
        self.turn = turn
        self.before = game.state
        self.after = observed
        self.found: list[Violation] = []
        self.uncertain: list[int] = []

    def flag(self, code: ViolationCode, message: str, **where: tuple[int, ...]) -> None:
        self.found.append(Violation(code, message, **where))

    def verdict(self) -> Verdict:
        slot = self._tiles()
        workers = self._workers(slot)
        self.found.sort(key=lambda v: ORDER[v.code])
        return Verdict(self.turn, tuple(self.found), slot, workers, tuple(self.uncertain))

    # ------------------------------------------------------------------ tiles

    def _tiles(self) -> Slot | None:
        before, after = self.before.cells, self.after.cells
        changed: list[int] = []
        new_by_slot: dict[int, list[int]] = {}
        for cell in range(GRID * GRID):
            b, a = before[cell], after[cell]
            if a == b:
                continue
            if a == "?":
                self.uncertain.append(cell)
            elif b != ".":
                changed.append(cell)
            else:
                new_by_slot.setdefault(slot_of_cell(cell), []).append(cell)
        colour = _colour(self.turn.colour)
        if changed:
            self.flag(
                ViolationCode.TILE_CHANGED,
                f"turn {self.turn.number} ({colour}): {len(changed)} cell(s) of tiles already "
                f"on the board changed",
                cells=tuple(changed),
            )
        if not new_by_slot:
            self.flag(
                ViolationCode.NO_TILE,
                f"turn {self.turn.number}: {colour} placed no tile",
            )
            return None
        # The placed tile is the candidate with the fewest problems; the rest are extras.
        ranked = sorted(new_by_slot, key=lambda pos: (len(self._tile_problems(pos)), pos))
        primary = ranked[0]
        for code, message in self._tile_problems(primary):
            self.flag(code, message, cells=slot_cells(primary))
        if len(ranked) > 1:
            extra = tuple(c for pos in ranked[1:] for c in new_by_slot[pos])
            self.flag(
                ViolationCode.EXTRA_TILE,
                f"turn {self.turn.number}: {colour} placed {len(ranked)} tiles instead of one",
                cells=extra,
            )
        vat = self.board.vat_of_cell[slot_cells(primary)[0]]
        if vat is None:
            return None
        index = self.board.vat_slots[vat].index(slot_cells(primary))
        return Slot(vat, index, slot_cells(primary))

    def _tile_problems(self, position: int) -> list[tuple[ViolationCode, str]]:
        cells = slot_cells(position)
        problems: list[tuple[ViolationCode, str]] = []
        vat = self.board.vat_of_cell[cells[0]]
        expected = self.turn.vat
        colour = _colour(self.turn.colour)
        if vat is None:
            problems.append((ViolationCode.WRONG_VAT, f"{colour} placed a tile outside every vat"))
        elif expected is not None and vat != expected:
            problems.append(
                (
                    ViolationCode.WRONG_VAT,
                    f"{colour} placed a tile in vat {vat}; round {self.turn.round} plays "
                    f"vat {expected}",
                )
            )
        elif expected is None and vat in self.game.vats:
            problems.append(
                (ViolationCode.WRONG_VAT, f"{colour} placed a tile in vat {vat}, already played")
            )
        face = "".join(self.after.cells[c] for c in cells)
        owner = tile_owner(face)
        if owner != self.turn.colour:
            shown = "no single predominant colour" if owner is None else _colour(owner)
            problems.append(
                (
                    ViolationCode.WRONG_COLOUR,
                    f"turn {self.turn.number} is {colour}'s, but the tile placed shows {shown}",
                )
            )
        return problems

    # ----------------------------------------------------------------- workers

    def _workers(self, slot: Slot | None) -> tuple[int, ...]:
        before, after = self.before.workers, self.after.workers
        new: list[int] = []
        changed: list[int] = []
        for line in range(LINES):
            b, a = before[line], after[line]
            if a == b:
                continue
            if a == "?":
                continue
            if b is not None:
                changed.append(line)
            else:
                new.append(line)
        colour = _colour(self.turn.colour)
        if changed:
            self.flag(
                ViolationCode.WORKER_CHANGED,
                "workers moved or left on " + ", ".join(line_name(x) for x in changed),
                lines=tuple(changed),
            )
        if not new:
            return ()
        ranked = sorted(new, key=lambda line: (len(self._worker_problems(line, slot)), line))
        for code, message in self._worker_problems(ranked[0], slot):
            self.flag(code, message, lines=(ranked[0],))
        if len(ranked) > 1:
            self.flag(
                ViolationCode.EXTRA_WORKER,
                f"turn {self.turn.number}: {len(ranked)} workers placed for {colour}; at most one",
                lines=tuple(ranked[1:]),
            )
        return tuple(new)

    def _worker_problems(self, line: int, slot: Slot | None) -> list[tuple[ViolationCode, str]]:
        code = self.after.workers[line]
        assert code is not None
        owner, kind = code[0], code[1]
        where = line_name(line)
        turn = self.turn
        if turn.seat is None:
            return [
                (ViolationCode.GHOST_WORKER, f"a worker appeared on {where} on the ghost's turn")
            ]
        problems: list[tuple[ViolationCode, str]] = []
        if owner != turn.colour:
            problems.append(
                (
                    ViolationCode.WORKER_WRONG_COLOUR,
                    f"a {_colour(owner)} worker appeared on {where} during "
                    f"{_colour(turn.colour)}'s turn",
                )
            )
        vat = turn.vat if turn.vat is not None else (slot.vat if slot else None)
        if vat is None or line not in self.board.vat_lines[vat]:
            problems.append(
                (
                    ViolationCode.WORKER_OFF_LINE,
                    f"{where} does not pass through vat {vat}" if vat else f"{where}: no vat",
                )
            )
        elif self.board.area_vats_closed(line, full_vats(self.board, self.before.cells), vat):
            problems.append(
                (
                    ViolationCode.WORKER_AREA_CLOSED,
                    f"{where} belongs to an area whose other vats are full",
                )
            )
        vilicus, dominus = worker_counts(self.before.workers, owner)
        if (kind == "v" and vilicus >= VILICUS_PER_COLOUR) or (
            kind == "d" and dominus >= DOMINUS_PER_COLOUR
        ):
            name = "vilicus" if kind == "v" else "dominus"
            problems.append(
                (ViolationCode.WORKER_SUPPLY, f"{_colour(owner)} has no {name} left to place")
            )
        return problems


def _colour(letter: str) -> str:
    return COLOUR_NAMES.get(letter, letter)
