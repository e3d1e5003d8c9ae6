"""Hostile input to every command: one plain line on stderr, the right exit status, no crash.

Each case reproduces a finding (a traceback, a wrong exit status, escape codes on the
terminal) and asserts the specific message that replaced it.
"""

from __future__ import annotations

import io
import json
import os
import struct
import zlib
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from garum_helpers import played
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import bounded_json
from companion.cli import DEBUG_ENV, main
from companion.games.garum import record_lines
from companion.limits import (
    MAX_IMAGE_PIXELS,
    MAX_JSON_DEPTH,
    MAX_MESSAGE_CHARS,
    MAX_NAME_CHARS,
)
from companion.vision.image_header import image_size


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``main(argv)`` with its status, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:  # argparse's own errors
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


def one_error_line(err: str, *fragments: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def header(variant: str = "standard", **changes: Any) -> dict[str, Any]:
    setup, _, _ = played(1, 4, variant)
    head: dict[str, Any] = json.loads(record_lines(setup, [])[0])
    head.update(changes)
    return head


def record_file(tmp_path: Path, **changes: Any) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(header(**changes)) + "\n")
    return path


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
        + chunk(b"IEND", b"")
    )


# --- the findings, one by one ------------------------------------------------------------


@pytest.mark.parametrize("command", ["score", "check"])
@pytest.mark.parametrize("opening", ["[", '{"a": '])
def test_deep_nesting_is_refused_not_a_recursion_error(
    tmp_path: Path, command: str, opening: str
) -> None:
    path = tmp_path / "deep.json"
    path.write_text(opening * 100_000)
    status, _, err = run_cli(command, str(path), "--json")
    assert status == 2
    one_error_line(err, str(path), f"nested more than {MAX_JSON_DEPTH} levels deep")


def test_deep_nesting_inside_a_header(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(header())[:-1] + ', "extra": ' + "[" * 100_000 + "\n")
    status, _, err = run_cli("check", str(path))
    assert status == 2
    one_error_line(err, f"{path}:1", "nested more than")


def test_a_5000_digit_number_in_a_header(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    text = json.dumps(header(first_seat=0)).replace(
        '"first_seat": 0', '"first_seat": ' + "9" * 5000
    )
    path.write_text(text + "\n")
    for command in ("check", "score"):
        status, _, err = run_cli(command, str(path), "--json")
        assert status == 2
        one_error_line(err, f"{path}:1", "a number of 5000 digits")


@pytest.mark.parametrize("size", [(1, 1), (1000, 1), (1, 1000)])
def test_tiny_images_are_named_not_crashed_on(tmp_path: Path, size: tuple[int, int]) -> None:
    width, height = size
    path = tmp_path / "tiny.png"
    assert cv2.imwrite(str(path), np.zeros((height, width, 3), np.uint8))
    status, out, err = run_cli("recognize", str(path), "--json")
    assert status == 1
    assert json.loads(out) == {
        "error": f"{path}: {width} x {height} pixels is too small to show the board "
        "(at least 64 pixels a side)"
    }
    one_error_line(err, str(path), "too small")
    status, _, err = run_cli("calibrate", str(path), "--out", str(tmp_path / "p.json"))
    assert status == 2
    one_error_line(err, str(path), "too small")
    assert not (tmp_path / "p.json").exists()


def test_a_declared_60000_square_png_is_refused_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bomb.png"
    path.write_bytes(png_declaring(60_000, 60_000))
    decoded: list[int] = []
    real_decode = cv2.imdecode

    def counted_decode(*args: Any) -> Any:
        decoded.append(1)
        return real_decode(*args)

    monkeypatch.setattr(cv2, "imdecode", counted_decode)
    status, out, err = run_cli("recognize", str(path), "--json")
    assert status == 1 and "megapixels" in json.loads(out)["error"]
    one_error_line(err, str(path), "60000 x 60000 pixels", f"{MAX_IMAGE_PIXELS / 1e6:g}")
    status, _, err = run_cli("calibrate", str(path), "--out", str(tmp_path / "p.json"))
    assert status == 2
    one_error_line(err, str(path), "60000 x 60000")
    assert decoded == []


def test_a_strip_image_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "strip.png"
    assert cv2.imwrite(str(path), np.zeros((64, 4000, 3), np.uint8))
    status, _, err = run_cli("calibrate", str(path), "--out", str(tmp_path / "p.json"))
    assert status == 2
    one_error_line(err, str(path), "too narrow")


def test_a_truncated_photo_is_unreadable_not_a_crash(tmp_path: Path) -> None:
    _, data = cv2.imencode(".jpg", np.full((300, 300, 3), 90, np.uint8))
    path = tmp_path / "cut.jpg"
    path.write_bytes(data.tobytes()[:400])
    status, out, err = run_cli("recognize", str(path), "--json")
    assert status == 1 and "error" in json.loads(out)
    one_error_line(err, str(path), "not a readable image")


@pytest.mark.parametrize("size", ['"big"', "[1280]", "[1280, 96]", "[1280.5, 960]", "[1, 2, 3]"])
def test_a_camera_frame_size_that_is_no_size(tmp_path: Path, size: str) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nkind = "picamera"\nsize = {size}\n')
    status, _, err = run_cli("run", "--config", str(config))
    assert status == 2
    one_error_line(err, str(config), "field 'camera.size'", "expected a frame size")


def test_camera_index_of_the_wrong_type(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[camera]\nkind = "opencv"\nindex = "zz"\n')
    status, _, err = run_cli("run", "--config", str(config))
    assert status == 2
    one_error_line(err, str(config), "field 'camera.index'", "expected a camera number")


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ('[camera]\nkind = "synthetic"\ninterval_s = nan\n', "camera.interval_s"),
        ('[camera]\nkind = "synthetic"\nmistakes_at = ["x"]\n', "camera.mistakes_at"),
        ('[lights]\nkind = "serial"\nport = 5\n', "lights.port"),
        ('[buttons]\nkind = "gpio"\naccept_pin = "x"\n', "buttons.accept_pin"),
        ("[web]\nport = true\n", "web.port"),
        ("camera = 5\n", "field 'camera'"),
        ("a = " + "[" * 100_000 + "\n", "nested too deeply"),
        ("a = " + "9" * 5000 + "\n", "a number too long"),
        ('data_dir = "/proc/no/such/folder"\n', "cannot create the data folder"),
    ],
)
def test_run_configuration_mistakes(tmp_path: Path, toml: str, fragment: str) -> None:
    config = tmp_path / "table.toml"
    config.write_text(toml)
    status, _, err = run_cli("run", "--config", str(config))
    assert status == 2
    one_error_line(err, str(config), fragment)


