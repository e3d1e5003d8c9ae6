"""A writer process for the Ides crash test: plays (or resumes) a seeded game in a log and
prints ``SEQ DIGEST`` once each action is acknowledged by the log.

Choices and throws come from a generator seeded with the seed and the number of actions so
far, so a resumed game goes on exactly as an uninterrupted one.

    python tests/ides_writer.py LOG.db SEED
"""

from __future__ import annotations

import random
import sys

from ides_driver import IdesDriver, IdesStatus, state_digest

from companion.games.ides import Dice
from companion.games.ides.simulate import choose
from companion.table.log import GameLog

PLAYERS = ["Ann", "Bo", "Cy"]


def main(path: str, seed: int) -> None:
    log = GameLog(path)
    table = IdesDriver(log, roll_s=0)
    if table.status is not IdesStatus.PLAYING:
        table.new_game(PLAYERS)
    while table.status is IdesStatus.PLAYING:
        game = table.game
        assert game is not None
        rng = random.Random(f"{seed}:{table.actions_applied}")
        table.act(choose(game, rng), dice=Dice(game.faces, rng), by="writer")
        print(table.last_seq, state_digest(table.game), flush=True)
    log.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
