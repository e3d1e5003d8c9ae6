"""The hub against hostile publishers on a real Mosquitto: it stays alive, current and honest.

Anyone who may publish on the broker can send the hub anything: garbage, JSON nested a
hundred thousand deep, numbers no game has, forged sequence numbers.  The hub must count
and drop what it cannot use, keep showing the real tables, survive a restart that replays
the same garbage, and say (one line) why it cannot reach the broker.  The example ACL
shipped in ``hardware/mosquitto`` must keep each table to its own topics.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cafe_helpers import (
    FAST_HUB,
    get_json,
    get_text,
    hub,
    make_certificates,
    state_message,
    wait_for,
)
from paho.mqtt.enums import CallbackAPIVersion

from companion.cafe.broker import BrokerSettings, topic
from companion.cafe.hub import HubSubscriber
from companion.cafe.mosquitto import LocalBroker, free_port
from companion.cafe.publisher import PublisherOptions, TablePublisher
from companion.cafe.room import Room
from companion.cafe.simtable import SimulatedTable
from companion.cli import main

pytestmark = [pytest.mark.mosquitto, pytest.mark.timeout(60)]

FAST = PublisherOptions(poll_s=0.02, retry_min_s=0.1, retry_max_s=0.5)
ACL = Path(__file__).resolve().parents[1] / "hardware" / "mosquitto" / "cafe.acl"


@contextmanager
def raw_client(
    port: int, client_id: str, user: str | None = None, password: str | None = None
) -> Iterator[mqtt.Client]:
    """A bare MQTT client, as any device on the café's Wi-Fi could run."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id)
    if user is not None:
        client.username_pw_set(user, password)
    accepted = threading.Event()
    client.on_connect = lambda *_: accepted.set()
    client.connect("127.0.0.1", port)
    client.loop_start()
    assert accepted.wait(10), "the broker did not accept the client"
    try:
        yield client
    finally:
        client.disconnect()
        client.loop_stop()


def send(client: mqtt.Client, name: str, payload: bytes | str, *, retain: bool = False) -> None:
    client.publish(name, payload, qos=1, retain=retain).wait_for_publish(5)


def body(value: Any) -> bytes:
    return json.dumps(value).encode()


def last_seq(table: SimulatedTable) -> int:
    return max(e.seq for e in table.log.events())


def publisher(table: SimulatedTable, name: str, url: str) -> TablePublisher:
    return TablePublisher(table.log.path, name, BrokerSettings.from_url(url), None, FAST).start()


def huge_seats() -> dict[str, Any]:
    seats = [{"name": f"p{i}", "colours": ["B"], "score": 0} for i in range(100_000)]
    return state_message("t", 9, seats=seats, leader=[])


# (topic leaf, payload, the reason the hub must count it under)
HOSTILE: list[tuple[str, bytes, str]] = [
    ("state", b"[" * 100_000, "too large"),
    ("state", b"[" * 60_000, "nested too deeply"),
    ("events", b'{"a":' * 6_000 + b"1" + b"}" * 6_000, "nested too deeply"),
    ("state", b"\xff\xfe garbage \x00\x01", "not UTF-8"),
    ("state", b"{not json", "not JSON"),
    ("state", b'{"table": "t", "seq": NaN}', "not JSON"),
    ("state", b"x" * (1 << 20), "too large"),
    ("state", body(state_message("t", 9, variant="v" * (1 << 20))), "too large"),
    ("state", body(huge_seats()), "too large"),
    ("state", body(state_message("t", 10**40)), "bad seq"),
    ("state", body(state_message("t", "12")), "bad seq"),
    ("state", body(state_message("t", 9, round=-5)), "bad round"),
    ("state", body(state_message("t", 9, round=17)), "bad round"),
    ("state", body(state_message("t", 9, variant="v" * 1000)), "bad variant"),
    ("state", body(state_message("t", 9, seats=[{"name": "A", "score": 1}] * 50)), "bad seats"),
    ("state", body(state_message("t", 9, seats="everyone")), "bad seats"),
    ("state", body(state_message("t", 9, leader=["Nobody"])), "bad leader"),
    ("state", body(state_message("t", 9, chain_head="Z" * 64)), "bad chain_head"),
    ("state", body(state_message("other", 9)), "wrong table"),
    ("state", body([1, 2, 3]), "not an object"),
    ("events", body({"table": "t", "seq": 10**40, "hash": "0" * 64}), "bad payload"),
    ("events", body({"table": "t", "seq": -1, "hash": "0" * 64, "payload": {}}), "bad seq"),
    ("events", body({"table": "t", "seq": 5, "hash": "zz", "payload": {}}), "bad hash"),
    ("status", b"pwned", "bad presence"),
]


