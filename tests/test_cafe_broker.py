"""The café against a real Mosquitto: tables appear, die, survive outages; hubs catch up."""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from cafe_helpers import (
    demo_process,
    get_json,
    get_text,
    hub,
    make_certificates,
    table_process,
    wait_for,
)
from paho.mqtt.enums import CallbackAPIVersion

from companion.boards import load_profile
from companion.cafe.broker import BrokerSettings, topic
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.publisher import (
    AckedCursor,
    PublisherOptions,
    PublisherState,
    TablePublisher,
    start_publisher,
)
from companion.cafe.simtable import SimulatedTable
from companion.games.garum import GameSetup, Seat, Variant, record_lines, simulate_game
from companion.table.log import GameLog

pytestmark = [pytest.mark.mosquitto, pytest.mark.timeout(60)]

FAST = PublisherOptions(poll_s=0.02, retry_min_s=0.1, retry_max_s=0.5)


def clear_retained(url: str, name: str) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="staff")
    client.connect("127.0.0.1", int(url.rsplit(":", 1)[1]))
    client.loop_start()
    client.publish(name, b"", qos=1, retain=True).wait_for_publish(5)
    client.disconnect()
    client.loop_stop()


def last_seq(table: SimulatedTable) -> int:
    return max(e.seq for e in table.log.events())


def publisher(table: SimulatedTable, name: str, url: str) -> TablePublisher:
    return TablePublisher(table.log.path, name, BrokerSettings.from_url(url), None, FAST).start()


