"""The dice: assumed faces as data, a secure source by default, and throws that follow the
faces' distribution (chi-square on a fixed seed, so the test is deterministic)."""

from __future__ import annotations

import random
import secrets
from collections import Counter
from fractions import Fraction

import pytest

from companion.errors import InputError
from companion.games.ides import Bribe, Dice, DiceFaces, Die, DrawFreeTile, Face, Game, Roll
from companion.games.ides.game import throw

# Upper 0.1% points of the chi-square distribution by degrees of freedom.
CHI2_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467}
THROWS = 60_000


def chi_square(counts: Counter[Face], expected: dict[Face, Fraction], n: int) -> float:
    return sum(
        (counts.get(face, 0) - float(p) * n) ** 2 / (float(p) * n) for face, p in expected.items()
    )


def test_orange_die_assumed_faces() -> None:
    d = DiceFaces().distribution(Die.ORANGE)
    assert d == {
        Face.GREEN: Fraction(2, 6),
        Face.RED: Fraction(2, 6),
        Face.YELLOW: Fraction(1, 6),
        Face.PURPLE: Fraction(1, 6),
    }


def test_purple_die_assumed_faces() -> None:
    d = DiceFaces().distribution(Die.PURPLE)
    assert d == {Face.GREEN: Fraction(3, 6), Face.RED: Fraction(2, 6), Face.PURPLE: Fraction(1, 6)}


def test_default_source_is_cryptographically_secure() -> None:
    assert isinstance(Dice().rng, secrets.SystemRandom)
    assert Dice().throw(Die.ORANGE) in DiceFaces().orange


def test_seeded_dice_reproduce() -> None:
    one, two = Dice.seeded(7), Dice.seeded(7)
    first = [one.throw(Die.ORANGE) for _ in range(50)]
    assert first == [two.throw(Die.ORANGE) for _ in range(50)]
    assert len(set(first)) > 1


@pytest.mark.parametrize("die", list(Die))
def test_throws_follow_the_face_distribution(die: Die) -> None:
    dice = Dice.seeded(20260321)
    counts = Counter(dice.throw(die) for _ in range(THROWS))
    expected = dice.faces.distribution(die)
    assert set(counts) == set(expected)
    stat = chi_square(counts, expected, THROWS)
    assert stat < CHI2_999[len(expected) - 1], stat
    # The test has power: the same throws are far from a die with equal faces.
    uniform = {face: Fraction(1, len(expected)) for face in expected}
    assert chi_square(counts, uniform, THROWS) > 10 * CHI2_999[len(expected) - 1]


def test_overridden_faces_are_followed() -> None:
    faces = DiceFaces(orange=(Face.GREEN,) * 5 + (Face.RED,), purple=(Face.PURPLE, Face.RED))
    dice = Dice(faces, random.Random(5))
    counts = Counter(dice.throw(Die.ORANGE) for _ in range(THROWS))
    assert set(counts) == {Face.GREEN, Face.RED}
    assert chi_square(counts, faces.distribution(Die.ORANGE), THROWS) < CHI2_999[1]


def test_game_refuses_a_face_its_dice_do_not_have() -> None:
    faces = DiceFaces(orange=(Face.GREEN, Face.RED), purple=(Face.GREEN,))
    game = Game.setup(["Ann", "Bo"], faces=faces)
    game = game.apply(DrawFreeTile(to_stockpile=True))
    assert game.refusal(Roll(Die.ORANGE, Face.YELLOW)) is not None
    assert game.refusal(Roll(Die.ORANGE, Face.RED)) is None


def test_throw_fills_the_face_of_the_right_die() -> None:
    faces = DiceFaces(orange=(Face.YELLOW,), purple=(Face.PURPLE,))
    dice = Dice(faces, random.Random(1))
    assert throw(Roll(Die.PURPLE), dice) == Roll(Die.PURPLE, Face.PURPLE)
    assert throw(Bribe(), dice) == Bribe(Face.YELLOW)


def test_faces_round_trip_and_bad_faces_named() -> None:
    faces = DiceFaces(orange=(Face.GREEN, Face.RED, Face.PURPLE), purple=(Face.RED,))
    assert DiceFaces.from_dict(faces.to_dict()) == faces
    with pytest.raises(InputError) as exc:
        DiceFaces.from_dict({"orange": ["green", "blue"], "purple": ["red"]})
    assert exc.value.field == "dice.orange[1]"
    with pytest.raises(InputError) as exc:
        DiceFaces(purple=(Face.YELLOW,))
    assert exc.value.field == "dice.purple"
    with pytest.raises(InputError) as exc:
        DiceFaces(orange=())
    assert exc.value.field == "dice.orange"
