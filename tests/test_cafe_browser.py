"""The hub page in Debian's real chromium: live cards over SSE, escaping, the click-through."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cafe_helpers import hub, state_message
from paho.mqtt.enums import CallbackAPIVersion

from companion.cafe.broker import BrokerSettings, topic
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.publisher import PublisherOptions, TablePublisher
from companion.cafe.simtable import SimulatedTable
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

pytestmark = [pytest.mark.browser, pytest.mark.mosquitto, pytest.mark.timeout(60)]
sync_api = pytest.importorskip("playwright.sync_api")

EVIL = "<svg onload=\"document.title='owned'\">"  # within a player name's 40 characters


def hostile_table(url: str) -> None:
    """A device on the broker publishing a state full of markup, as any client could."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="hostile")
    client.connect("127.0.0.1", int(url.rsplit(":", 1)[1]))
    client.loop_start()
    state = state_message(
        "hostile",
        1,
        status="desync",
        board_title=EVIL,
        seats=[{"name": EVIL, "score": 3}, {"name": "Ben", "score": 1}],
        leader=[EVIL],
        desync=True,
        violations=[EVIL],
        dashboard="javascript:document.title='owned'",
    )
    client.publish(
        topic("hostile", "state"), json.dumps(state), qos=1, retain=True
    ).wait_for_publish(5)
    client.disconnect()
    client.loop_stop()


def test_the_room_page_is_live_escaped_and_opens_a_tables_dashboard(
    page: Any, tmp_path: Path
) -> None:
    with LocalBroker(tmp_path / "broker", persistent=False) as broker:
        table = SimulatedTable(tmp_path / "t1.db", seed=2)
        boards = table.new_game()
        table.show(boards[0])
        app = create_app(
            WebConfig(operator_token="cafe-pin", secret_key="k"), Services(table.session, table.log)
        )
        with DashboardServer(app) as dashboard, hub(broker.url, serve=True) as (_room, _, server):
            assert server is not None
            publisher = TablePublisher(
                table.log.path,
                "t1",
                BrokerSettings.from_url(broker.url),
                dashboard.url + "/",
                PublisherOptions(poll_s=0.02),
            ).start()
            try:
                hostile_table(broker.url)
                page.goto(server.url + "/")
                t1 = page.locator('article[data-table="t1"]')
                sync_api.expect(page.locator("#live")).to_have_text("live", timeout=10_000)
                before = int(t1.get_attribute("data-event-seq") or 0)
                table.show(boards[1])  # a turn played after the page loaded
                end = max(e.seq for e in table.log.events())
                assert end > before
                sync_api.expect(t1).to_have_attribute("data-event-seq", str(end), timeout=10_000)
                hostile = page.locator('article[data-table="hostile"]')
                sync_api.expect(hostile).to_have_class("card presence-unknown status-desync desync")
                sync_api.expect(hostile.locator(".scores .name").first).to_have_text(EVIL)
                assert hostile.locator("img, svg, a").count() == 0
                assert page.title() != "owned"
                t1.locator("h2 a").click()
                page.wait_for_url(dashboard.url + "/")
                assert page.url == dashboard.url + "/"
            finally:
                publisher.stop()
                table.close()