def test_simulate_into_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "g.jsonl"
    status, _, err = run_cli("simulate", "--out", str(target))
    assert status == 2
    one_error_line(err, str(target), "cannot write: No such file or directory")


def test_score_neutralises_escape_codes_in_names(tmp_path: Path) -> None:
    name = "\x1b[2J\x1b]0;owned\x07Eve\u202e"
    setup, states, _ = played(2, 4, "standard")
    head = json.loads(record_lines(setup, [])[0])
    head["seats"][0]["name"] = name
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join([json.dumps(head), *record_lines(setup, states)[1:]]))
    status, out, _ = run_cli("score", str(path))
    assert status == 0
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b[2J\\x1b]0;owned\\x07Eve\\u202e" in out
    status, out, _ = run_cli("score", str(path), "--json")
    assert status == 0
    assert json.loads(out)["seats"][0]["name"] == name  # JSON stays faithful


def test_check_text_neutralises_names_too(tmp_path: Path) -> None:
    setup, states, _ = played(2, 4, "standard")
    head = json.loads(record_lines(setup, [])[0])
    for seat in head["seats"]:
        seat["name"] = "\x1b[31m" + seat["name"]
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join([json.dumps(head), *record_lines(setup, states)[1:4]]))
    status, out, _ = run_cli("check", str(path))
    assert status == 0 and "\x1b" not in out and "\\x1b[31m" in out


def test_an_overlong_name_is_refused(tmp_path: Path) -> None:
    seats = header()["seats"]
    seats[1]["name"] = "N" * (MAX_NAME_CHARS + 1)
    path = record_file(tmp_path, seats=seats)
    status, _, err = run_cli("check", str(path))
    assert status == 2
    one_error_line(err, "seats[1].name", f"at most {MAX_NAME_CHARS}")


# --- check: a game record or not ---------------------------------------------------------


def test_check_refuses_a_single_board_state(tmp_path: Path) -> None:
    setup, states, _ = played(3, 4, "standard")
    head = json.loads(record_lines(setup, [])[0])
    state = states[-1].to_dict() | {k: head[k] for k in ("board", "seats", "ghost")}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    status, out, err = run_cli("check", str(path), "--json")
    assert status == 2 and out == ""
    one_error_line(err, f"{path}:1", "a single board state, not a game record")
    status, out, _ = run_cli("score", str(path), "--json")  # still a valid thing to score
    assert status == 0 and "winners" in json.loads(out)


