"""The café parts that need no broker: URLs, topics, the room model, the fold, the page."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from cafe_helpers import event_message, state_message

from companion.cafe.broker import BrokerSettings, parse_topic, table_id, topic
from companion.cafe.hub_web import create_hub_app
from companion.cafe.options import add_cafe_arguments, publisher_from_args
from companion.cafe.room import Room, safe_link
from companion.cafe.simtable import SimulatedTable
from companion.cafe.snapshot import TableFold
from companion.cli import main
from companion.errors import InputError
from companion.games.garum import score_state


def test_broker_url_with_credentials_and_tls(tmp_path: Path) -> None:
    plain = BrokerSettings.from_url("mqtt://t1:p%40ss@broker.cafe:1884")
    assert (plain.host, plain.port, plain.tls) == ("broker.cafe", 1884, False)
    assert (plain.username, plain.password) == ("t1", "p@ss")
    assert plain.address == "broker.cafe:1884"  # never the password
    ca = tmp_path / "ca.pem"
    ca.write_text("not checked until a connection")
    secure = BrokerSettings.from_url("mqtts://broker.cafe", ca_file=str(ca))
    assert (secure.port, secure.tls, secure.username, secure.ca_file) == (8883, True, None, str(ca))
    with pytest.raises(InputError, match="no CA certificate") as err:
        BrokerSettings.from_url("mqtts://broker.cafe", ca_file=str(tmp_path / "missing.pem"))
    assert err.value.field == "--mqtt-ca"


@pytest.mark.parametrize(
    ("url", "what"),
    [
        ("http://broker:1883", "mqtt://"),
        ("mqtt://:1883", "no host"),
        ("mqtt://broker:99999", "port"),
        ("mqtt://broker/cafe", "path"),
        ("mqtt://t1:s3cret@broker:port", "t1:***@broker:port"),
    ],
)
def test_bad_broker_urls_say_what_is_wrong(url: str, what: str) -> None:
    with pytest.raises(InputError) as err:
        BrokerSettings.from_url(url)
    assert what in str(err.value) and err.value.field == "--mqtt"
    assert "s3cret" not in str(err.value)


def test_table_ids_are_single_topic_levels() -> None:
    assert table_id("table-07") == "table-07"
    for bad in ("a/b", "+", "#", "", "-x", "x" * 65, "tisch 3"):
        with pytest.raises(InputError):
            table_id(bad)
    assert parse_topic(topic("t1", "state")) == ("t1", "state")
    assert parse_topic("cafe/v1/table/t1/state/extra") is None
    assert parse_topic("other/v1/table/t1/state") is None


def test_the_room_drops_repeats_and_counts_gaps() -> None:
    room = Room()
    watcher = room.watch()
    for seq in (1, 2, 2, 3, 1, 5):
        room.on_event("t", event_message("t", seq, kind="reading"))
    assert room.seqs("t") == [1, 2, 3, 5]
    card = room.card("t")
    assert card is not None and card["duplicates"] == 2 and card["gaps"] == 1
    assert card["recent"][0]["seq"] == 5
    assert watcher.changed(1.0) == ["t"]
    watcher.close()


def test_the_room_keeps_the_newest_state_and_counts_bad_messages() -> None:
    room = Room()
    room.on_state("t", state_message("t", 9, status="playing"))
    room.on_state("t", state_message("t", 4, status="dispute"))  # an older snapshot, late
    assert room.card("t")["status"] == "playing"  # type: ignore[index]
    room.on_state("t", state_message("t", 10, status='x" onclick="alert(1)'))
    assert room.card("t")["status"] == "playing"  # type: ignore[index]
    room.on_state("t", "not json")
    room.on_state("t", {"no": "seq"})
    room.on_event("t", [1, 2])
    room.on_status("t", "maybe")
    assert room.bad_messages == 5
    assert room.rejected()["by_reason"] == {
        "bad presence": 1,
        "bad status": 1,
        "not an object": 2,
        "wrong table": 1,
    }
    assert room.card("t")["rejected"] == 5  # type: ignore[index]
    room.on_status("t", "offline")
    assert room.card("t")["presence"] == "offline"  # type: ignore[index]


def test_a_new_watcher_hears_of_every_known_table() -> None:
    room = Room()
    room.on_status("b", "online")
    room.on_status("a", "online")
    with room.watch() as watcher:
        assert watcher.changed(1.0) == ["a", "b"]
        assert watcher.changed(0.01) == []


def test_only_http_links_leave_the_hub() -> None:
    assert safe_link("http://t1.local:5000/") == "http://t1.local:5000/"
    assert safe_link("https://cafe.example/t/3") == "https://cafe.example/t/3"
    for bad in ("javascript:alert(1)", "data:text/html,x", "//evil", 42, None, "http:///x"):
        assert safe_link(bad) is None


def test_the_hub_page_escapes_what_players_typed() -> None:
    room = Room()
    evil = "<script>alert(1)</script>"
    room.on_status("t1", "online")
    room.on_state(
        "t1",
        state_message(
            "t1",
            3,
            status="dispute",
            board_title="Troia <b>",
            seats=[{"name": evil, "score": 4}, {"name": "Ben", "score": 1}],
            leader=[evil],
            dispute=True,
            violations=["<img src=x onerror=alert(1)>"],
            dashboard="javascript:alert(1)",
        ),
    )
    client = create_hub_app(room).test_client()
    page = client.get("/").get_data(as_text=True)
    assert evil not in page and "&lt;script&gt;" in page
    assert "<img" not in page and "<b>" not in page
    assert "javascript:" not in page
    assert 'class="leader"' in page and " dispute" in page
    api = client.get("/api/tables").get_json()
    assert api["tables"][0]["dashboard"] is None
    headers = client.get("/").headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_the_fold_of_the_log_matches_the_live_session(tmp_path: Path) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=11)
    boards = table.new_game()
    for board in boards[:9]:
        table.show(board)
    session = table.session
    folded = TableFold.from_log(table.log)
    snap = folded.snapshot("t", "http://t.local/")
    game = session.game
    assert game is not None and game.turn is not None
    assert snap["seq"] == max(e.seq for e in table.log.events())
    assert (snap["turn"], snap["round"]) == (game.turn.number, game.turn.round)
    assert snap["whose_turn"]["colour"] == game.turn.colour
    sheet = score_state(game.setup.board, game.state, game.setup.seats, game.setup.ghost)
    assert [s["score"] for s in snap["seats"]] == [s.total for s in sheet.seats]
    assert snap["leader"] == list(sheet.winners)
    assert snap["position"] == game.state.to_dict()
    assert snap["status"] == "playing" and not snap["dispute"]

    # Followed event by event: a refused move, its dismissal, then an undo.
    live = TableFold.from_log(table.log)
    table.show(table.dispute())
    session.operate("undo")  # dismisses the flagged move
    session.operate("undo")  # takes back the last accepted turn
    flagged = None
    for event in table.log.events(after_seq=live.seq):
        live.apply(event)
        if live.status() in ("dispute", "desync"):
            flagged = live.snapshot("t", None)
    assert flagged is not None and flagged["violations"]
    after = live.snapshot("t", None)
    game = session.game
    assert game is not None and game.turn is not None
    assert after["turn"] == game.turn.number == snap["turn"] - 1
    assert after == TableFold.from_log(table.log).snapshot("t", None)
    table.close()


def test_table_commands_take_the_broker_from_flags_or_environment(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_cafe_arguments(parser, env={"COMPANION_MQTT": "mqtt://broker.cafe"})
    args = parser.parse_args(["--table", "t1"])
    assert (args.mqtt, args.table, args.mqtt_ca) == ("mqtt://broker.cafe", "t1", None)
    assert publisher_from_args(parser.parse_args(["--mqtt", ""]), tmp_path / "t.db") is None
    with pytest.raises(InputError, match="--table ID"):
        publisher_from_args(parser.parse_args([]), tmp_path / "t.db")
    with pytest.raises(InputError, match="must be 1-64"):
        publisher_from_args(parser.parse_args(["--table", "a/b"]), tmp_path / "t.db")
    with pytest.raises(InputError, match="no CA certificate"):
        publisher_from_args(
            parser.parse_args(["--table", "t1", "--mqtt-ca", str(tmp_path / "none.pem")]),
            tmp_path / "t.db",
        )
    bare = argparse.ArgumentParser()
    add_cafe_arguments(bare, env={})
    with pytest.raises(InputError, match="--mqtt URL"):
        publisher_from_args(bare.parse_args(["--table", "t1"]), tmp_path / "t.db")


def test_the_hub_command_rejects_a_bad_broker_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hub", "--mqtt", "http://broker.cafe"]) == 2
    assert "mqtt:// or mqtts://" in capsys.readouterr().err


def test_a_retired_table_leaves_the_room() -> None:
    room = Room()
    room.on_status("old", "offline")
    with room.watch() as watcher:
        assert watcher.changed(1.0) == ["old"]
        room.forget("old")
        assert watcher.changed(1.0) == ["old"]
    assert room.card("old") is None and room.cards() == []
