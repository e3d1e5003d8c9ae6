"""What the log tells of any game in its generic kinds, whatever the game: the turns
played, a dispute waiting for the operator, and how it ended.

The café's room card and the history pages both read a game this way when they know
nothing more of it (a game's own kit may read its log more closely)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from companion.games.table_seam import EventKind, LoggedEvent


@dataclass(frozen=True)
class Story:
    """One game's story so far; see the module docstring."""

    game: int
    turns: int = 0  # actions and accepted results, less those taken back
    outcome: str | None = None  # "dispute" or "desync" while the operator is needed
    violations: tuple[str, ...] = ()
    ended: str | None = None
    end_hash: str | None = None  # the chain head as the game ended: what the players saw

    def apply(self, event: LoggedEvent) -> Story:
        p = event.payload
        match event.kind:
            case EventKind.VERDICT:
                outcome = p.get("outcome")
                if outcome in ("dispute", "desync"):
                    codes = tuple(
                        str(v.get("code", ""))
                        for v in p.get("violations", ())
                        if isinstance(v, dict)
                    )
                    return replace(self, outcome=str(outcome), violations=codes)
                if outcome == "restored":
                    return replace(self, outcome=None, violations=())
                return self
            case EventKind.ACCEPTED | EventKind.CORRECTION:
                return replace(self, turns=self.turns + 1, outcome=None, violations=())
            case EventKind.ACTION:
                return replace(self, turns=self.turns + 1)
            case EventKind.UNDO:
                return replace(self, turns=max(self.turns - 1, 0), outcome=None, violations=())
            case EventKind.DISMISSED:
                return replace(self, outcome=None, violations=())
            case EventKind.GAME_ENDED:
                reason = str(p.get("reason", "ended"))
                return replace(self, ended=reason, outcome=None, violations=(), end_hash=event.hash)
            case _:
                return self


def story_of(events: Iterable[LoggedEvent]) -> Story:
    """The story of one game's events, its opening first."""
    it = iter(events)
    first = next(it, None)
    if first is None:
        raise ValueError("a game's events start with game_started")
    story = Story(first.game)
    for event in it:
        story = story.apply(event)
    return story
