"""Finding a game's pages: its page kit, its templates under its name, its stylesheet.

The generic pages know a view only by its ``game_kind``; everything shown beyond the shells
comes from the game's kit, looked up in the registry.  Templates are found as
``"<game>/<template>"`` in the game's own folder, so two games' ``_table.html`` never meet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from jinja2 import BaseLoader, Environment, FileSystemLoader, TemplateNotFound

from companion.games.page_seam import PageKit
from companion.games.plain_pages import PlainPages
from companion.games.plugin import GamePlugin
from companion.games.registry import DEFAULT_GAME, game, games

PARTS = ("table", "tv", "phone", "setup_fields", "replay")


def game_kind(view: Mapping[str, Any]) -> str:
    """The game a view belongs to (views that do not say are the default game's)."""
    kind = view.get("game_kind")
    return kind if isinstance(kind, str) and kind else DEFAULT_GAME


def _kit_of(plugin: GamePlugin) -> PageKit:
    """A game's own page kit, or the plain one while the game brings none."""
    try:
        kit: PageKit = plugin.pages()
    except NotImplementedError:
        return PlainPages(plugin.title)
    return kit


def kit_for(kind: str) -> PageKit:
    """The page kit of the game called ``kind`` (an input error if no such game)."""
    return _kit_of(game(kind))


def installed_kits() -> dict[str, PageKit]:
    """Every installed game's page kit, by name."""
    return {name: _kit_of(plugin) for name, plugin in games().items()}


def template_of(kind: str, part: str) -> str:
    """The full template name of one part (``PARTS``) of a game's pages."""
    return f"{kind}/{getattr(kit_for(kind).templates, part)}"


def page_of(kind: str) -> str | None:
    """The full template name of the game's own page at ``/<game>``, if it brings one."""
    page = kit_for(kind).templates.page
    return None if page is None else f"{kind}/{page}"


class GamesLoader(BaseLoader):
    """Every game's template folder under the game's name, asked of the registry on each
    load so a game registered after the app was made is found too."""

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        kits = installed_kits()
        kind, slash, rest = template.partition("/")
        if slash and kind in kits:
            return FileSystemLoader(kits[kind].template_folder()).get_source(environment, rest)
        raise TemplateNotFound(template)
