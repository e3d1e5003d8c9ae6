"""What a game tells the café: its summary of a table for the room, and its check of it.

The café's publisher follows a table's game log; the hub shows one card per table.  Both
are generic: the publisher asks the game of the log's opening event to :meth:`GameCafe.follow`
the game, and the hub asks the game a state message names (``game_kind``) to check the
fields only that game sends.  What every table sends (seq, status, dispute, ...) stays the
café's own business.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

#: The fields of a state message a game summarises (and :meth:`GameCafe.check_state`
#: returns, checked): the room's card shows them for every game.
CARD_FIELDS = (
    "board",
    "board_title",
    "variant",
    "rounds",
    "round",
    "turn",
    "whose_turn",
    "seats",
    "leader",
)


class CafePosition(Protocol):
    """One game in play, advanced one logged event at a time."""

    def apply(self, kind: str, payload: Mapping[str, Any]) -> None:
        """Folds one more event of this game (one the log holds, so it did happen)."""
        ...

    def summary(self) -> dict[str, Any]:
        """The game's part of the retained ``state`` message: the :data:`CARD_FIELDS` as
        plain JSON (``seats`` as ``{"name", "score", ...}``, ``whose_turn`` as
        ``{"name", ...}`` or None), plus ``turns_played`` and anything else the game's
        followers may use (the room keeps only what :meth:`GameCafe.check_state` returns)."""
        ...

    def public_payload(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """An event's payload as anyone on the café's Wi-Fi may read it mid-game."""
        ...


class GameCafe(Protocol):
    """How the café follows and checks a table playing this game."""

    def follow(self, header: Mapping[str, Any]) -> CafePosition:
        """The position at the start of a game, from its opening event's payload."""
        ...

    def public_opening(self, header: dict[str, Any]) -> dict[str, Any]:
        """The opening event's payload as published when nothing says how far play got."""
        ...

    def check_state(self, data: dict[str, Any]) -> dict[str, Any]:
        """The game's fields of a state message, checked (raises ``Rejected``)."""
        ...