def play(table: SimulatedTable, boards: list[Any]) -> int:
    for board in boards:
        table.show(board)
    return last_seq(table)


def test_hostile_messages_are_counted_and_the_hub_stays_current(
    broker: LocalBroker, tmp_path: Path
) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=21)
    boards = table.new_game()
    with hub(broker.url, serve=True) as (room, subscriber, server):
        assert server is not None
        pub = publisher(table, "t", broker.url)
        try:
            end = play(table, boards[:2])
            wait_for(lambda: (room.card("t") or {}).get("seq") == end, what="the first turns")
            with raw_client(broker.port, "hostile") as evil:
                for leaf, payload, _ in HOSTILE:
                    send(evil, topic("t", leaf), payload)
            expected = Counter(reason for _, _, reason in HOSTILE)
            wait_for(lambda: room.bad_messages == len(HOSTILE), what="every message counted")
            assert room.rejected()["by_reason"] == dict(expected)
            assert room.rejected()["by_table"] == {"t": len(HOSTILE)}
            assert subscriber.alive and subscriber.callback_errors == 0
            end = play(table, boards[2:5])  # the real table goes on
            wait_for(lambda: room.card("t")["seq"] == end, what="the hub current")  # type: ignore[index]
            card = room.card("t")
            assert card is not None and card["rejected"] == len(HOSTILE)
            assert room.seqs("t") == list(range(1, end + 1))
            assert 1 <= card["round"] <= card["rounds"] == 16 and len(card["seats"]) == 4
            api = get_json(server.url + "/api/tables")
            assert api["rejected"]["by_reason"] == dict(expected)
            assert api["tables"][0]["rejected"] == len(HOSTILE)
            page = get_text(server.url + "/")
            assert f"{len(HOSTILE)} unusable messages dropped" in page
        finally:
            pub.stop()
            table.close()


def test_a_restarted_hub_survives_the_garbage_the_broker_replays(
    broker: LocalBroker, tmp_path: Path
) -> None:
    """Retained and queued garbage comes back at every restart with the same client id."""
    table = SimulatedTable(tmp_path / "t.db", seed=22)
    boards = table.new_game()
    pub = publisher(table, "t", broker.url)
    try:
        with hub(broker.url, client_id="cafe-hub") as (room, _, _):
            end = play(table, boards[:2])
            wait_for(lambda: room.seqs("t")[-1:] == [end], what="the first turns")
        with raw_client(broker.port, "hostile") as evil:  # while the hub is away
            send(evil, topic("t", "state"), b"[" * 60_000, retain=True)
            send(evil, topic("t", "events"), b"{" * 60_000)
            send(evil, topic("evil", "state"), b"[" * 60_000, retain=True)
        # The first restart gets the three messages queued for its session, then both
        # retained states again; the second only the stranger's retained state, the table
        # having replaced its own since.
        restart_and_play(broker.url, table, garbage=5, boards=boards[2:4])
        restart_and_play(broker.url, table, garbage=1, boards=boards[4:6])
    finally:
        pub.stop()
        table.close()


def restart_and_play(url: str, table: SimulatedTable, *, garbage: int, boards: list[Any]) -> None:
    """The hub started again under its fixed client id, then the table plays on."""
    with hub(url, client_id="cafe-hub") as (room, subscriber, _):
        wait_for(lambda: room.bad_messages == garbage, what="the garbage counted")
        assert room.rejected()["by_reason"] == {"nested too deeply": garbage}
        end = play(table, boards)
        wait_for(lambda: (room.card("t") or {}).get("seq") == end, what="the hub current")
        assert room.seqs("t")[-1] == end and subscriber.alive