@pytest.mark.parametrize("variant", ["standard", "haruspex"])
@pytest.mark.parametrize("aureus", [None, [], [1, 2, 3]])
def test_check_refuses_a_record_without_its_aureus(
    tmp_path: Path, variant: str, aureus: list[int] | None
) -> None:
    head = header(variant)
    if aureus is None:
        del head["aureus"]
    else:
        head["aureus"] = aureus
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(head) + "\n")
    status, _, err = run_cli("check", str(path), "--json")
    assert status == 2
    got = 0 if not aureus else len(aureus)
    one_error_line(err, "field 'aureus'", f"needs all 16 aureus vats in round order, got {got}")


def test_an_emperor_record_needs_no_aureus(tmp_path: Path) -> None:
    head = header("emperor")
    head.pop("aureus", None)
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(head) + "\n")
    status, out, _ = run_cli("check", str(path), "--json")
    assert status == 0 and json.loads(out)["legal"] is True


# --- any bad file, any command -----------------------------------------------------------

HOSTILE_FILES = {
    "missing": None,
    "folder": "DIR",
    "empty": b"",
    "garbage": bytes(range(256)) * 20,
    "nul bytes": b"\x00\x00\n",
    "a JSON list": b"[1, 2, 3]",
    "a JSON string": b'"hello"',
    "NaN": b'{"board": NaN}',
    "too big": b" " * (8 * 1024 * 1024 + 1),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_FILES))
@pytest.mark.parametrize(
    "argv",
    [
        ["score", "{}", "--json"],
        ["check", "{}"],
        ["recognize", "{}"],
        ["calibrate", "{}", "--out", "{out}"],
        ["score", "{state}", "--board", "{}"],
        ["simulate", "--board", "{}"],
        ["markers", "--out", "{out}.png", "--board", "{}"],
        ["run", "--config", "{}"],
    ],
    ids=lambda argv: " ".join(a for a in argv if "{" not in a),
)
def test_every_command_answers_a_hostile_file_in_one_line(
    tmp_path: Path, kind: str, argv: list[str]
) -> None:
    if argv[0] == "run" and kind == "empty":
        pytest.skip("an empty configuration is a valid one: every setting at its default")
    content = HOSTILE_FILES[kind]
    path = tmp_path / "input"
    if content == "DIR":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    state = tmp_path / "state.json"
    setup, states, _ = played(3, 2, "standard")
    head = json.loads(record_lines(setup, [])[0])
    state.write_text(json.dumps(states[-1].to_dict() | {k: head[k] for k in ("seats", "ghost")}))
    args = [
        a.replace("{out}", str(tmp_path / "out"))
        .replace("{state}", str(state))
        .replace("{}", str(path))
        for a in argv
    ]
    status, _, err = run_cli(*args)
    assert status == (1 if argv[0] == "recognize" else 2)
    one_error_line(err, str(path))


def test_a_pipe_is_refused_rather_than_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    status, _, err = run_cli("check", str(fifo))
    assert status == 2
    one_error_line(err, str(fifo), "not a regular file")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(st.text(alphabet='[]{}",:0123456789.eE-+ntrulfa\\\x1b\n', max_size=80)))
