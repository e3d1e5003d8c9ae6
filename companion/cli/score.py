"""The score table of ``companion score``, where ``cli/demo.py`` still imports it from.

The command itself belongs to its game (``companion score`` is added by the game's
commands); this module registers nothing.
"""

from companion.games.garum.commands.score import render_table

__all__ = ["render_table"]
