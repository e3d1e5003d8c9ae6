"""Who plays which colours, on which board, in which order: everything fixed before round 1."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from companion.boards.profile import SPECIES, BoardProfile

if TYPE_CHECKING:
    from companion.games.garum.expansions import Expansion

VILICUS_PER_COLOUR = 5
DOMINUS_PER_COLOUR = 1


class Variant(StrEnum):
    STANDARD = "standard"
    EMPEROR = "emperor"  # no aureus: the amphora holder chooses the vat
    HARUSPEX = "haruspex"  # every aureus revealed at setup


class SetupError(ValueError):
    """A game setup that the rules do not allow; ``field`` names the offending part."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    colours: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlannedTurn:
    """One colour's turn in play order.  ``seat`` is None for the ghost colour."""

    number: int  # 1-based over the whole game
    round: int  # 1-based
    colour: str
    seat: int | None


def draw_aureus(board: BoardProfile, rng: random.Random | None = None) -> tuple[int, ...]:
    """The electronic aureus: every vat once, in a random order.

    Draws from the operating system's secure source unless ``rng`` (a seeded
    :class:`random.Random`) is given for a reproducible game.
    """
    vats = list(board.vats)
    (rng or secrets.SystemRandom()).shuffle(vats)
    return tuple(vats)


@dataclass(frozen=True, slots=True)
class GameSetup:
    """A validated game configuration.  Build it with :meth:`create`."""

    board: BoardProfile
    variant: Variant
    seats: tuple[Seat, ...]
    ghost: str | None
    aureus: tuple[int, ...]
    first_seat: int
    turn_plan: tuple[PlannedTurn, ...] = field(compare=False)
    expansions: tuple[Expansion, ...] = field(default=(), compare=False)

    @classmethod
    def create(
        cls,
        board: BoardProfile,
        variant: Variant | str,
        seats: tuple[Seat, ...] | list[Seat],
        ghost: str | None = None,
        aureus: tuple[int, ...] | list[int] | None = None,
        first_seat: int = 0,
        rng: random.Random | None = None,
        expansions: tuple[Expansion, ...] = (),
    ) -> GameSetup:
        """Validates a setup; draws the aureus when none is given (not for Emperor)."""
        try:
            variant = Variant(variant)
        except ValueError:
            raise SetupError(
                f"unknown variant {variant!r} (standard, emperor or haruspex)", "variant"
            ) from None
        seats = tuple(seats)
        ghost = _check_seats(seats, ghost)
        if not 0 <= first_seat < (4 if len(seats) == 2 else len(seats)):
            limit = 1 if len(seats) == 2 else len(seats) - 1
            raise SetupError(f"must be between 0 and {limit}", "first_seat")
        if len(seats) == 2 and first_seat > 1:
            raise SetupError("must be 0 or 1 in a two-player game", "first_seat")
        if aureus is None:
            aureus = () if variant is Variant.EMPEROR else draw_aureus(board, rng)
        aureus = tuple(aureus)
        _check_aureus(board, aureus)
        plan = _turn_plan(board, seats, ghost, first_seat)
        return cls(board, variant, seats, ghost, aureus, first_seat, plan, expansions)

    @property
    def colours(self) -> tuple[str, ...]:
        """Every colour in the game, players' and ghost's."""
        return tuple(c for c in SPECIES if c in self.colour_seat or c == self.ghost)

    @property
    def colour_seat(self) -> dict[str, int]:
        return {c: i for i, seat in enumerate(self.seats) for c in seat.colours}

    @property
    def turns_per_round(self) -> int:
        return 4


def _check_seats(seats: tuple[Seat, ...], ghost: str | None) -> str | None:
    if not 2 <= len(seats) <= 4:
        raise SetupError(f"Garum is for 2 to 4 players, got {len(seats)}", "seats")
    want = 2 if len(seats) == 2 else 1
    used: list[str] = []
    for i, seat in enumerate(seats):
        if not seat.name.strip():
            raise SetupError("a seat needs a name", f"seats[{i}].name")
        if len(seat.colours) != want:
            raise SetupError(
                f"with {len(seats)} players each seat has {want} colour(s), "
                f"got {len(seat.colours)}",
                f"seats[{i}].colours",
            )
        for colour in seat.colours:
            if len(colour) != 1 or colour not in SPECIES:  # "" and "GY" are in "BGYR" too
                raise SetupError(f"unknown colour {colour!r} (B, G, Y or R)", f"seats[{i}].colours")
            if colour in used:
                raise SetupError(f"colour {colour} is taken twice", f"seats[{i}].colours")
            used.append(colour)
    names = [s.name for s in seats]
    if len(set(names)) != len(names):
        raise SetupError("two seats share a name", "seats")
    free = [c for c in SPECIES if c not in used]
    if len(seats) == 3:
        if ghost is None:
            return free[0]
        if ghost != free[0]:
            raise SetupError(
                f"the ghost must be the unused colour {free[0]}, got {ghost!r}", "ghost"
            )
        return ghost
    if ghost is not None:
        raise SetupError("only a three-player game has a ghost colour", "ghost")
    return None


def _check_aureus(board: BoardProfile, aureus: tuple[int, ...]) -> None:
    if len(aureus) > board.rounds:
        raise SetupError(f"{len(aureus)} vats for a {board.rounds}-round board", "aureus")
    seen: set[int] = set()
    for i, vat in enumerate(aureus):
        if isinstance(vat, bool) or not isinstance(vat, int) or vat not in board.vat_position:
            raise SetupError(f"{vat!r} is not a vat of the {board.name} board", f"aureus[{i}]")
        if vat in seen:
            raise SetupError(f"vat {vat} appears twice", f"aureus[{i}]")
        seen.add(vat)


def _turn_plan(
    board: BoardProfile, seats: tuple[Seat, ...], ghost: str | None, first_seat: int
) -> tuple[PlannedTurn, ...]:
    """Play order for the whole game, round by round."""
    plan: list[PlannedTurn] = []
    if len(seats) == 2:
        # Two colours each, sitting as four virtual seats: P1a, P2a, P1b, P2b.
        virtual = [(0, seats[0].colours[0]), (1, seats[1].colours[0])]
        virtual += [(0, seats[0].colours[1]), (1, seats[1].colours[1])]
    else:
        virtual = [(i, seat.colours[0]) for i, seat in enumerate(seats)]
    for r in range(board.rounds):
        start = (first_seat + r) % len(virtual)
        order: list[tuple[int | None, str]] = [
            virtual[(start + k) % len(virtual)] for k in range(len(virtual))
        ]
        if ghost is not None:
            order.append((None, ghost))
        for seat, colour in order:
            plan.append(PlannedTurn(len(plan) + 1, r + 1, colour, seat))
    return tuple(plan)
