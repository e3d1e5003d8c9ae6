"""How the demo's simulated players behave unless told otherwise (any game's demo)."""

from __future__ import annotations

DEMO_MISTAKES = (5, 30)  # turns at which a simulated player plays a wrong move, in every game
DEFAULT_PACE_S = 2.0  # seconds the table stays still between turns
DEFAULT_PATIENCE_S = 60.0  # seconds before the players settle a flagged move themselves
