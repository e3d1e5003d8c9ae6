"""A seeded simulated game, for the harnesses that play games nobody sits at.

The crash test, the café's simulated tables, the live-table fuzz and the benchmarks drive a
real table session without knowing its game: they ask the game for a :class:`Simulation`,
open a game with its setup request and hand the session each :class:`Move` it gives, as the
camera or the operator would.  Everything is drawn from the seed, so a run replays exactly,
and a session resumed from its log is given the same moves from where it stands.

Games sit below the table, so a move is plain data the harness turns into the session's
command: a :class:`Seen` observation (the camera's) or an :class:`Acted` operator action,
already parsed by the game's referee.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from companion.errors import InputError

if TYPE_CHECKING:
    from companion.games.plugin import GamePlugin
    from companion.games.table_seam import Match, Referee


@dataclass(frozen=True)
class Seen:
    """What the camera delivers: the game's own observation."""

    observation: object


@dataclass(frozen=True)
class Acted:
    """One of the game's operator actions, as its referee parses it (a move may carry
    the chance it needs, seeded dice say, so it is played the same after a resume)."""

    action: object


Move = Seen | Acted


class Simulation(Protocol):
    """One seeded simulated game (see the module docstring)."""

    def referee(self) -> Referee:
        """The game's referee, with any chance it draws of its own seeded."""
        ...

    def setup_request(self) -> object:
        """The request that opens the simulated game at a session."""
        ...

    def script(self, match: Match, turns: int | None = None) -> list[Move]:
        """The game's moves from ``match``'s opening, for ``turns`` turns (all by default),
        with the hostile ones mixed in when they were asked for: the same list for the live
        match and for the match resumed from its log.  Each move is played once."""
        ...

    def next_move(self, match: Match, rng: random.Random) -> Move | None:
        """A plain move from where ``match`` stands now, drawn with ``rng``; ``None`` when
        the simulated players have none left."""
        ...

    def dispute(self, match: Match) -> Move | None:
        """A move the rules refuse that leaves the table waiting for the operator, or
        ``None`` for a game that has no such thing."""
        ...

    def digest(self, match: Match) -> dict[str, Any]:
        """The match's observable state as plain JSON: only what its log makes durable, so
        a live match and the same match resumed compare equal."""
        ...

    def export(self, match: Match) -> list[str]:
        """The game as the game exports it (its record's lines)."""
        ...


@runtime_checkable
class TimedMoves(Protocol):
    """An input of simulated players that notes when each move was made (for a camera, the
    moment the hand left the board): where a latency benchmark starts its clock."""

    @property
    def moves_at_s(self) -> Mapping[int, float]:
        """The monotonic time of each move made so far, by its number from 0."""
        ...


def simulation_of(
    plugin: GamePlugin,
    seed: int,
    *,
    players: int | None = None,
    hostile: bool = False,
    choices: Mapping[str, str] | None = None,
) -> Simulation:
    """The game's simulation, or a clear error for a game that has none (a plugin written
    before the hook may lack the method)."""
    hook = getattr(plugin, "simulation", None)
    try:
        if hook is None:
            raise NotImplementedError
        simulation: Simulation = hook(seed, players=players, hostile=hostile, choices=choices)
    except NotImplementedError:
        raise InputError(
            f"the game {plugin.name!r} has no simulated players", field="game"
        ) from None
    return simulation


def check_choices(choices: Mapping[str, str] | None, known: Mapping[str, str]) -> dict[str, str]:
    """``known`` (the game's choices and their defaults) with ``choices`` applied; a choice the
    game does not have is an input error naming it."""
    given = dict(choices or {})
    unknown = sorted(set(given) - set(known))
    if unknown:
        offered = ", ".join(known) or "none"
        raise InputError(f"not a setup choice of this game (choices: {offered})", field=unknown[0])
    return {**known, **given}
