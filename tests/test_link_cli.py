"""``companion device`` and ``companion bench link`` end to end, against emulated devices."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main
from companion.link import transport


def test_device_commands_against_the_emulator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["device", "--emulator", "ping"]) == 0
    assert "companion-led-troia" in capsys.readouterr().out
    assert main(["device", "--emulator", "aureus", "14"]) == 0
    out = capsys.readouterr().out
    assert "showing" in out and "vat 14" in out
    assert main(["device", "--emulator", "dice", "purple", "orange"]) == 0
    assert "dice purple/orange" in capsys.readouterr().out


def test_device_test_walks_every_led(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["device", "--emulator", "test", "--step", "0"]) == 0
    out = capsys.readouterr().out
    assert "all 32 pictures confirmed" in out
    for vat in range(1, 17):
        assert f"vat {vat} " in out


def test_bad_vat_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["device", "--emulator", "aureus", "17"]) == 2
    assert "field 'vat'" in capsys.readouterr().err


def test_no_device_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(transport, "find_device_port", lambda: None)
    assert main(["device", "ping"]) == 1
    err = capsys.readouterr().err
    assert "no LED device found" in err and "--emulator" in err


def test_missing_port_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["device", "--port", "/dev/no-such-tty", "ping"]) == 1
    assert "/dev/no-such-tty: no such serial port" in capsys.readouterr().err


@pytest.mark.parametrize(
    "device", ["emulator", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_bench_runs_and_accepts_no_corrupted_frame(
    device: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "link", "--device", device, "--frames", "3000", "--commands", "20"]
    main([*args, "--replugs", "1"])  # the exit status reflects speed targets: not asserted
    out = capsys.readouterr().out
    assert "corrupted frames: 3,000 fed, 0 crashes, 0 accepted" in out
    assert "command to ack: 20 commands" in out
    assert "resync after replug: 1 replugs" in out


class _Port:
    def __init__(self, device: str, vid: int | None) -> None:
        self.device = device
        self.vid = vid


def test_port_search_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stable = tmp_path / "companion-led"
    monkeypatch.setattr(transport, "STABLE_NAME", str(stable))
    ports = [_Port("/dev/ttyUSB0", 0x0403), _Port("/dev/ttyACM3", transport.PICO_USB_VID)]
    monkeypatch.setattr(transport.list_ports, "comports", lambda: ports)
    assert transport.find_device_port() == "/dev/ttyACM3"  # the Pico by USB vendor id
    stable.write_text("")
    assert transport.find_device_port() == str(stable)  # the udev name wins
