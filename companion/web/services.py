"""What the dashboard is given to work with: the table session and the game log."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from flask import current_app

from companion.games.table_seam import Referee
from companion.table.feed import ViewerFeed
from companion.table.log import GameLog


class TableControl(Protocol):
    """What the dashboard needs from the table session."""

    viewers: ViewerFeed

    @property
    def referee(self) -> Referee:
        """The game at the table, as far as viewers and actions need it."""
        ...

    def snapshot(self) -> dict[str, Any]: ...

    def operate(self, kind: str, timeout_s: float = 10.0, **args: Any) -> Any: ...

    def act(self, name: str, args: Mapping[str, Any], timeout_s: float = 10.0) -> Any: ...


@dataclass(frozen=True)
class Services:
    table: TableControl
    log: GameLog


def services() -> Services:
    """The services of the app handling the current request."""
    found: Services = current_app.extensions["companion"]
    return found
