"""The fuzz bench's counters: a crash, a 500, a hang and an accepted invalid input each count.

The targets are driven here with stand-ins that fail on purpose (a command that raises, an
app that answers 500, a hub that shows whatever it is sent) and with one that behaves, so
the counters are shown to catch failures without inventing any.  Nothing here asserts what
today's product does: that is the bench's job, and it changes as the product is fixed.
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, request

from companion.cafe.broker import TOPIC_ROOT, BrokerSettings
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.room import Room
from companion.cli import main
from companion.fuzz.broker_check import BrokerCheck
from companion.fuzz.cafe_samples import CafeStep, cafe_steps
from companion.fuzz.cli_target import CliTarget
from companion.fuzz.hostile import mutate_text, strict_json_ok
from companion.fuzz.http_target import OPERATOR_ADDR, STRANGER_ADDR, HttpCredentials, HttpTarget
from companion.fuzz.inprocess import Outcome, call
from companion.fuzz.live_table import FuzzedTables
from companion.fuzz.mqtt_target import MqttTarget, out_of_bounds
from companion.fuzz.tally import (
    ACCEPTED_INVALID,
    CRASH,
    HANG,
    HTTP_500,
    HUB_STALE,
    LOCKED_OUT,
    Tally,
)
from companion.games.garum.commands.fuzz_cases import GarumCliCases
from companion.games.garum.commands.fuzz_samples import Samples, garum_samples

TOKEN = "fuzz-test-token"


@pytest.fixture(scope="module")
def samples() -> Samples:
    return garum_samples(3)


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> list[CafeStep]:
    return cafe_steps(tmp_path_factory.mktemp("cafe"), 3)


# -- command line ----------------------------------------------------------------------------


def test_an_exception_escaping_a_command_is_a_crash(tmp_path: Path) -> None:
    calls: list[str] = []

    def entry(argv: Sequence[str]) -> int:
        calls.append(argv[0])
        if argv[0] == "check":
            raise RecursionError("maximum recursion depth exceeded")
        return 2  # every other command refuses its input

    tally = Tally()
    CliTarget(tmp_path, 5, entry=entry).run(120, tally.target("cli"))
    cli = tally.target("cli")
    assert cli.sent == 120 == len(calls)
    assert cli.counts[CRASH] == calls.count("check") > 0
    assert cli.kinds[(CRASH, "check: RecursionError")] == calls.count("check")
    assert cli.counts[ACCEPTED_INVALID] == 0  # every refusal was right
    assert list(tmp_path.iterdir()) == []  # each input's files are removed after it


def test_exit_0_on_input_that_must_be_refused_is_counted(tmp_path: Path, samples: Samples) -> None:
    target = CliTarget(tmp_path, 5)
    garum = GarumCliCases(target, target.rng, samples)
    tally = Tally().target("cli")
    target.judge(garum.broken_rule(), Outcome(0, "", ""), tally)
    target.judge(garum.single_state_checked(), Outcome(1, "", "companion: error: x"), tally)
    target.judge(garum.record_without_aureus(), Outcome(0, "", ""), tally)
    assert tally.counts[ACCEPTED_INVALID] == 2
    assert ("accepted invalid", "check: a rule broken: exit status 0") in tally.kinds
    assert tally.examples[(ACCEPTED_INVALID, "check: a rule broken: exit status 0")][0].startswith(
        "companion check $TMP/"
    )


def test_a_printed_traceback_or_escape_codes_are_counted(tmp_path: Path, samples: Samples) -> None:
    target = CliTarget(tmp_path, 5)
    garum = GarumCliCases(target, target.rng, samples)
    tally = Tally().target("cli")
    traceback = "Traceback (most recent call last):\n  ...\nValueError: x\n"
    target.judge(garum.mutated_record(), Outcome(2, "", traceback), tally)
    target.judge(garum.escape_codes_in_names(), Outcome(0, "\x1b[2JEve  12\n", ""), tally)
    target.judge(garum.escape_codes_in_names(), Outcome(0, "\\x1b[2JEve  12\n", ""), tally)
    assert tally.counts[CRASH] == 1
    assert (
        tally.kinds[
            (ACCEPTED_INVALID, "score: escape codes in a name: terminal escape codes printed")
        ]
        == 1
    )


def test_a_command_past_its_time_limit_is_a_hang(tmp_path: Path, samples: Samples) -> None:
    def slow(argv: Sequence[str]) -> int:
        time.sleep(30)
        return 0

    target = CliTarget(tmp_path, 5, entry=slow, timeout_s=0.2)
    target.generators = [(1, GarumCliCases(target, target.rng, samples).garbage_file)]
    tally = Tally()
    target.run(2, tally.target("cli"))
    assert tally.target("cli").counts[HANG] == 2
    assert tally.serious == 2


def test_the_real_command_line_runs_in_process(tmp_path: Path, samples: Samples) -> None:
    """Output that no UTF-8 terminal can print fails as it would on one."""
    target = CliTarget(tmp_path, 5)
    tally = Tally()
    target.run(40, tally.target("cli"))
    assert tally.target("cli").sent == 40
    record = tmp_path / "record.jsonl"
    record.write_text("\n".join(samples.records[0]) + "\n", encoding="utf-8")
    outcome = call(main, ["score", "--json", str(record)], 20)
    assert outcome.status == 0 and not outcome.crashed
    assert json.loads(outcome.stdout)["winners"]

    def unprintable(argv: Sequence[str]) -> int:
        print("\udcff")
        return 0

    outcome = call(unprintable, ["score"], 20)
    assert isinstance(outcome.error, UnicodeEncodeError) and outcome.crashed


def test_the_same_seed_sends_the_same_inputs(tmp_path: Path) -> None:
    def hows(seed: int) -> list[str]:
        target = CliTarget(tmp_path, seed)
        out = []
        for _ in range(30):
            maker = target.rng.choices(
                [m for _, m in target.generators], [w for w, _ in target.generators]
            )[0]
            out.append(maker().how)
            target._clean()
        return out

    assert hows(11) == hows(11)
    assert hows(11) != hows(12)


def test_text_mutations_say_whether_they_broke_the_json() -> None:
    rng = random.Random(2)
    text = json.dumps({"a": [1, 2, 3], "b": "x"})
    for _ in range(200):
        m = mutate_text(text, rng)
        if m.how.startswith("truncated"):
            assert m.surely_invalid
        if not m.surely_invalid and m.how not in ("UTF-16", "byte-order mark"):
            assert strict_json_ok(m.data.decode("utf-8"))
    assert not strict_json_ok('{"vat": NaN}') and not strict_json_ok('{"vat": 1e999}')
    assert strict_json_ok('{"vat": 1.9}')


# -- HTTP ------------------------------------------------------------------------------------


def counting_app(seen: list[tuple[str, str]]) -> Flask:
    """Answers 200 to everything, 500 on /api/undo, and (like a shared throttle) 429 to the
    operator once another address has guessed a token."""
    app = Flask("fuzz-test")

    @app.route("/", defaults={"path": ""}, methods=["GET", "POST"])
    @app.route("/<path:path>", methods=["GET", "POST"])
    def everything(path: str) -> Any:
        seen.append((request.remote_addr or "", "/" + path))
        if path == "api/undo":
            raise RuntimeError("a bug")
        strangers = any(addr == STRANGER_ADDR for addr, _ in seen)
        if strangers and request.remote_addr == OPERATOR_ADDR:
            return {"error": "too many wrong tokens"}, 429
        return {}, 200

    return app


def test_500s_accepted_invalid_and_lockouts_are_counted() -> None:
    seen: list[tuple[str, str]] = []
    target = HttpTarget(counting_app(seen), HttpCredentials(TOKEN), 7)
    tally = Tally()
    target.run(300, tally.target("http"))
    http = tally.target("http")
    assert http.sent == 300
    assert http.counts[HTTP_500] == sum(1 for _, path in seen if path == "/api/undo") > 0
    assert http.kinds[(HTTP_500, "POST /api/undo: RuntimeError")] == http.counts[HTTP_500]
    assert http.counts[LOCKED_OUT] == 1
    kinds = {detail for _, detail in http.kinds}
    assert any("accepted without credentials" in k for k in kinds)
    assert any(k.startswith("correct: must be refused") for k in kinds)
    assert tally.serious == http.counts[HTTP_500]


def test_a_real_table_takes_the_http_fuzz(tmp_path: Path) -> None:
    table = FuzzedTables(tmp_path, 4, TOKEN)
    try:
        target = HttpTarget(table.app, HttpCredentials(TOKEN), 4, table.advance)
        tally = Tally()
        target.run(150, tally.target("http"))
    finally:
        table.close()
    assert tally.target("http").sent == 150


# -- MQTT ------------------------------------------------------------------------------------


class NaiveHub:
    """Shows whatever it is sent and raises on what it cannot parse."""

    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        self.events: dict[str, list[int]] = {}

    def deliver(self, name: str, payload: bytes) -> None:
        _, _, _, table, leaf = name.split("/")[:5]
        if leaf == "status":
            return
        body = json.loads(payload)
        if leaf == "state" and body["seq"] >= self.states.get(table, {}).get("seq", -1):
            self.states[table] = body
        elif leaf == "events":
            seqs = self.events.setdefault(table, [])
            if not seqs or body["seq"] > seqs[-1]:
                seqs.append(body["seq"])

    def cards(self) -> list[dict[str, Any]]:
        return [
            {"table": t, "seq": s["seq"], "round": s.get("round"), "seats": s.get("seats")}
            for t, s in self.states.items()
        ]

    def seqs(self, table: str) -> list[int]:
        return list(self.events.get(table, []))


class StrictHub(NaiveHub):
    """Takes only what a real table could send: nothing it shows can be out of bounds."""

    def deliver(self, name: str, payload: bytes) -> None:
        parts = name.split("/")
        if len(parts) != 5 or parts[:3] != ["cafe", "v1", "table"]:
            return
        table, leaf = parts[3], parts[4]

        def refuse(_: str) -> Any:
            raise ValueError("not JSON")

        try:
            body = json.loads(payload, parse_constant=refuse)
        except (ValueError, RecursionError):
            return
        if not isinstance(body, dict) or type(body.get("seq")) is not int:
            return
        seqs = self.events.setdefault(table, [])
        last = seqs[-1] if seqs else 0
        if leaf == "events" and body["seq"] == last + 1:
            seqs.append(body["seq"])
        elif leaf == "state" and self._sane(body) and self._newer(table, body["seq"], last):
            self.states[table] = {
                "seq": body["seq"],
                "round": body["round"],
                "seats": [s["score"] for s in body["seats"]],
            }

    def _newer(self, table: str, seq: int, last_event: int) -> bool:
        """Not past the table's events (a forged seq), not older than the state shown."""
        return self.states.get(table, {}).get("seq", -1) <= seq <= last_event

    @staticmethod
    def _sane(body: dict[str, Any]) -> bool:
        seats = body.get("seats")
        return (
            type(body.get("round")) is int
            and 0 <= body["round"] <= 100
            and isinstance(seats, list)
            and len(seats) <= 8
            and all(isinstance(s, dict) and type(s.get("score")) is int for s in seats)
            and all(abs(s["score"]) < 10_000 for s in seats)
        )


