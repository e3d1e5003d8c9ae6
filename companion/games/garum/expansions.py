"""The extension point for expansions.

A setup may carry expansions; each one sees every judged turn and may add violations
to its verdict (scoring hooks join when an expansion needs them).  The
"Privileges" mini-expansion belongs here once its rules are available; none are
implemented, because the rules text is not at hand and guessing would mislead players.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from companion.games.garum.rules import Game
    from companion.games.garum.state import BoardState
    from companion.games.garum.violations import Verdict, Violation


class Expansion(Protocol):
    name: str

    def extra_violations(
        self, game: Game, observed: BoardState, verdict: Verdict
    ) -> tuple[Violation, ...]:
        """Further violations of this expansion's rules for one observed turn."""
        ...
