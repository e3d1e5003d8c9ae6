"""What a game gives the dashboard: its templates, its stylesheet, its view as page context,
and how its own routes read an operator's action.

The dashboard's generic pages (``/``, ``/tv``, ``/phone``, ``/setup``, ``/history``) ask the
registry for the game a view belongs to (its ``game_kind``) and render that game's templates
inside the generic shells.  A game's templates live in its own package and are found under
its name: ``"<game>/_table.html"`` is ``_table.html`` in that game's template folder.
Every game also has its own routes, ``/<game>/...`` and ``/api/<game>/...``; the kit says
how an action is read from their JSON and forms, and which of its errors are refusals.
Everything here is plain Python and Jinja data, so the games stay below the web layer: no
Flask, no requests.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from companion.errors import InputError
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
    #: The whole page at ``/<game>`` (a shell around ``table`` if the game brings none); it
    #: is also drawn for a view whose ``status`` is ``absent``: the table plays another game.
    page: str | None = None


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


@dataclass(frozen=True)
class AskedAction:
    """An operator's action as a game's route read it: the referee's action name and args."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Refusal:
    """The rules' no, in their words; ``code`` names the rule when the game has codes."""

    message: str
    code: str | None = None


@dataclass(frozen=True)
class RouteSample:
    """One request a game's routes take, for ``companion bench fuzz`` to send and mutate.

    ``route`` is an action's name: under ``/api/<game>/`` for a JSON ``body``, under
    ``/<game>/`` for a ``form``; with ``table`` set, under the table's own ``/api/`` and
    ``/operator/`` instead."""

    route: str
    how: str
    body: Mapping[str, Any] | None = None
    form: Mapping[str, str | list[str]] | None = None
    invalid: bool = False  # the game must refuse it as it is (a form's 302 says nothing)
    checked: bool = True  # the whole body is read: a surely invalid mutation must be refused
    table: bool = False


def _first(form: FormFields, key: str) -> str | None:
    values = form.get(key) or ()
    return values[0] if values else None


class NamedActions:
    """How most games' routes read an action: ``{"action": "<name>", ...args}`` (the form's
    fields likewise, one value each); a kit inherits this and overrides what differs."""

    def read_action(self, body: Mapping[str, Any]) -> AskedAction:
        """The action a JSON body to ``/api/<game>/act`` asks for; errors name the field."""
        name = body.get("action")
        if not isinstance(name, str) or not name:
            raise InputError("expected the name of one of the game's actions", field="action")
        return AskedAction(name, {k: v for k, v in body.items() if k != "action"})

    def read_form_action(self, form: FormFields) -> AskedAction:
        """The action the ``/<game>/act`` form asks for (its values are text)."""
        fields = {k: _first(form, k) for k in form if k != "csrf_token"}
        return self.read_action(fields)

    def applied(self, result: object) -> dict[str, Any]:
        """What the API answers besides the new state once an action is carried out."""
        return {"result": result}

    def refusal(self, error: Exception) -> Refusal | None:
        """``error`` as the rules' refusal, or None when it is not one of the game's."""
        return None

    def samples(self, view: Mapping[str, Any], rng: random.Random) -> Sequence[RouteSample]:
        """Requests worth sending the game's routes now (``view``: the table's state)."""
        return ()


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

    # -- the game's own routes: see :class:`NamedActions`, which most kits inherit ------------

    def read_action(self, body: Mapping[str, Any]) -> AskedAction: ...

    def read_form_action(self, form: FormFields) -> AskedAction: ...

    def applied(self, result: object) -> dict[str, Any]: ...

    def refusal(self, error: Exception) -> Refusal | None: ...

    def samples(self, view: Mapping[str, Any], rng: random.Random) -> Sequence[RouteSample]: ...