def test_random_text_never_escapes_as_a_traceback(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_text(json.dumps(header()) + "\n" + "\n".join(lines), encoding="utf-8")
    for command in ("check", "score"):
        status, _, err = run_cli(command, str(path), "--json")
        assert status in (0, 1, 2)
        if status == 2:
            one_error_line(err)
            assert "\x1b" not in err


# --- arguments and the safety net --------------------------------------------------------


def test_a_bad_argument_is_one_line() -> None:
    status, _, err = run_cli("markers", "--out", "m.png", "--dpi", "zz")
    assert status == 2
    one_error_line(err, "companion markers: error: argument --dpi", "see companion markers --help")


def test_an_unexpected_exception_is_one_line_unless_debugging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.games.garum.commands.score as score

    def broken(_: object) -> int:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(score, "run", broken)
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    status, _, err = run_cli("score", "x")
    assert status == 2
    assert err.strip() == (
        f"companion: internal error: RuntimeError: boom\\nsecond line "
        f"(set {DEBUG_ENV}=1 to see where)"
    )
    monkeypatch.setenv(DEBUG_ENV, "1")
    with pytest.raises(RuntimeError, match="boom"):
        main(["score", "x"])


# --- the bounded readers themselves ------------------------------------------------------


def test_depth_counts_brackets_outside_strings_only() -> None:
    inside = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert bounded_json.loads(inside) is not None
    tricky = {"s": "[" * 1000 + '\\"{', "t": "]]"}  # escaped quotes end no string
    assert bounded_json.loads(json.dumps(tricky)) == tricky
    with pytest.raises(bounded_json.JsonInputError, match="nested"):
        bounded_json.loads("[" + inside + "]")


@pytest.mark.parametrize("text", ["[1e999]", "[-1e999]", "[NaN]", "[Infinity]", "[-Infinity]"])
def test_numbers_json_does_not_have_are_refused(text: str) -> None:
    with pytest.raises(bounded_json.JsonInputError):
        bounded_json.loads(text)


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(1, 300),
    height=st.integers(1, 300),
    ext=st.sampled_from([".png", ".jpg", ".bmp", ".tif", ".webp"]),
)
def test_the_header_size_is_the_decoded_size(width: int, height: int, ext: str) -> None:
    ok, data = cv2.imencode(ext, np.zeros((height, width, 3), np.uint8))
    assert ok
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    assert decoded is not None
    assert image_size(data.tobytes()) == (decoded.shape[1], decoded.shape[0]) == (width, height)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["run", "--demo", "d", "--port", "-1"], "port -1 is not 0-65535"),
        (["run", "--demo", "d", "--port", "99999"], "port 99999 is not 0-65535"),
        (["demo", "--seed", "-5"], "seed -5 is not"),
        (["demo", "--delay", "nan"], "not a duration"),
        (["demo", "--game", "ides", "--turns-per-second", "nan"], "not a rate above 0"),
        (["device", "--emulator", "test", "--step", "-1"], "not a duration"),
        (["hub", "--mqtt", "mqtt://h", "--port", "9" * 30], "too long for a number"),
        (["bench", "link", "--frames", "-5"], "-5 is not a count"),
        (["bench", "vision", "--occluded-every", "x"], "'x' is not a whole number"),
    ],
)
def test_hostile_numbers_in_arguments(tmp_path: Path, argv: list[str], fragment: str) -> None:
    status, _, err = run_cli(*argv)
    assert status == 2
    one_error_line(err, fragment)


def test_a_ca_file_that_is_no_certificate(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_bytes(bytes(range(256)))
    status, _, err = run_cli("hub", "--mqtt", "mqtts://127.0.0.1:1", "--mqtt-ca", str(ca))
    assert status == 2
    one_error_line(err, "field '--mqtt-ca'", str(ca), "is not a readable PEM CA certificate")


def test_markers_into_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "m.png"
    status, _, err = run_cli("markers", "--out", str(target))
    assert status == 2
    assert one_error_line(err).endswith(f"{target}: cannot write: No such file or directory")


def test_run_checks_the_ca_file_before_starting(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("")
    argv = ["run", "--demo", str(tmp_path / "data"), "--port", "0", "--mqtt", "mqtts://h"]
    status, _, err = run_cli(*argv, "--table", "t1", "--mqtt-ca", str(ca))
    assert status == 2
    one_error_line(err, "field '--mqtt-ca'", "is not a readable PEM CA certificate")


@pytest.mark.parametrize("key", ["variant", "board", "game"])
def test_a_megabyte_value_is_quoted_clipped(tmp_path: Path, key: str) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(header() | {key: "v" * 1_000_000}) + "\n")
    status, _, err = run_cli("check", str(path))
    assert status == 2
    line = one_error_line(err, f"{path}:1, field '{key}'")
    assert len(line) <= len("companion: error: ") + MAX_MESSAGE_CHARS
    assert line.endswith("...")


@pytest.mark.parametrize("colour", ["", "GY", "BGYR"])
def test_a_colour_that_is_part_of_the_colour_letters(tmp_path: Path, colour: str) -> None:
    seats = header()["seats"]
    seats[3]["colours"] = [colour]
    path = record_file(tmp_path, seats=seats)
    for command in ("check", "score"):
        status, _, err = run_cli(command, str(path))
        assert status == 2
        one_error_line(err, "field 'seats[3].colours'", f"unknown colour {colour!r}")