def test_a_hub_that_shows_anything_is_caught(steps: list[CafeStep]) -> None:
    tally = Tally()
    MqttTarget(steps, 9, hub=NaiveHub).run(400, tally.target("mqtt"))
    mqtt = tally.target("mqtt")
    assert mqtt.sent == 400
    assert mqtt.counts[CRASH] > 0  # garbage payloads make json.loads raise
    details = {detail for _, detail in mqtt.kinds}
    assert "a forged sequence number hid a real event" in details
    assert "a forged sequence number froze the table's state" in details
    assert "hub shows card.round" in details


def test_a_hub_that_checks_its_messages_passes(steps: list[CafeStep]) -> None:
    tally = Tally()
    MqttTarget(steps, 9, hub=StrictHub).run(400, tally.target("mqtt"))
    mqtt = tally.target("mqtt")
    assert mqtt.sent == 400
    assert dict(mqtt.counts) == {}, mqtt.examples


def test_bounds_of_what_a_card_may_show() -> None:
    assert out_of_bounds({"table": "t1", "seq": 40, "round": 3, "seats": [{"score": 12}]}) is None
    assert out_of_bounds({"round": -5}) == "card.round = -5"
    assert out_of_bounds({"seq": 10**40}) is not None
    assert out_of_bounds({"recent": [{"at_s": math.nan}]}) == "card.recent[0].at_s = nan"
    assert out_of_bounds({"variant": "V" * 1_000_000}) is not None
    assert out_of_bounds({"seats": [{}] * 9}) == "card.seats: 9 seats"


