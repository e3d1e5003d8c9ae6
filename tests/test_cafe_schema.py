"""What the hub accepts: real tables' messages pass, anything else is counted and never raises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cafe_helpers import event_message, state_message
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cafe import schema
from companion.cafe.hub_web import create_hub_app
from companion.cafe.room import MAX_SEQ_JUMP, Room
from companion.cafe.simtable import SimulatedTable
from companion.cafe.snapshot import TableFold
from companion.cafe.snapshot import event_message as published_event
from companion.games.garum import cafe as garum_cafe

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=60),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)
FIELDS = sorted(set(state_message("t", 1)) | set(event_message("t", 1)))


def check_card(card: dict[str, Any]) -> None:
    """Whatever was accepted, the card shows only what a real game can have."""
    assert card["status"] in schema.STATUSES | {"unknown"}
    assert -1 <= card["seq"] <= schema.MAX_SEQ
    if card["game"] is not None:
        assert 1 <= card["round"] <= card["rounds"] <= garum_cafe.MAX_ROUNDS
        assert card["variant"] in garum_cafe.VARIANTS
        assert 2 <= len(card["seats"]) <= 4
        for seat in card["seats"]:
            assert isinstance(seat["name"], str) and 0 < len(seat["name"]) <= 40
            assert type(seat["score"]) is int
        assert set(card["leader"]) <= {s["name"] for s in card["seats"]}


@settings(max_examples=300, deadline=None)
@given(
    leaf=st.sampled_from(["status", "state", "events", "other"]), payload=st.binary(max_size=300)
)
def test_any_bytes_are_used_or_counted_never_raised(leaf: str, payload: bytes) -> None:
    room = Room()
    room.receive("t", leaf, payload)
    card = room.card("t")
    assert room.bad_messages == 1 or card is not None or not payload
    if card is not None:
        check_card(card)


@settings(max_examples=400, deadline=None)
@given(field=st.sampled_from(FIELDS), value=JSON, as_event=st.booleans())
def test_any_value_in_any_field_is_used_or_counted(field: str, value: Any, as_event: bool) -> None:
    room = Room()
    message = event_message("t", 3) if as_event else state_message("t", 3)
    message[field] = value
    room.receive("t", "events" if as_event else "state", json.dumps(message).encode())
    card = room.card("t")
    assert (card is None) == (room.bad_messages == 1)
    if card is not None:
        check_card(card)


@pytest.mark.parametrize(("players", "variant"), [(4, "standard"), (2, "emperor"), (3, "haruspex")])
def test_every_message_of_a_real_game_is_accepted(
    tmp_path: Path, players: int, variant: str
) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=players, players=players)
    boards = table.new_game(variant)
    room = Room()
    fold = TableFold()
    try:
        for board in boards:
            table.show(board)
        for event in table.log.events():
            fold.apply(event)
            room.receive("t-1", "events", json.dumps(published_event("t-1", event)).encode())
            snapshot = fold.snapshot("t-1", "http://t1.local:5000/")
            room.receive("t-1", "state", json.dumps(snapshot).encode())
    finally:
        table.close()
    assert room.bad_messages == 0
    card = room.card("t-1")
    assert card is not None and card["status"] == "ended" and len(card["seats"]) == players
    assert card["variant"] == variant and card["last_event_seq"] == fold.seq


def test_a_published_game_start_keeps_the_aureus_order_to_itself(tmp_path: Path) -> None:
    table = SimulatedTable(tmp_path / "t.db", seed=5)
    table.new_game()
    try:
        start = next(iter(table.log.events()))
        assert "aureus" in start.payload  # the log keeps it ...
        sent = published_event("t", start)
        assert "aureus" not in sent["payload"] and sent["payload"]["board"] == "troia"
        assert sent["hash"] == start.hash  # ... and the published event is still that one
    finally:
        table.close()


def test_nesting_is_counted_outside_strings_only() -> None:
    deep = "[" * 30 + "]" * 30
    assert schema.decode(json.dumps({"v": deep}).encode()) == {"v": deep}
    with pytest.raises(schema.Rejected, match="nested too deeply"):
        schema.decode(b"[" * (schema.MAX_NESTING + 1) + b"]" * (schema.MAX_NESTING + 1))
    nested: Any = 1
    for _ in range(schema.MAX_NESTING):
        nested = [nested]
    assert schema.decode(json.dumps(nested).encode()) == nested
    with pytest.raises(schema.Rejected, match="not JSON"):
        schema.decode(b'{"vat": Infinity}')


def test_a_forged_event_at_the_next_seq_does_not_hide_the_real_one() -> None:
    room = Room()
    room.on_event("t", event_message("t", 1))
    room.on_event("t", event_message("t", 2, digest="e" * 64, kind="undo"))  # forged first
    room.on_event("t", event_message("t", 2))  # the table's own
    room.on_event("t", event_message("t", 2))  # and its repeat
    assert room.seqs("t") == [1, 2, 2]
    card = room.card("t")
    assert card is not None and card["conflicts"] == 1 and card["duplicates"] == 1
    assert [e["kind"] for e in card["recent"]] == ["verdict", "undo", "verdict"]


def test_a_table_whose_log_starts_again_is_followed() -> None:
    room = Room()
    for seq in range(1, 6):
        room.on_event("t", event_message("t", seq))
    room.on_state("t", state_message("t", 5))
    for seq in (1, 2):  # a new log: seqs from 1 again, other hashes
        room.on_event("t", event_message("t", seq, digest=f"{seq:064x}".replace("0", "a")))
    room.on_state("t", state_message("t", 2, round=1))
    card = room.card("t")
    assert card is not None and card["seq"] == 2 and card["round"] == 1
    assert card["last_event_seq"] == 2 and card["conflicts"] == 2 and room.bad_messages == 0


def test_a_seq_far_ahead_is_refused_and_a_forged_one_is_soon_replaced() -> None:
    room = Room()
    room.on_state("t", state_message("t", 10))
    room.on_event("t", event_message("t", 10 + MAX_SEQ_JUMP + 1))
    room.on_state("t", state_message("t", 10 + MAX_SEQ_JUMP + 1))
    assert room.rejected()["by_reason"] == {"seq jump": 2}
    room.on_event("t", event_message("t", 10 + MAX_SEQ_JUMP))  # forged, within reach
    room.on_event("t", event_message("t", 11))  # the table's next event
    room.on_state("t", state_message("t", 11, round=3))
    card = room.card("t")
    assert card is not None and card["last_event_seq"] == 11 and card["seq"] == 11
    assert card["round"] == 3


def test_a_finished_games_chain_head_is_shown_on_its_card() -> None:
    room = Room()
    head = "0123456789abcdef" * 4
    room.on_state("t1", state_message("t1", 7, status="ended", ended="finished", chain_head=head))
    room.on_state("t2", state_message("t2", 7, chain_head=head))  # still playing: not shown
    client = create_hub_app(room).test_client()
    page = client.get("/").get_data(as_text=True)
    assert page.count(head) == 1
    cards = {c["table"]: c for c in client.get("/api/tables").get_json()["tables"]}
    assert cards["t1"]["chain_head"] == head and cards["t2"]["chain_head"] is None
    room.on_state("t1", state_message("t1", 8, status="ended", chain_head=head.upper()))
    assert room.rejected()["by_reason"] == {"bad chain_head": 1}


def test_a_flood_of_made_up_tables_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("companion.cafe.room.MAX_TABLES", 3)
    room = Room()
    for i in range(5):
        room.on_status(f"t{i}", "online")
    assert [c["table"] for c in room.cards()] == ["t0", "t1", "t2"]
    assert room.rejected()["by_reason"] == {"too many tables": 2}
    room.forget("t0")
    room.on_status("t4", "online")  # a place freed by a retired table
    assert room.card("t4") is not None
