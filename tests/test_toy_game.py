"""The seam holds: a game the generic code has never heard of, registered at run time, plays
through the table session, the log (and a resume), the API, its own routes, its live stream
and the café publisher."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import toy_game
from crash_helpers import kill_after_every_event
from toy_game import GAME, GOAL

from companion.cafe.broker import BrokerSettings
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.publisher import PublisherOptions, TablePublisher
from companion.cafe.schema import check_state
from companion.cafe.simtable import SimulatedTable
from companion.cafe.snapshot import TableFold
from companion.errors import InputError
from companion.games import registry
from companion.games.live_seam import PlainLive, live_of
from companion.games.plugin import GamePlugin
from companion.games.table_seam import ActionError, ButtonPress
from companion.table.commands import Press
from companion.table.fakes import RecordingLights
from companion.table.log import EventKind, GameLog
from companion.table.session import TableSession, TableState
from companion.web import Services, create_app
from companion.web.config import WebConfig

TOKEN = "toy-token"
OPERATOR = {"X-Companion-Token": TOKEN}


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    registry.register(GAME)
    yield
    registry.unregister(GAME.name)


def play_to_the_end(session: TableSession) -> None:
    while session.state is TableState.PLAYING:
        session.act("add", {"amount": min(3, GOAL - session.snapshot()["total"])})


def test_a_registered_game_plays_through_the_session_and_resumes_from_the_log(
    tmp_path: Path,
) -> None:
    lights = RecordingLights()
    with GameLog(tmp_path / "table.db") as log:
        session = TableSession(log, lights, game=GAME.name)
        game = session.operate("new_game", request={"players": ["Ann", "Bo", "Cy"]})
        assert session.act("add", {"amount": 2}) == 2
        assert session.do(Press(ButtonPress("add", 3))) == "5"
        with pytest.raises(InputError, match="amount"):
            session.act("add", {"amount": 4})
        with pytest.raises(ActionError, match="stays added"):
            session.operate("undo")
        view = session.snapshot()
        assert view["game_kind"] == GAME.name and view["total"] == 5 and view["game"] == game
        assert lights.last is not None and lights.last.to_dict() == {"seat": 2}  # Cy adds next
    with GameLog(tmp_path / "table.db") as log:
        resumed = TableSession(log, RecordingLights())  # the default game: the log decides
        assert resumed.snapshot()["game_kind"] == GAME.name
        assert resumed.snapshot()["added"] == [2, 3] and resumed.state is TableState.PLAYING
        play_to_the_end(resumed)
        assert resumed.snapshot()["ended"] == "Bo reaches 21"  # 2, 3, five 3s, then Bo adds 1
        kinds = [e.kind for e in log.events(game)]
        assert kinds[0] is EventKind.GAME_STARTED and EventKind.GAME_ENDED in kinds
        assert EventKind.LED in kinds and log.verify().ok
        with pytest.raises(ActionError, match="game is over"):
            resumed.act("add", {"amount": 1})


def test_the_api_and_its_stream_serve_the_game(tmp_path: Path) -> None:
    with GameLog(tmp_path / "table.db") as log:
        session = TableSession(log, RecordingLights())  # set up for the default game
        config = WebConfig(operator_token=TOKEN, secret_key="k", sse_heartbeat_s=0.2)
        client = create_app(config, Services(session, log)).test_client()
        body = {"game": GAME.name, "players": ["Ann", "Bo"]}
        assert client.post("/api/new_game", json=body).status_code == 401
        started = client.post("/api/new_game", json=body, headers=OPERATOR)
        assert started.status_code == 200, started.get_json()
        assert started.get_json()["state"]["game_kind"] == GAME.name
        unknown = client.post("/api/new_game", json={"game": "chess"}, headers=OPERATOR)
        assert (
            unknown.status_code == 400 and "no game called 'chess'" in unknown.get_json()["error"]
        )
        session.act("add", {"amount": 3})
        state = client.get("/api/state").get_json()
        assert state["game_kind"] == GAME.name and state["total"] == 3
        response = client.get("/api/events", buffered=False)
        chunks = response.response  # type: ignore[attr-defined]
        data = next(c for c in map(bytes.decode, chunks) if c.startswith("id:"))
        first = json.loads(data.split("data: ", 1)[1])
        assert first["game_kind"] == GAME.name and first["total"] == 3
        response.close()
        # The history page lists it, and the table, TV and phone pages show it (a game
        # without pages of its own is shown by the dashboard's plain pages).
        history = client.get("/history").get_data(as_text=True)
        game = started.get_json()["result"]
        assert f'href="/history/{game}"' in history and "in play" in history
        for url in ("/", "/tv", "/phone"):
            page = client.get(url)
            assert page.status_code == 200, url
            text = page.get_data(as_text=True)
            assert "Twenty-one" in text and ">3<" in text, url  # its running total


def test_its_own_routes_come_with_the_seam(tmp_path: Path) -> None:
    """``/api/<game>/...`` and ``/<game>`` serve a game no generic module names: its
    actions for the operator only, its refusals as the rules' errors, its page and state."""
    with GameLog(tmp_path / "table.db") as log:
        session = TableSession(log, RecordingLights(), game=GAME.name)
        session.operate("new_game", request={"players": ["Ann", "Bo"]})
        config = WebConfig(operator_token=TOKEN, secret_key="k", sse_heartbeat_s=0.2)
        client = create_app(config, Services(session, log)).test_client()
        api = f"/api/{GAME.name}"
        add = {"action": "add", "amount": 2}
        assert client.post(f"{api}/act", json=add).status_code == 401
        wrong = {"X-Companion-Token": "guess"}
        assert client.post(f"{api}/act", json=add, headers=wrong).status_code == 401
        assert session.snapshot()["total"] == 0
        played = client.post(f"{api}/act", json=add, headers=OPERATOR)
        assert played.status_code == 200, played.get_json()
        assert played.get_json()["result"] == 2 and played.get_json()["state"]["total"] == 2
        refused = client.post(f"{api}/act", json={**add, "amount": 4}, headers=OPERATOR)
        assert refused.status_code == 400 and "field 'amount'" in refused.get_json()["error"]
        unnamed = client.post(f"{api}/act", json={"amount": 1}, headers=OPERATOR)
        assert unnamed.status_code == 400 and "field 'action'" in unnamed.get_json()["error"]
        assert client.get(f"{api}/state").get_json()["total"] == 2
        page = client.get(f"/{GAME.name}").get_data(as_text=True)
        assert "Twenty-one" in page and ">2<" in page
        assert f'data-partial="/{GAME.name}/live"' in page
        assert ">2<" in client.get(f"/{GAME.name}/live").get_data(as_text=True)
        assert client.post(f"{api}/end").status_code == 401
        ended = client.post(f"{api}/end", headers=OPERATOR)
        assert ended.status_code == 200 and ended.get_json()["state"]["status"] == "ended"
        over = client.post(f"{api}/act", json={**add, "amount": 1}, headers=OPERATOR)
        assert over.status_code == 409 and "game is over" in over.get_json()["error"]
        assert session.snapshot()["added"] == [2]
        again = client.post(f"{api}/new_game", json={"players": ["Cy", "Di"]}, headers=OPERATOR)
        assert again.status_code == 200 and again.get_json()["state"]["players"] == ["Cy", "Di"]
        # The default game's routes answer 404 while this table plays another game.
        other = f"/api/{registry.DEFAULT_GAME}/act"
        assert client.post(other, json=add, headers=OPERATOR).status_code == 404
        assert "does not play" in client.get(f"/{registry.DEFAULT_GAME}").get_data(as_text=True)


