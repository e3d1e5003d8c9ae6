"""Fixtures shared across test files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.cafe.mosquitto import LocalBroker

CHROMIUM = "/usr/bin/chromium"  # Debian's chromium, installed by `make system-deps`
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def page() -> Iterator[Any]:
    """A page in real headless chromium, driven through Playwright."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (make system-deps)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser.new_page(viewport={"width": 1400, "height": 900})
        browser.close()


@pytest.fixture(autouse=True)
def _private_config_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: Any) -> None:
    """The table's chain key is created under ``$XDG_CONFIG_HOME``: never the real one."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    """A real Mosquitto broker on a free loopback port, for the café tests."""
    b = LocalBroker(tmp_path / "broker").start()
    try:
        yield b
    finally:
        b.stop()
