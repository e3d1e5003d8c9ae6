"""The score / check / simulate commands, against the shared contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from garum_helpers import played

from companion.cli import main
from companion.games.garum import record_lines


def write_record(path: Path, seed: int, players: int = 4, variant: str = "standard") -> list[str]:
    setup, states, _ = played(seed, players, variant)
    lines = record_lines(setup, states)
    path.write_text("\n".join(lines) + "\n")
    return lines


def run_json(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 0) -> dict:  # type: ignore[type-arg]
    assert main(list(argv)) == status
    return json.loads(capsys.readouterr().out)


def test_check_legal_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.jsonl"
    lines = write_record(record, 3)
    out = run_json(capsys, "check", str(record), "--json")
    assert out["legal"] is True
    assert len(out["turns"]) == len(lines) - 1 == 64
    header = json.loads(lines[0])
    first = out["turns"][0]
    assert first == {
        "turn": 1,
        "round": 1,
        "colour": header["seats"][header["first_seat"]]["colours"][0],
        "vat": header["aureus"][0],
        "violations": [],
    }
    assert [t["round"] for t in out["turns"][:5]] == [1, 1, 1, 1, 2]


def test_check_names_the_broken_turn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.jsonl"
    lines = write_record(record, 4)
    # A fish placed before turn 9 disappears during turn 9 and stays gone.
    earlier = json.loads(lines[8])
    row = next(r for r, text in enumerate(earlier["cells"]) if text.strip("."))
    col = next(c for c, ch in enumerate(earlier["cells"][row]) if ch != ".")
    for n in range(9, len(lines)):
        state = json.loads(lines[n])
        cells = state["cells"][row]
        state["cells"][row] = cells[:col] + "." + cells[col + 1 :]
        lines[n] = json.dumps(state)
    record.write_text("\n".join(lines))
    out = run_json(capsys, "check", str(record), "--json", status=1)
    assert out["legal"] is False
    assert [t["turn"] for t in out["turns"] if t["violations"]] == [9]
    assert out["turns"][8]["violations"] == ["tile_changed"]
    assert main(["check", str(record)]) == 1
    text = capsys.readouterr().out
    assert "turn  9" in text and "tile_changed" in text and "rule:" in text


def test_score_record_and_single_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.jsonl"
    lines = write_record(record, 5, players=3)
    out = run_json(capsys, "score", str(record), "--json")
    header = json.loads(lines[0])
    assert set(out) == {"colours", "seats", "winners"}
    assert [s["name"] for s in out["seats"]] == [s["name"] for s in header["seats"]]
    for colour in out["colours"].values():
        assert colour["total"] == colour["bonus"] + colour["workers"]
    assert out["colours"][header["ghost"]] == {"bonus": 0, "workers": 0, "total": 0}
    state = json.loads(lines[-1]) | {k: header[k] for k in ("board", "seats", "ghost")}
    single = tmp_path / "state.json"
    single.write_text(json.dumps(state))
    assert run_json(capsys, "score", str(single), "--json") == out
    assert main(["score", str(record)]) == 0
    text = capsys.readouterr().out
    assert "Winner" in text or "Shared victory" in text


@pytest.mark.parametrize(
    ("line_no", "text", "expected"),
    [
        (1, '{"game": "garum", "board": "moon"}', ":1, field 'board'"),
        (1, "not json", ":1: not valid JSON"),
        (3, '{"cells": ["...."]}', ":3, field 'cells'"),
        (3, '{"cells": ' + json.dumps(["." * 16] * 15 + ["." * 15 + "X"]) + "}", "cells[15]"),
    ],
)
def test_malformed_input_exit_2_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line_no: int, text: str, expected: str
) -> None:
    record = tmp_path / "bad.jsonl"
    lines = write_record(record, 1)
    lines[line_no - 1] = text
    record.write_text("\n".join(lines))
    for command in ("check", "score"):
        assert main([command, str(record), "--json"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        assert str(record) in err and expected in err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "/nonexistent/game.jsonl"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_console_script_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "sim.jsonl"
    exe = [sys.executable, "-m", "companion"]
    subprocess.run(
        [*exe, "simulate", "--players", "2", "--seed", "9", "--out", str(out)], check=True
    )
    result = subprocess.run([*exe, "check", str(out), "--json"], capture_output=True, text=True)
    assert result.returncode == 0
    assert json.loads(result.stdout)["legal"] is True