def test_forged_sequence_numbers_hide_no_real_event(broker: LocalBroker, tmp_path: Path) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=23)
    boards = table.new_game()
    with hub(broker.url) as (room, _, _):
        pub = publisher(table, "t", broker.url)
        try:
            start = play(table, boards[:2])
            wait_for(lambda: room.seqs("t")[-1:] == [start], what="the first turns")
            forged = start + 500
            with raw_client(broker.port, "forger") as forger:
                for seq in (forged, 2**52, 10**40):
                    event = {"table": "t", "seq": seq, "hash": "f" * 64, "payload": {}}
                    send(forger, topic("t", "events"), body({**event, "kind": "verdict"}))
                for seq in (forged, 2**52):
                    send(forger, topic("t", "state"), body(state_message("t", seq)))
            wait_for(lambda: room.bad_messages == 3, what="the far jumps refused")
            assert room.rejected()["by_reason"] == {"bad seq": 1, "seq jump": 2}
            assert room.card("t")["seq"] == forged  # type: ignore[index]
            end = play(table, boards[2:6])
            wait_for(lambda: room.card("t")["seq"] == end, what="the real state back")  # type: ignore[index]
            real = list(range(1, end + 1))
            assert [s for s in room.seqs("t") if s != forged] == real  # every real event
            card = room.card("t")
            assert card is not None and card["last_event_seq"] == end
            assert card["seats"] and card["duplicates"] == 0
        finally:
            pub.stop()
            table.close()


