"""An altered log stops the table until the operator has seen it; viewers never see the
aureus order ahead of the table; a finished game shows its chain head."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st
from ides_driver import IdesDriver, IdesStatus
from test_evidence_log import FORGED, edit_and_rechain

from companion.games.garum import parse_record, simulate_game
from companion.games.garum.referee import SetupRequest
from companion.games.garum.sighting import Sighting
from companion.games.garum.view import viewer_view
from companion.games.ides import Dice, Promote
from companion.table.chain_key import open_table_log
from companion.table.fakes import RecordingLights
from companion.table.log import EventKind, GameLog
from companion.table.session import ActionError, TableSession, TableState
from companion.web import Services, create_app
from companion.web.config import WebConfig

TOKEN = "s3cret-pin"
TWO = (("Ana", ("B", "G")), ("Ben", ("Y", "R")))  # four colours: four turns a round
OPERATOR = {"X-Companion-Token": TOKEN}


class Table:
    """A table over a keyed log in ``tmp``; :meth:`restart` opens it again as after a crash."""

    def __init__(self, tmp: Path) -> None:
        self.log_path = tmp / "data" / "table.db"
        self.key_file = tmp / "config" / "chain.key"
        self.logs: list[GameLog] = []
        self.session = self.restart()

    def restart(self) -> TableSession:
        log = open_table_log(self.log_path, self.key_file)
        self.logs.append(log)
        self.session = TableSession(log, RecordingLights(), rng=random.Random(3))
        return self.session

    def client(self) -> FlaskClient:
        config = WebConfig(operator_token=TOKEN, secret_key="test-key", sse_heartbeat_s=0.2)
        app: Flask = create_app(config, Services(self.session, self.session.log))
        return app.test_client()

    def new_game(self, variant: str = "standard") -> list[object]:
        self.session.operate("new_game", request=SetupRequest("troia", variant, TWO))
        game = self.session.game
        assert game is not None
        return list(simulate_game(game.setup, random.Random(7)))

    def play(self, states: list[object]) -> None:
        for state in states:
            self.session.feed(Sighting(state, b"\xff\xd8frame"))  # type: ignore[arg-type]
        self.session.drain()

    def close(self) -> None:
        for log in self.logs:
            log.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path)
    yield t
    t.close()


def edit_payload(path: Path, seq: int, payload: str) -> None:
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER events_no_update")
    db.execute("UPDATE events SET payload = ? WHERE seq = ?", (payload, seq))
    db.commit()
    db.close()


def verdict_seq(log: GameLog) -> int:
    return next(e.seq for e in log.events() if e.kind is EventKind.VERDICT)


# -- tampering -------------------------------------------------------------------------------


@pytest.mark.parametrize("rechain", [False, True], ids=["payload edited", "plain links redone"])
def test_an_edited_log_starts_the_table_tampered(table: Table, rechain: bool) -> None:
    states = table.new_game()
    table.play(states[:3])
    seq = verdict_seq(table.session.log)
    if rechain:
        edit_and_rechain(table.log_path, seq, FORGED)
    else:
        edit_payload(table.log_path, seq, FORGED)
    session = table.restart()
    assert session.state is TableState.TAMPERED
    evidence = session.snapshot()["evidence"]
    assert (evidence["chain"], evidence["bad_seq"], evidence["acknowledged"]) == (
        "tampered", seq, False
    )  # fmt: skip
    before = session.log.head()
    session.feed(Sighting(states[3], b"frame"))  # type: ignore[arg-type]
    session.drain()
    assert session.log.head() == before  # nothing is judged on an altered log
    with pytest.raises(ActionError, match="tampered"):
        session.operate("undo")
    with pytest.raises(ActionError, match="acknowledge"):
        session.operate("new_game", request=SetupRequest("troia", "standard", TWO))


def test_everyone_is_told_until_the_operator_acknowledges(table: Table) -> None:
    states = table.new_game()
    table.play(states[:3])
    seq = verdict_seq(table.session.log)
    edit_payload(table.log_path, seq, FORGED)
    table.restart()
    client = table.client()
    for page in ("/", "/tv", "/phone", "/live/table"):
        html = client.get(page).get_data(as_text=True)
        assert "The game log was altered" in html and f"at event {seq}" in html
        assert 'id="acknowledge"' not in html  # viewers are told, not asked
    assert client.get("/api/state").get_json()["status"] == "tampered"
    assert client.post("/api/acknowledge").status_code == 401
    operator_page = table.client().get("/", headers=OPERATOR).get_data(as_text=True)
    assert 'id="acknowledge"' in operator_page
    head = table.session.log.head()
    assert head is not None
    response = client.post("/api/acknowledge", headers=OPERATOR)
    assert response.status_code == 200 and response.get_json()["result"] == "acknowledged"
    assert table.session.state is TableState.PLAYING  # the game goes on where it was
    ack = table.session.log.events_of_kind(EventKind.TAMPERING_ACKNOWLEDGED)
    assert [e.payload["through_seq"] for e in ack] == [head.seq]
    assert ack[0].payload["bad_seqs"] == [seq] and ack[0].payload["by"] == "operator"
    assert ack[0].payload["bad_events"] == 1
    assert "The game log was altered" not in client.get("/").get_data(as_text=True)
    assert "acknowledged" in client.get("/").get_data(as_text=True)
    assert "tampering detected" in client.get("/history").get_data(as_text=True)
    table.play(states[3:4])
    assert table.session.history is not None and len(table.session.history.boards) == 4
    # Acknowledged damage stays acknowledged after a restart; a new edit does not.
    assert table.restart().state is TableState.PLAYING
    edit_payload(table.log_path, table.session.log.head().seq, '{"button":"undo"}')  # type: ignore[union-attr]
    assert table.restart().state is TableState.TAMPERED


def test_the_acknowledge_button_works_from_the_page(table: Table) -> None:
    table.play(table.new_game()[:2])
    edit_payload(table.log_path, verdict_seq(table.session.log), FORGED)
    table.restart()
    client = table.client()
    page = client.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert csrf
    client.post("/login", data={"pin": TOKEN, "csrf_token": csrf.group(1)})
    page = client.get("/").get_data(as_text=True)
    form = re.search(r'action="(/operator/acknowledge)".*?value="([^"]+)"', page, re.S)
    assert form, "no acknowledge form on the operator's page"
    assert client.post(form.group(1), data={"csrf_token": form.group(2)}).status_code == 302
    assert table.session.state is TableState.PLAYING


def test_a_log_checked_with_another_key_is_acknowledged_in_a_small_event(
    table: Table,
) -> None:
    table.play(table.new_game())  # a whole game: well over a hundred events
    events = table.session.log.head().seq  # type: ignore[union-attr]
    table.key_file.write_text("ab" * 32 + "\n")  # the key was lost and made anew
    session = table.restart()
    assert session.state is TableState.TAMPERED and session.verification.bad_seq == 1
    session.operate("acknowledge")
    ack = session.log.events_of_kind(EventKind.TAMPERING_ACKNOWLEDGED)[-1]
    assert ack.payload["bad_events"] == events and len(ack.payload["bad_seqs"]) == 100
    assert table.restart().state is TableState.ENDED  # seen once, and the game was over


def test_a_log_too_damaged_to_replay_still_starts_tampered(table: Table) -> None:
    table.play(table.new_game()[:2])
    accepted = next(e.seq for e in table.session.log.events() if e.kind is EventKind.ACCEPTED)
    edit_payload(table.log_path, accepted, '{"board":"no board at all"}')
    session = table.restart()
    assert session.state is TableState.TAMPERED
    assert session.game is None and "cannot be replayed" in (session.replay_error or "")
    client = table.client()
    assert "The game log was altered" in client.get("/live/phone").get_data(as_text=True)
    version = session.snapshot()["version"]
    assert session.operate("acknowledge") == "acknowledged"
    assert session.state is TableState.SETUP  # a new game can start; the log keeps all
    assert session.snapshot()["version"] > version  # viewers' pages fetch the news
    assert "The game log was altered" not in client.get("/live/phone").get_data(as_text=True)
    session.operate("new_game", request=SetupRequest("troia", "standard", TWO))
    assert session.state is TableState.PLAYING


def test_a_log_from_before_the_keyed_chain_resumes_as_unkeyed(tmp_path: Path) -> None:
    path = tmp_path / "data" / "table.db"
    with GameLog(path) as old:  # the plain chain earlier versions wrote
        session = TableSession(old, RecordingLights(), rng=random.Random(3))
        session.operate("new_game", request=SetupRequest("troia", "standard", TWO))
    table = Table(tmp_path)
    try:
        assert table.session.state is TableState.PLAYING
        assert table.session.snapshot()["evidence"]["chain"] == "unkeyed"
        html = table.client().get("/history").get_data(as_text=True)
        assert "hash chain intact" in html and "without the table's key" in html
    finally:
        table.close()


# -- the aureus order ----------------------------------------------------------------------


def shown_vats(html: str) -> list[int]:
    return [int(v) for v in re.findall(r'class="aureus-vat[^"]*">(\d+)<', html)]


def sse_first_state(client: FlaskClient) -> dict[str, object]:
    response = client.get("/api/events", buffered=False)
    chunks = iter(response.response)  # type: ignore[arg-type]
    next(chunks)
    message = next(chunks).decode()
    response.close()
    data: dict[str, object] = json.loads(message.split("data: ", 1)[1])
    return data


@pytest.mark.parametrize(("variant", "extra"), [("standard", 0), ("haruspex", 1)])
def test_viewers_see_only_the_vats_revealed_so_far(table: Table, variant: str, extra: int) -> None:
    states = table.new_game(variant)
    aureus = list(table.session.game.setup.aureus)  # type: ignore[union-attr]
    client = table.client()
    for played, known in ((0, 1 + extra), (4, 2 + extra)):  # round 1, then round 2
        table.play(states[:played])
        view = client.get("/api/state").get_json()
        assert view["aureus"] == aureus[:known]
        assert view["setup"]["aureus"] == aureus[:known]
        assert view["aureus_hidden"] == len(aureus) - known
        assert len(view["lights"]["upcoming_vats"]) <= 1 + extra
        streamed = sse_first_state(client)
        assert streamed["aureus"] == aureus[:known]
        assert streamed["setup"]["aureus"] == aureus[:known]  # type: ignore[index]
        for page in ("/", "/tv", "/phone", "/live/table", "/live/phone"):
            html = client.get(page).get_data(as_text=True)
            assert shown_vats(html) == aureus[:known], page
            assert "Whole order" not in html
        replay = client.get("/history/1").get_data(as_text=True)
        assert shown_vats(replay) == aureus[:known] and "Whole order" not in replay
    assert client.get("/history/1/record.jsonl").status_code == 403
    full = client.get("/api/state", headers=OPERATOR).get_json()
    assert full["aureus"] == aureus and full["setup"]["aureus"] == aureus
    operator_page = client.get("/", headers=OPERATOR).get_data(as_text=True)
    assert "Whole order (operator only)" in operator_page
    assert ", ".join(map(str, aureus)) in operator_page
    record = client.get("/history/1/record.jsonl", headers=OPERATOR).get_data(as_text=True)
    assert parse_record(record.splitlines(), "download").setup.aureus == tuple(aureus)


def test_everyone_sees_the_whole_order_and_the_chain_head_once_the_game_is_over(
    table: Table,
) -> None:
    states = table.new_game()
    aureus = list(table.session.game.setup.aureus)  # type: ignore[union-attr]
    table.play(states[:5])
    table.session.operate("end")
    ended = table.session.log.events_of_kind(EventKind.GAME_ENDED)[-1]
    client = table.client()
    view = client.get("/api/state").get_json()
    assert view["aureus"] == aureus and view["chain_head"] == ended.hash
    assert sse_first_state(client)["aureus"] == aureus
    for page in ("/", "/tv", "/phone", "/history/1"):
        html = client.get(page).get_data(as_text=True)
        assert f"<code data-chain-head>{ended.hash}</code>" in html, page
    assert ended.hash[:16] in client.get("/history").get_data(as_text=True)
    record = client.get("/history/1/record.jsonl")
    assert record.status_code == 200
    lines = record.get_data(as_text=True).splitlines()
    assert parse_record(lines, "download").setup.aureus == tuple(aureus)


def test_a_game_played_to_its_last_turn_shows_its_chain_head(table: Table) -> None:
    table.play(table.new_game())
    assert table.session.state is TableState.ENDED
    ended = table.session.log.events_of_kind(EventKind.GAME_ENDED)[-1]
    assert ended.payload["reason"] == "finished"
    html = table.client().get("/").get_data(as_text=True)
    assert "Game over" in html and ended.hash in html


# -- the Ides of March table -------------------------------------------------------------


def test_an_edited_ides_log_waits_for_the_operator(tmp_path: Path) -> None:
    path, key_file = tmp_path / "data" / "ides.db", tmp_path / "config" / "chain.key"
    with open_table_log(path, key_file) as log:
        first = IdesDriver(log, dice=Dice.seeded(3), roll_s=0)
        first.new_game(["Livia", "Marcus"])
        for _ in range(4):
            first.act(first.choices()[0])
        first.close()
    opening = 1
    edit_payload(path, opening, json.dumps({"game": "ides", "players": ["Livia", "Brutus"]}))
    with open_table_log(path, key_file) as log:
        table = IdesDriver(log, dice=Dice.seeded(3), roll_s=0)
        try:
            assert table.status is IdesStatus.TAMPERED
            with pytest.raises(ActionError, match="acknowledge"):
                table.act(Promote())
            config = WebConfig(operator_token=TOKEN, secret_key="k", sse_heartbeat_s=0.2)
            client = create_app(config, Services(table.session, log)).test_client()
            page = client.get("/ides").get_data(as_text=True)
            assert "The game log was altered" in page and f"at event {opening}" in page
            assert client.get("/api/ides/state").get_json()["status"] == "tampered"
            assert client.post("/api/ides/acknowledge").status_code == 401
            answer = client.post("/api/ides/acknowledge", headers=OPERATOR)
            assert answer.status_code == 200
            assert table.status is not IdesStatus.TAMPERED
            assert client.post("/api/ides/acknowledge", headers=OPERATOR).status_code == 409
            acks = log.events_of_kind(EventKind.TAMPERING_ACKNOWLEDGED)
            assert [a.payload["bad_seqs"] for a in acks] == [[opening]]
        finally:
            table.close()
    with open_table_log(path, key_file) as log:
        again = IdesDriver(log, roll_s=0)
        assert again.status is not IdesStatus.TAMPERED  # acknowledged once, for good
        again.close()


@given(
    variant=st.sampled_from(["standard", "haruspex"]),
    aureus=st.permutations(list(range(1, 17))),
    round_number=st.integers(1, 16),
    ended=st.booleans(),
)
def test_a_viewer_view_never_holds_a_vat_ahead_of_the_table(
    variant: str, aureus: list[int], round_number: int, ended: bool
) -> None:
    upcoming = aureus[round_number - 1 :] if variant == "haruspex" else []
    view = {
        "status": "ended" if ended else "playing",
        "ended": "finished" if ended else None,
        "setup": {"variant": variant, "aureus": list(aureus)},
        "aureus": list(aureus),
        "turn": {"round": round_number},
        "lights": {"status": "turn", "upcoming_vats": upcoming},
    }
    original = json.dumps(view, sort_keys=True)
    shown = viewer_view(view)
    assert json.dumps(view, sort_keys=True) == original  # the shared snapshot is untouched
    known = len(aureus) if ended else round_number + (variant == "haruspex")
    assert shown["aureus"] == aureus[:known] and shown["setup"]["aureus"] == aureus[:known]
    seen = set(shown["aureus"]) | set(shown["lights"]["upcoming_vats"])
    assert seen <= set(aureus[:known])