def stop_process(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def read_sse_tables(port: int, wanted: set[str]) -> dict[str, dict[str, object]]:
    """Reads the hub's event stream until every wanted table has been sent once."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/events")
        response = conn.getresponse()
        assert response.headers["Content-Type"].startswith("text/event-stream")
        seen: dict[str, dict[str, object]] = {}
        while not wanted <= set(seen):
            line = response.readline()
            assert line, "the event stream ended"
            if line.startswith(b"data: "):
                card = json.loads(line[6:])
                seen[card["table"]] = card
        return seen
    finally:
        conn.close()


def test_two_demo_tables_appear_on_the_hub(broker: LocalBroker, tmp_path: Path) -> None:
    with hub(broker.url, serve=True) as (room, _, server):
        assert server is not None
        demo = demo_process(broker.url, "t1", seed=3, delay_s=0.1)
        disputed = table_process(
            tmp_path / "t2.db", broker.url, "t2", "--turns", "3", "--dispute",
            "--dashboard", "http://t2.local:5000/", seed=4,
        )  # fmt: skip
        try:
            wait_for(lambda: ((room.card("t1") or {}).get("turn") or 0) > 4, what="t1 playing")
            wait_for(lambda: (room.card("t2") or {}).get("dispute"), what="t2's dispute")
            tables = {c["table"]: c for c in get_json(server.url + "/api/tables")["tables"]}
            assert set(tables) == {"t1", "t2"}
            t1, t2 = tables["t1"], tables["t2"]
            assert t1["presence"] == t2["presence"] == "online"
            assert t1["board"].startswith("Troia") and t1["variant"] == "standard"
            assert t1["round"] >= 1 and t1["rounds"] >= t1["round"]
            assert [s["name"] for s in t1["seats"]] and t1["leader"]
            assert set(t1["leader"]) <= {s["name"] for s in t1["seats"]}
            assert not t1["dispute"] and not t1["desync"]
            assert t2["dispute"] and t2["violations"] and t2["status"] == "dispute"
            assert t2["dashboard"] == "http://t2.local:5000/"
            page = get_text(server.url + "/")
            assert 'href="http://t2.local:5000/"' in page
            assert 'data-table="t1"' in page and " dispute" in page
            assert set(read_sse_tables(server.port, {"t1", "t2"})) == {"t1", "t2"}
            # Ctrl-C at the demo: it says offline itself before disconnecting.
            demo.send_signal(signal.SIGINT)
            assert demo.wait(10) == 130
            wait_for(lambda: room.card("t1")["presence"] == "offline", what="t1 offline")  # type: ignore[index]
        finally:
            stop_process(demo)
            stop_process(disputed)


RUN_CONFIG = """
data_dir = "data"
[web]
port = 0
[camera]
kind = "record"
record = "game.jsonl"
interval_s = 0.05
"""


def test_companion_run_publishes_with_a_link_to_its_dashboard(
    broker: LocalBroker, tmp_path: Path
) -> None:
    seats = (Seat("Ana", ("B", "G")), Seat("Ben", ("Y", "R")))
    setup = GameSetup.create(load_profile("troia"), Variant.STANDARD, seats)
    states = simulate_game(setup, random.Random(3))[:5]
    (tmp_path / "game.jsonl").write_text("\n".join(record_lines(setup, states)) + "\n")
    (tmp_path / "table.toml").write_text(RUN_CONFIG)
    with hub(broker.url) as (room, _, _):
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--config", str(tmp_path / "table.toml"),
             "--mqtt", broker.url, "--table", "t7"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "COMPANION_OPERATOR_TOKEN": "cafe-pin"},
        )  # fmt: skip
        try:
            wait_for(lambda: (room.card("t7") or {}).get("turn") == 6, what="five turns")
            card = room.card("t7")
            assert card is not None and card["presence"] == "online"
            assert [s["name"] for s in card["seats"]] == ["Ana", "Ben"]
            link = card["dashboard"]
            assert link is not None and link.startswith("http://127.0.0.1:")
            state = get_json(link + "api/state")  # the table's own dashboard answers there
            assert state["turns_played"] == 5
            # The card follows the table's own log: its seq catches up with the dashboard's
            # version (an event may still be on its way when the fifth turn shows).
            wait_for(
                lambda: get_json(link + "api/state")["version"] == room.card("t7")["seq"],  # type: ignore[index]
                what="the card at the table's version",
            )
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == 0
            wait_for(lambda: room.card("t7")["presence"] == "offline", what="t7 offline")  # type: ignore[index]
        finally:
            stop_process(proc)


def test_a_table_killed_uncleanly_shows_offline(broker: LocalBroker, tmp_path: Path) -> None:
    with hub(broker.url) as (room, _, _):
        proc = table_process(tmp_path / "t.db", broker.url, "doomed", "--turns", "2")
        try:
            wait_for(lambda: (room.card("doomed") or {}).get("presence") == "online")
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(10) == -signal.SIGKILL
            wait_for(lambda: room.card("doomed")["presence"] == "offline", what="the Last Will")  # type: ignore[index]
        finally:
            stop_process(proc)
    # The will is retained: a hub arriving later also sees the table offline.
    with hub(broker.url) as (late, _, _):
        wait_for(lambda: (late.card("doomed") or {}).get("presence") == "offline")
        # Retiring the table: its retained messages cleared, the card goes.
        for leaf in ("state", "status"):
            clear_retained(broker.url, topic("doomed", leaf))
        wait_for(lambda: late.card("doomed") is None, what="the card to go")


def test_a_table_killed_mid_game_resends_what_the_broker_missed(
    broker: LocalBroker, tmp_path: Path
) -> None:
    log = tmp_path / "t.db"
    with hub(broker.url) as (room, _, _):
        first = table_process(log, broker.url, "t", "--turns", "60", "--turn-s", "0.01")
        try:
            wait_for(lambda: len(room.seqs("t")) > 30, what="the game under way")
            first.send_signal(signal.SIGKILL)
            first.wait(10)
        finally:
            stop_process(first)
        second = table_process(log, broker.url, "t", "--turns", "2", seed=2)
        try:
            assert second.stdout is not None and second.stdout.readline() == "played\n"
            with GameLog(log) as reader:
                head = reader.head()
            assert head is not None
            wait_for(lambda: room.seqs("t")[-1:] == [head.seq], what="the resent events")
            assert room.seqs("t") == list(range(1, head.seq + 1))
        finally:
            stop_process(second)


def test_a_broker_restart_loses_no_event(broker: LocalBroker, tmp_path: Path) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=5)
    boards = table.new_game()
    with hub(broker.url) as (room, subscriber, _):
        pub = publisher(table, "t", broker.url)
        try:
            for board in boards[:4]:
                table.show(board)
            wait_for(lambda: room.seqs("t")[-1:] == [last_seq(table)], what="the first turns")
            broker.stop()
            wait_for(lambda: pub.state is not PublisherState.ONLINE, what="the outage noticed")
            wait_for(lambda: not subscriber.connected, what="the hub noticing")
            before = last_seq(table)
            for board in boards[4:9]:
                table.show(board)
            assert last_seq(table) > before  # written while the broker was down
            broker.start()
            end = last_seq(table)
            wait_for(lambda: room.seqs("t")[-1:] == [end], what="the missed events")
            assert room.seqs("t") == list(range(1, end + 1))  # each once, in order
            wait_for(lambda: room.card("t")["seq"] == end, what="the state")  # type: ignore[index]
            assert pub.wait_acked(end, 10)
        finally:
            pub.stop()
            table.close()
    assert (
        AckedCursor(table.log.path).load(f"t@{BrokerSettings.from_url(broker.url).address}")[0]
        == end
    )  # type: ignore[index]


def test_a_restarted_table_republishes_only_what_the_broker_missed(
    broker: LocalBroker, tmp_path: Path
) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=6)
    boards = table.new_game()
    with hub(broker.url) as (room, _, _):
        first = publisher(table, "t", broker.url)
        for board in boards[:3]:
            table.show(board)
        assert first.wait_acked(last_seq(table), 10)
        first.stop()
        for board in boards[3:6]:  # played while the table's publisher is down
            table.show(board)
        second = publisher(table, "t", broker.url)
        try:
            end = last_seq(table)
            wait_for(lambda: room.seqs("t")[-1:] == [end], what="the replay")
            assert room.seqs("t") == list(range(1, end + 1))
            assert room.card("t")["duplicates"] == 0  # type: ignore[index]
        finally:
            second.stop()
            table.close()


def test_a_late_hub_gets_every_tables_state_at_once(broker: LocalBroker, tmp_path: Path) -> None:
    tables = {name: SimulatedTable(tmp_path / f"{name}.db", seed=i) for i, name in enumerate("ab")}
    pubs = []
    try:
        for name, table in tables.items():
            boards = table.new_game()
            pubs.append(publisher(table, name, broker.url))
            for board in boards[: 2 + len(pubs)]:
                table.show(board)
        for pub, table in zip(pubs, tables.values(), strict=True):
            assert pub.wait_acked(last_seq(table), 10)
        ends = {name: last_seq(t) for name, t in tables.items()}
        wait_for(lambda: all(p.state is PublisherState.ONLINE for p in pubs))
        with hub(broker.url) as (room, _, _):
            wait_for(
                lambda: all((room.card(n) or {}).get("seq") == ends[n] for n in tables),
                what="every retained state",
            )
            for name in tables:
                card = room.card(name)
                assert card is not None and card["presence"] == "online" and card["seats"]
                assert room.seqs(name) == []  # no event was needed: retained messages only
    finally:
        for pub in pubs:
            pub.stop()
        for table in tables.values():
            table.close()


def test_a_cursor_from_another_log_is_not_trusted(broker: LocalBroker, tmp_path: Path) -> None:
    """A log replaced under the same name: the saved cursor names an event it lacks."""
    table = SimulatedTable(tmp_path / "t.db", seed=7)
    boards = table.new_game()
    for board in boards[:2]:
        table.show(board)
    key = f"t@{BrokerSettings.from_url(broker.url).address}"
    AckedCursor(table.log.path).save(key, 5, "f" * 64)
    with hub(broker.url) as (room, _, _):
        pub = publisher(table, "t", broker.url)
        try:
            end = last_seq(table)
            wait_for(lambda: room.seqs("t")[-1:] == [end], what="the whole log")
            assert room.seqs("t") == list(range(1, end + 1))
        finally:
            pub.stop()
            table.close()


def test_password_file_and_acls(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    tool = "/usr/bin/mosquitto_passwd"
    subprocess.run([tool, "-b", "-c", str(passwd), "t1", "t1 secret"], check=True)
    subprocess.run([tool, "-b", str(passwd), "hub", "hub-secret"], check=True)
    acl = tmp_path / "acl"
    acl.write_text("user hub\ntopic read cafe/v1/table/#\n\npattern write cafe/v1/table/%u/#\n")
    auth = ("allow_anonymous false", f"password_file {passwd}", f"acl_file {acl}")
    with LocalBroker(tmp_path / "broker", extra=auth) as b:
        hub_url = f"mqtt://hub:hub-secret@127.0.0.1:{b.port}"
        with hub(hub_url) as (room, _, _):
            table = SimulatedTable(tmp_path / "t1.db", seed=8)
            table.show(table.new_game()[0])
            good = publisher(table, "t1", f"mqtt://t1:t1%20secret@127.0.0.1:{b.port}")
            bad = publisher(table, "t1", f"mqtt://t1:wrong@127.0.0.1:{b.port}")
            try:
                wait_for(lambda: room.seqs("t1")[-1:] == [last_seq(table)], what="t1 via ACL")
                wait_for(lambda: bad.error and "refused" in bad.error, what="the refusal")
                assert bad.acked_seq == 0 and bad.state is not PublisherState.ONLINE
            finally:
                bad.stop()
                good.stop()
                table.close()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl tool")
def test_tls_with_a_private_ca(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path)
    tls = ("allow_anonymous true", f"cafile {ca}", f"certfile {cert}", f"keyfile {key}")
    with LocalBroker(tmp_path / "broker", extra=tls) as b:
        url = f"mqtts://127.0.0.1:{b.port}"
        table = SimulatedTable(tmp_path / "t.db", seed=9)
        table.show(table.new_game()[0])
        trusted = start_publisher(table.log.path, "t1", url, ca_file=str(ca), options=FAST)
        untrusted = start_publisher(table.log.path, "t2", url, options=FAST)  # system CAs only
        plain = TablePublisher(
            table.log.path, "t3", BrokerSettings.from_url(f"mqtt://127.0.0.1:{b.port}"), None, FAST
        ).start()
        try:
            assert trusted.wait_acked(last_seq(table), 10)
            wait_for(lambda: untrusted.error and "CERTIFICATE_VERIFY_FAILED" in untrusted.error)
            wait_for(lambda: plain.error is not None, what="plain MQTT failing on a TLS port")
            assert untrusted.acked_seq == plain.acked_seq == 0
        finally:
            for pub in (trusted, untrusted, plain):
                pub.stop()
            table.close()