def test_an_error_inside_the_hub_is_counted_and_the_thread_lives_on(
    broker: LocalBroker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_receive = Room.receive

    def fragile(self: Room, table: str, leaf: str, payload: bytes) -> None:
        if table == "boom":
            raise RuntimeError("a bug the schema did not foresee")
        real_receive(self, table, leaf, payload)

    monkeypatch.setattr(Room, "receive", fragile)
    with hub(broker.url) as (room, subscriber, _), raw_client(broker.port, "x") as client:
        send(client, topic("boom", "status"), "online")
        send(client, topic("fine", "status"), "online")
        wait_for(lambda: room.card("fine") is not None, what="the next message handled")
        assert subscriber.alive and subscriber.callback_errors == 1
        assert room.rejected()["by_reason"] == {"hub error": 1}


def test_connection_problems_are_printed_once_and_retried(tmp_path: Path) -> None:
    port = free_port()
    lines: list[str] = []
    url = f"mqtt://127.0.0.1:{port}"
    subscriber = HubSubscriber(Room(), BrokerSettings.from_url(url), "h", FAST_HUB, lines.append)
    subscriber.start()
    try:
        wait_for(lambda: lines, what="the first failure printed")
        assert lines[0].startswith(f"hub h: cannot reach the broker at 127.0.0.1:{port}")
        assert "retrying in 0.1 s" in lines[0]
        with LocalBroker(tmp_path / "broker", port=port):
            assert subscriber.wait_connected(10)
            wait_for(lambda: len(lines) == 2, what="the recovery printed")
            assert "cannot reach" not in lines[1]  # printed once, not at every retry
            assert lines[1] == f"hub h: connected to 127.0.0.1:{port}"
    finally:
        subscriber.stop()


def password_file(where: Path, users: dict[str, str]) -> Path:
    passwd = where / "passwd"
    for i, (user, secret) in enumerate(users.items()):
        create = ["-c"] if i == 0 else []
        subprocess.run(
            ["/usr/bin/mosquitto_passwd", "-b", *create, str(passwd), user, secret], check=True
        )
    return passwd


def test_the_example_acl_keeps_each_table_to_its_own_topics(tmp_path: Path) -> None:
    passwd = password_file(tmp_path, {"t-a": "a-secret", "t-b": "b-secret", "hub": "h-secret"})
    auth = ("allow_anonymous false", f"password_file {passwd}", f"acl_file {ACL}")
    with LocalBroker(tmp_path / "broker", extra=auth) as b:
        url = f"mqtt://{{}}@127.0.0.1:{b.port}"
        snooped: list[str] = []
        with (
            hub(url.format("hub:h-secret")) as (room, _, _),
            raw_client(b.port, "b", "t-b", "b-secret") as table_b,
        ):
            table_b.on_message = lambda _c, _u, m: snooped.append(m.topic)
            table_b.subscribe("cafe/#", qos=1)
            # Table A tries to speak for table B (the broker drops the message, and may drop
            # table A's connection too), then speaks for itself.
            for leaf, payload in (("state", body(state_message("t-b", 1))), ("status", "offline")):
                with raw_client(b.port, "a", "t-a", "a-secret") as table_a:
                    table_a.publish(topic("t-b", leaf), payload, qos=0, retain=True)
            with raw_client(b.port, "a", "t-a", "a-secret") as table_a:
                send(table_a, topic("t-a", "state"), body(state_message("t-a", 1)), retain=True)
            wait_for(lambda: room.card("t-a") is not None, what="table A's own state")
            send(table_b, topic("t-b", "status"), "online", retain=True)
            wait_for(lambda: room.card("t-b") is not None, what="table B's own status")
            assert snooped == []  # a table reads nothing, not even its neighbours
        with hub(url.format("hub:h-secret")) as (late, _, _):  # retained messages only
            wait_for(lambda: late.card("t-a") and late.card("t-b"), what="both tables")
            card_b = late.card("t-b")
            assert card_b is not None and card_b["presence"] == "online" and card_b["seq"] == -1
            assert late.card("t-a")["seq"] == 1  # type: ignore[index]
        # Wrong password and no password at all: refused, and said so.
        lines: list[str] = []
        sim = SimulatedTable(tmp_path / "t.db", seed=24)
        sim.show(sim.new_game()[0])
        bad = TablePublisher(
            sim.log.path, "t-a", BrokerSettings.from_url(url.format("t-a:wrong")), None, FAST,
            lines.append,
        )  # fmt: skip
        bad.start()
        hub_lines: list[str] = []
        anonymous = BrokerSettings.from_url(f"mqtt://127.0.0.1:{b.port}")
        stranger = HubSubscriber(Room(), anonymous, "h", FAST_HUB, hub_lines.append)
        try:
            wait_for(lambda: lines, what="the refusal printed")
            assert lines[0].startswith("café table t-a: 127.0.0.1:")
            assert "refused the connection: Not authorized" in lines[0]
            stranger.start()
            wait_for(lambda: hub_lines, what="the hub's refusal printed")
            assert hub_lines[0].startswith("hub h: 127.0.0.1:")
            assert "refused the hub: Not authorized" in hub_lines[0]
            assert not stranger.connected and bad.acked_seq == 0
        finally:
            stranger.stop()
            bad.stop()
            sim.close()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl tool")
def test_a_hub_that_does_not_trust_the_broker_says_so(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path)
    tls = ("allow_anonymous true", f"cafile {ca}", f"certfile {cert}", f"keyfile {key}")
    with LocalBroker(tmp_path / "broker", extra=tls) as b:
        lines: list[str] = []
        url = f"mqtts://127.0.0.1:{b.port}"
        settings = BrokerSettings.from_url(url)
        untrusting = HubSubscriber(Room(), settings, "h", FAST_HUB, lines.append)
        untrusting.start()
        try:
            wait_for(lambda: lines, what="the certificate failure printed")
            assert "CERTIFICATE_VERIFY_FAILED" in lines[0] and len(lines[0].splitlines()) == 1
            assert not untrusting.connected
        finally:
            untrusting.stop()
        trusting = BrokerSettings.from_url(url, ca_file=str(ca))
        with HubSubscriber(Room(), trusting, "h2", FAST_HUB, lines.append) as good:
            assert good.wait_connected(10)


def test_the_hostile_flood_benchmark_finds_nothing_wrong(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "cafe-hostile", "--messages", "400", "--settle-s", "30"]) == 0
    out = capsys.readouterr().out
    assert "0 crashes, 0 accepted-invalid, 0 valid refused, 0 cards showing" in out
    assert out.count("MQTT thread alive, real table current") == 2