class FragileHub:
    """A subscriber whose MQTT thread dies on any message but the check's own, as paho's
    thread does when ``on_message`` raises: what the first hub did with a hostile message."""

    def __init__(self, room: Room, settings: BrokerSettings, client_id: str) -> None:
        self.room = room
        self.settings = settings
        self.client_id = client_id
        self.error: str | None = None
        self._connected = threading.Event()
        self._client: Any = None

    def start(self) -> FragileHub:
        client = self.settings.client(self.client_id, clean_session=False)
        client.on_connect = self._on_connect
        client.on_message = self._on_message
        client.connect(self.settings.host, self.settings.port)
        client.loop_start()
        self._client = client
        return self

    def _on_connect(self, client: Any, _u: Any, _f: Any, _reason: Any, _p: Any) -> None:
        client.subscribe([(f"{TOPIC_ROOT}/+/state", 1), (f"{TOPIC_ROOT}/+/events", 1)])
        self._connected.set()

    def _on_message(self, _c: Any, _u: Any, message: Any) -> None:
        if "/fuzz-alive-" not in message.topic:
            raise ValueError("cannot read this")
        table, leaf = message.topic.split("/")[3:5]
        body = json.loads(message.payload)
        if leaf == "state":
            self.room.on_state(table, body)
        else:
            self.room.on_event(table, body)

    def wait_connected(self, timeout_s: float) -> bool:
        return self._connected.wait(timeout_s)

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()


