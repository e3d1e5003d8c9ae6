"""What a game gives the dashboard: its templates, its stylesheet, and its view as page context.

The dashboard's generic pages (``/``, ``/tv``, ``/phone``, ``/setup``, ``/history``) ask the
registry for the game a view belongs to (its ``game_kind``) and render that game's templates
inside the generic shells.  A game's templates live in its own package and are found under
its name: ``"<game>/_table.html"`` is ``_table.html`` in that game's template folder.
Everything here is plain Python and Jinja data, so the games stay below the web layer: no
Flask, no requests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from companion.games.story import story_of

#: A submitted form as the dashboard hands it to a game: every field's values, in order.
FormFields = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class PageTemplates:
    """A game's templates by the part of the dashboard they fill; names are relative to the
    game's template folder (the dashboard adds the game's name in front)."""

    table: str  # the live part of the table page (``/``), operator controls included
    tv: str  # the live part of the café screen (``/tv``): big, readable from across the room
    phone: str  # the live part of the phone view (``/phone``): compact, the same facts
    setup_fields: str  # the fields of the new-game form for this game
    replay: str  # the board or position of one step of a logged game (``/history/<game>``)
    #: Old unprefixed template names the game's own routes still render (kept for old URLs).
    aliases: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LoggedGame:
    """One game of the log as the history pages show it."""

    turns: int
    ended: str | None  # why it ended, or ``None`` while it is in play
    seal: str | None  # the log's chain head as it ended: what the players saw
    steps: int = 0  # how many steps a replay can show (0: the game has no replay)
    record: Sequence[str] | None = None  # its game record (JSON Lines), if it has one


def logged_story(events: Sequence[Any]) -> LoggedGame:
    """A logged game as its generic kinds tell it (no replay, no record)."""
    story = story_of(events)
    return LoggedGame(story.turns, story.ended, story.end_hash)


class PageKit(Protocol):
    """One game's pages; see the module docstring."""

    templates: PageTemplates
    stylesheet: str  # a file in ``static_folder()``, linked on every page

    def template_folder(self) -> Path:
        """The folder holding the game's Jinja templates."""
        ...

    def static_folder(self) -> Path:
        """The folder holding the game's static files (its stylesheet)."""
        ...

    def context(self, view: Mapping[str, Any], *, operator: bool) -> dict[str, Any]:
        """The template context for one view (the table's snapshot, or a replayed step).

        ``view`` is the game's JSON view; ``operator`` says whether the reader may change
        the game (so operator-only parts, like an editor, are drawn)."""
        ...

    def setup_request(self, form: FormFields) -> dict[str, Any]:
        """The new-game request (the JSON the API takes) from the setup form's fields.

        Only reshapes text into JSON; the table checks the request and names what is wrong."""
        ...

    def setup_context(self) -> dict[str, Any]:
        """What the setup fields' template needs beyond the submitted ``form``."""
        ...

    def action_message(self, action: str, result: Any) -> str:
        """The words shown after an operator's action on the table page."""
        ...

    def result_image(self, view: Mapping[str, Any], game: int) -> str | None:
        """An ended game's result as one standalone SVG file to keep, or None if the game
        offers none; ``game`` is the game's number in the log."""
        ...

    def logged_game(self, events: Sequence[Any]) -> LoggedGame:
        """One logged game (its events, opening first) for the history pages."""
        ...

    def replayed_view(self, events: Sequence[Any], step: int, *, operator: bool) -> dict[str, Any]:
        """The view of a logged game after ``step`` of its steps, as this caller may see it
        (only called when :meth:`logged_game` offers steps)."""
        ...

    def history_summary(self, header: Mapping[str, Any]) -> dict[str, Any]:
        """What the history list shows of a logged game, from its opening event's payload:
        ``{"setup": "<one line>", "players": ["<name>", ...]}``."""
        ...
