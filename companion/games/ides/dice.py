"""The two dice as data, and a roller drawing from a cryptographically secure source.

The faces are not published; the defaults are the project's assumed faces and can be replaced
(an owner who counts the real dice edits data, not code).
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from companion.errors import InputError


class Die(StrEnum):
    ORANGE = "orange"
    PURPLE = "purple"


class Face(StrEnum):
    GREEN = "green"
    RED = "red"
    YELLOW = "yellow"
    PURPLE = "purple"


DEFAULT_ORANGE: tuple[Face, ...] = (
    Face.GREEN,
    Face.GREEN,
    Face.RED,
    Face.RED,
    Face.YELLOW,
    Face.PURPLE,
)
DEFAULT_PURPLE: tuple[Face, ...] = (
    Face.GREEN,
    Face.GREEN,
    Face.GREEN,
    Face.RED,
    Face.RED,
    Face.PURPLE,
)


class DiceMode(StrEnum):
    """Who throws the dice, chosen when a game is set up and kept in its log."""

    ELECTRONIC = "electronic"  # the companion throws from its secure source; no face is named
    PHYSICAL = "physical"  # the players throw real dice; the operator enters the faces shown

    @classmethod
    def parse(cls, raw: Any, *, field: str = "dice_mode") -> DiceMode:
        allowed = [m.value for m in cls]
        if raw not in allowed:
            raise InputError(f"expected one of {', '.join(allowed)}, got {raw!r}", field=field)
        return cls(raw)


@dataclass(frozen=True, slots=True)
class DiceFaces:
    """The faces printed on each die, one entry per side."""

    orange: tuple[Face, ...] = DEFAULT_ORANGE
    purple: tuple[Face, ...] = DEFAULT_PURPLE

    def __post_init__(self) -> None:
        for die in Die:
            if not self.faces(die):
                raise InputError("a die needs at least one face", field=f"dice.{die.value}")
        # The rules give a yellow result a meaning only on the orange die.
        if Face.YELLOW in self.purple:
            raise InputError("the purple die has no yellow result", field="dice.purple")

    def faces(self, die: Die) -> tuple[Face, ...]:
        return self.orange if die is Die.ORANGE else self.purple

    def probability(self, die: Die, face: Face) -> Fraction:
        sides = self.faces(die)
        return Fraction(sides.count(face), len(sides))

    def distribution(self, die: Die) -> dict[Face, Fraction]:
        sides = self.faces(die)
        return {f: Fraction(n, len(sides)) for f, n in Counter(sides).items()}

    def to_dict(self) -> dict[str, Any]:
        return {die.value: [f.value for f in self.faces(die)] for die in Die}

    @classmethod
    def from_dict(cls, data: Any, *, path: str = "dice") -> DiceFaces:
        if not isinstance(data, dict):
            raise InputError("expected an object with 'orange' and 'purple' face lists", field=path)
        sides: dict[Die, tuple[Face, ...]] = {}
        for die in Die:
            entries = data.get(die.value)
            if not isinstance(entries, list):
                raise InputError("expected a list of faces", field=f"{path}.{die.value}")
            faces: list[Face] = []
            for i, entry in enumerate(entries):
                if entry not in {f.value for f in Face}:
                    raise InputError(
                        f"expected one of green, red, yellow, purple, got {entry!r}",
                        field=f"{path}.{die.value}[{i}]",
                    )
                faces.append(Face(entry))
            sides[die] = tuple(faces)
        return cls(orange=sides[Die.ORANGE], purple=sides[Die.PURPLE])


@dataclass
class Dice:
    """Throws the dice: ``secrets.SystemRandom`` unless a seeded ``random.Random`` is given."""

    faces: DiceFaces = field(default_factory=DiceFaces)
    rng: random.Random = field(default_factory=secrets.SystemRandom)

    @classmethod
    def seeded(cls, seed: int, faces: DiceFaces | None = None) -> Dice:
        """Reproducible dice for tests and replays; never for a real game."""
        return cls(faces or DiceFaces(), random.Random(seed))

    def throw(self, die: Die) -> Face:
        return self.rng.choice(self.faces.faces(die))