@pytest.mark.mosquitto
@pytest.mark.timeout(60)
def test_a_hub_thread_killed_through_a_real_broker_is_counted(
    tmp_path: Path, steps: list[CafeStep]
) -> None:
    """The fragile hub dies on the first hostile message, and again after a restart: the
    broker delivers the unacknowledged message again to the same client id."""
    broker = LocalBroker(tmp_path / "broker", persistent=False).start()
    try:
        settings = BrokerSettings("127.0.0.1", broker.port)
        check = BrokerCheck(MqttTarget(steps, 2), settings, FragileHub, current_s=2.0)
        tally = Tally()
        check.run(5, tally.target("broker"))
    finally:
        broker.stop()
    found = tally.target("broker")
    assert found.sent == 5
    assert found.kinds[(CRASH, "hub MQTT thread died after the hostile messages")] == 1
    assert found.kinds[(CRASH, "hub MQTT thread died after a restart of the hub")] == 1
    assert found.counts[HUB_STALE] == 2


@pytest.mark.mosquitto
@pytest.mark.timeout(60)
def test_a_hub_that_survives_is_current_through_a_real_broker(
    tmp_path: Path, steps: list[CafeStep]
) -> None:
    """A hub that drops what it cannot read stays current: nothing is counted."""

    class SturdyHub(FragileHub):
        def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
            if "/fuzz-alive-" in message.topic:
                super()._on_message(client, userdata, message)

    broker = LocalBroker(tmp_path / "broker", persistent=False).start()
    try:
        settings = BrokerSettings("127.0.0.1", broker.port)
        tally = Tally()
        BrokerCheck(MqttTarget(steps, 2), settings, SturdyHub).run(20, tally.target("broker"))
    finally:
        broker.stop()
    assert 15 <= tally.target("broker").sent <= 20  # paho refuses topics MQTT forbids
    assert dict(tally.target("broker").counts) == {}


# -- the command ------------------------------------------------------------------------------


def test_the_bench_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["bench", "fuzz", "--count", "60", "--only", "mqtt", "--no-broker", "--seed", "3"]
    )
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("target")).split()
    assert header[:5] == ["target", "inputs", "crash", "http", "500"]
    row = next(line for line in lines if line.startswith("mqtt ")).split()
    assert row[1] == "60"
    # Columns: target, inputs, crash, http 500, accepted invalid, then any other kinds.
    counts = dict(
        zip(["crash", "http 500", "accepted invalid", *header[7:]], row[2:], strict=False)
    )
    serious = int(counts["crash"]) + int(counts["http 500"]) + int(counts.get("hang", 0))
    assert status == (1 if serious else 0)
