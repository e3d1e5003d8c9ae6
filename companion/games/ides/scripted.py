"""The Ides of March simulated for the harnesses: seeded players choosing as real ones do.

Each move is the operator's *play* of an action :func:`choose` draws, carrying seeded dice of
its own, so the table throws what the script threw, and a table resumed from its log plays on
with the same throws.  Asked to be hostile, every few actions the players first try one the
rules refuse, and now and then move the buttons' cursor; neither reaches the log.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from companion.errors import InputError
from companion.games.ides import Bribe, Dice, FateRoll, Roll
from companion.games.ides.actions import Action
from companion.games.ides.game import Game
from companion.games.ides.referee import Highlight, IdesMatch, IdesReferee, Play
from companion.games.ides.simulate import DEFAULT_NAMES, choose
from companion.games.simulation_seam import Acted, Move, check_choices
from companion.games.table_seam import Match, canonical_json

DEFAULT_PLAYERS = 3
BY = "players"  # who the log says played a simulated move


class IdesSimulation:
    """See the module docstring."""

    def __init__(
        self,
        seed: int,
        *,
        players: int | None = None,
        hostile: bool = False,
        choices: Mapping[str, str] | None = None,
    ) -> None:
        check_choices(choices, {})
        count = DEFAULT_PLAYERS if players is None else players
        if not 2 <= count <= len(DEFAULT_NAMES):
            raise InputError(f"expected 2-{len(DEFAULT_NAMES)} players", field="players")
        self.seed = seed
        self.names = DEFAULT_NAMES[:count]
        self.hostile = hostile

    def referee(self) -> IdesReferee:
        return IdesReferee(Dice.seeded(self.seed))  # seeded dice: a failure replays exactly

    def setup_request(self) -> dict[str, Any]:
        return {"players": list(self.names)}

    def script(self, match: Match, turns: int | None = None) -> list[Move]:
        game = _ides(match).opening
        rng = random.Random(self.seed)
        moves: list[Move] = []
        number = 0
        while not game.over and (turns is None or game.turn_number <= turns):
            if self.hostile and number % 5 == 2:
                refused = _refused(game, rng)
                if refused is not None:
                    moves.append(Acted(Play(refused, BY)))
            if self.hostile and number % 7 == 3:
                moves.append(Acted(Highlight(1)))
            action = choose(game, rng)
            throws = rng.getrandbits(32)
            game = game.play(action, Dice.seeded(throws, game.faces))[1]
            moves.append(Acted(Play(action, BY, Dice.seeded(throws, game.faces))))
            number += 1
        return moves

    def next_move(self, match: Match, rng: random.Random) -> Move | None:
        game = _ides(match).position
        if game.over:
            return None
        return Acted(Play(choose(game, rng), BY, Dice(game.faces, rng)))

    def dispute(self, match: Match) -> Move | None:
        return None  # every move is checked before it is applied: nothing waits for a ruling

    def digest(self, match: Match) -> dict[str, Any]:
        ides = _ides(match)
        return {
            "position": ides.position.to_dict(),
            "log": [[line.turn, line.seat, line.text, line.by] for line in ides.history],
        }

    def export(self, match: Match) -> list[str]:
        ides = _ides(match)
        names = [p.name for p in ides.position.players]
        lines = [line.to_dict(names) for line in ides.history]
        for line in lines:
            del line["seq"]  # where the log put it, not what was played
        return [canonical_json(value) for value in (*lines, ides.position.to_dict())]


def _refused(game: Game, rng: random.Random) -> Action | None:
    """An action of this step the rules refuse (no roll: a refused throw still throws)."""
    refused = [
        action
        for action in game.candidates()
        if not isinstance(action, Roll | Bribe | FateRoll) and game.refusal(action) is not None
    ]
    return rng.choice(refused) if refused else None


def _ides(match: Match) -> IdesMatch:
    if not isinstance(match, IdesMatch):
        raise TypeError(f"not an Ides of March match: {type(match).__name__}")
    return match
