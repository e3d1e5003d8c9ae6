"""What the dashboard is given to work with: the table session and the game log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from flask import current_app

from companion.table.hub import Hub
from companion.table.ides_session import IdesTable
from companion.table.log import GameLog


class TableControl(Protocol):
    """What the dashboard needs from the table session."""

    hub: Hub

    def snapshot(self) -> dict[str, Any]: ...

    def operate(self, kind: str, timeout_s: float = 10.0, **args: Any) -> Any: ...


@dataclass(frozen=True)
class Services:
    table: TableControl
    log: GameLog
    ides: IdesTable | None = None  # when this dashboard also runs an Ides of March game


def services() -> Services:
    """The services of the app handling the current request."""
    found: Services = current_app.extensions["companion"]
    return found
