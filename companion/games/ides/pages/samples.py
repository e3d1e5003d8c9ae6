"""Requests for ``companion bench fuzz`` to send an Ides table: the offered choices (and a
roll whose face the caller chose, which the electronic dice must refuse), new games with
good and bad player lists, and the page's forms."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from companion.games.page_seam import RouteSample

NAMES = ("Livia", "Marcus", "Julia", "Titus")
BAD_PLAYERS: tuple[list[str], ...] = (
    [],
    ["Solo"],
    ["A", "B", "C", "D", "E"],
    ["A", ""],
    ["A", "N" * 41],
)
FACES = ("green", "red", "yellow", "purple")
OFFERED = 3  # choices offered at once: most requests play the game on, a few start anew


def route_samples(view: Mapping[str, Any], rng: random.Random) -> list[RouteSample]:
    players = list(NAMES[: rng.randint(2, 4)])
    bad = rng.choice(BAD_PLAYERS)
    samples = [
        RouteSample("new_game", f"{len(players)} players", {"players": players, "first_seat": 0}),
        RouteSample(
            "new_game", f"players {bad!r}", {"players": bad, "first_seat": 0}, invalid=True
        ),
        RouteSample(
            "new", "the page's new-game form", form={"player": players, "dice_mode": "electronic"}
        ),
    ]
    choices = view.get("choices") or []
    for chosen in rng.sample(choices, min(len(choices), OFFERED)):
        action = dict(chosen["action"])
        samples += [
            RouteSample("act", f"offered {action.get('kind')}", {"action": action}),
            RouteSample("act", "the page's choice", form={"choice": json.dumps(action)}),
        ]
        if "face" in action and view.get("dice_mode") != "physical":
            face = {**action, "face": rng.choice(FACES)}
            how = f"{action.get('kind')} with the face chosen by the caller"
            samples += [
                RouteSample("act", how, {"action": face}, invalid=True),
                RouteSample("act", how, form={"choice": json.dumps(face)}, invalid=True),
            ]
    return samples
