"""What the table session can be asked to do: one small type per command.

Any thread builds a command and queues it; the session's owner thread alone carries it
out (see :mod:`companion.table.session`), so the game's state has a single writer.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.simulation_seam import Move, Seen
from companion.games.table_seam import ButtonPress


@dataclass(frozen=True)
class NewGame:
    """Start a game: ``request`` is the game's own setup request or the setup form's JSON;
    ``game`` names the game (the table's own game when ``None``)."""

    request: object
    game: str | None = None


@dataclass(frozen=True)
class Observe:
    """What the camera saw (the game's own observation type)."""

    observation: object


@dataclass(frozen=True)
class Act:
    """One of the game's operator actions, as its referee parsed it."""

    action: object


@dataclass(frozen=True)
class Press:
    """A physical button was pressed."""

    press: ButtonPress


@dataclass(frozen=True)
class Undo:
    """Take back the last decision (a flagged move, or else the last accepted turn)."""

    by: str = "operator"


@dataclass(frozen=True)
class EndGame:
    reason: str = "ended by the operator"


@dataclass(frozen=True)
class Acknowledge:
    """The operator has seen that the log failed verification."""


@dataclass(frozen=True)
class SourceFailed:
    """An input (camera, buttons) stopped: the table stays up and says so."""

    error: str


Command = NewGame | Observe | Act | Press | Undo | EndGame | Acknowledge | SourceFailed


def command_for(move: Move) -> Observe | Act:
    """The command that makes a simulated game's move: the camera's observation, or the
    operator's action."""
    return Observe(move.observation) if isinstance(move, Seen) else Act(move.action)