@pytest.mark.mosquitto
@pytest.mark.timeout(60)
def test_the_cafe_publisher_sends_the_whole_game(tmp_path: Path, broker: LocalBroker) -> None:
    with GameLog(tmp_path / "table.db") as log:
        session = TableSession(log, RecordingLights(), game=GAME.name)
        session.operate("new_game", request={"players": ["Ann", "Bo"]})
        play_to_the_end(session)
        head = log.head()
        assert head is not None
    options = PublisherOptions(poll_s=0.02, retry_min_s=0.1, retry_max_s=0.5)
    settings = BrokerSettings.from_url(broker.url)
    with TablePublisher(tmp_path / "table.db", "toy-1", settings, None, options) as publisher:
        publisher.start()
        assert publisher.wait_acked(head.seq, 20), publisher.error
    # The room's card for the table, folded from the log and checked as the hub checks
    # what the broker brings: the game's own summary, with no café code knowing it.
    with GameLog(tmp_path / "table.db") as log:
        state = TableFold.from_log(log).snapshot("toy-1", None)
    card = check_state("toy-1", json.loads(json.dumps(state)))
    assert card["game_kind"] == GAME.name and card["status"] == "ended"
    assert [seat["score"] for seat in card["seats"]] == [GOAL, GOAL]
    assert card["leader"] in (["Ann"], ["Bo"])


def test_the_crash_test_and_the_cafe_simulator_play_the_game_through_its_simulation(
    tmp_path: Path,
) -> None:
    # A kill after any event of a simulated game: nothing lost, the same game resumed.
    report = kill_after_every_event(tmp_path / "crash", GAME.name, seed=2, turns=6)
    assert report.points > 10 and report.lost == 0 and report.chain_broken == 0
    assert report.resumed_differs == 0 and report.finished_differs == 0
    table = SimulatedTable(tmp_path / "cafe.db", seed=3, players=3, game=GAME.name)
    try:
        outcomes = [table.show(move) for move in table.new_game()]
        view = table.session.snapshot()
    finally:
        table.close()
    assert outcomes[-1] == str(view["total"]) and view["total"] >= GOAL
    assert view["players"] == ["Ann", "Bo", "Cy"] and view["ended"] is not None


def test_it_is_a_whole_plugin_as_an_installed_game_must_be() -> None:
    """The registry refuses an entry point that is not a GamePlugin: the toy game must pass
    that check with every hook, including those it leaves to the defaults."""
    assert isinstance(GAME, GamePlugin)
    assert isinstance(live_of(GAME), PlainLive)


def test_no_generic_module_names_the_toy_game() -> None:
    package = Path(registry.__file__).resolve().parents[1]
    named = [p for p in package.rglob("*.py") if toy_game.GAME.name in p.read_text()]
    assert named == []
