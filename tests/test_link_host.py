"""HostLink against the emulated device over real pseudo-terminals."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from companion.errors import InputError
from companion.link import DeviceMode, HostLink, LinkState, StatusLight, TableLights
from companion.link.emulator import Emulator

LIGHTS = TableLights(vat=7, seat=0, dice=("orange", "purple"), status=StatusLight.OK)
WAIT_S = 10.0  # generous ceiling for a loaded machine; never a speed assertion


def eventually(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator(seed=4) as emu:
        yield emu


@pytest.fixture
def link(emulator: Emulator) -> Iterator[HostLink]:
    with HostLink(port=emulator.port) as host:
        yield host


def test_show_reaches_the_leds(emulator: Emulator, link: HostLink) -> None:
    link.show(LIGHTS)
    assert link.wait_synced(WAIT_S)
    assert emulator.snapshot().lights == LIGHTS
    assert link.status is LinkState.CONNECTED
    assert link.device is not None and link.device.board_id == "companion-led-troia"
    assert link.counters.acks >= 2  # hello and the state


def test_latest_picture_wins(emulator: Emulator, link: HostLink) -> None:
    for vat in range(1, 17):
        link.show(TableLights(vat=vat))
    assert link.wait_synced(WAIT_S)
    assert emulator.snapshot().lights == TableLights(vat=16)


def test_unplug_and_replug_resends_the_full_state(emulator: Emulator, link: HostLink) -> None:
    link.show(LIGHTS)
    assert link.wait_synced(WAIT_S)
    emulator.unplug()
    eventually(lambda: link.status is LinkState.SEARCHING, "the host notices the unplug")
    assert emulator.snapshot().mode is DeviceMode.UNPLUGGED
    emulator.replug()
    eventually(lambda: emulator.snapshot().lights == LIGHTS, "the replugged device shows it")
    assert link.counters.reconnects == 1
    assert link.status is LinkState.CONNECTED


def test_noise_costs_retries_not_correctness(emulator: Emulator, link: HostLink) -> None:
    assert link.wait_connected(WAIT_S)
    emulator.set_noise(0.02)
    for vat in (2, 9, 14):
        lights = TableLights(vat=vat, seat=vat % 4, dice=("green", None))
        link.show(lights)
        eventually(lambda lights=lights: emulator.snapshot().lights == lights, f"vat {vat}")

    def damage_seen() -> bool:
        snap = emulator.snapshot()
        return snap.crc_errors + snap.length_errors + link.counters.crc_errors > 0

    eventually(damage_seen, "the noise damaged a frame and a CRC caught it")
    eventually(lambda: link.counters.retries > 0, "noise forced a retransmission")


def test_lost_reply_is_retransmitted_and_applied_once(emulator: Emulator, link: HostLink) -> None:
    assert link.wait_connected(WAIT_S)
    before = emulator.snapshot()
    emulator.lose_replies(1)
    link.show(LIGHTS)
    assert link.wait_synced(WAIT_S)
    after = emulator.snapshot()
    assert after.lights == LIGHTS
    assert link.counters.retries >= 1
    assert after.duplicates - before.duplicates >= 1  # the resend was recognised
    assert after.applied - before.applied == 1


def test_duplicated_replies_are_ignored(emulator: Emulator, link: HostLink) -> None:
    assert link.wait_connected(WAIT_S)
    emulator.duplicate_replies(True)
    for vat in (3, 4, 5):
        link.show(TableLights(vat=vat))
        assert link.wait_synced(WAIT_S)
    assert emulator.snapshot().lights == TableLights(vat=5)
    assert link.counters.stale_replies >= 2
    assert link.status is LinkState.CONNECTED


def test_dead_device_is_dropped_then_found_again(emulator: Emulator, link: HostLink) -> None:
    link.show(LIGHTS)
    assert link.wait_synced(WAIT_S)
    emulator.set_dead(True)
    eventually(lambda: link.status is LinkState.SEARCHING, "a silent device is dropped")
    assert "no reply after" in link.last_error
    link.show(TableLights(vat=1))  # returns at once even with nobody answering
    emulator.set_dead(False)
    eventually(lambda: emulator.snapshot().lights == TableLights(vat=1), "found again")
    assert link.counters.retries >= link.max_retries


def test_silent_host_leaves_the_device_disconnected_not_stale(emulator: Emulator) -> None:
    with HostLink(port=emulator.port) as host:
        host.show(LIGHTS)
        assert host.wait_synced(WAIT_S)
    eventually(lambda: emulator.snapshot().mode is DeviceMode.DISCONNECTED, "heartbeat timeout")
    snap = emulator.snapshot()
    assert snap.lights is None
    assert snap.timeouts == 1
    # A new host greets the device and puts the picture back.
    with HostLink(port=emulator.port) as host:
        host.show(LIGHTS)
        eventually(lambda: emulator.snapshot().lights == LIGHTS, "restored")


def test_readout_reports_what_the_device_shows(emulator: Emulator, link: HostLink) -> None:
    link.show(LIGHTS)
    assert link.wait_synced(WAIT_S)
    readout = link.readout(WAIT_S)
    assert readout is not None
    assert readout == emulator.snapshot().leds
    shown = readout.to_dict()
    assert shown["mode"] == "showing"
    assert shown["lights"] == {
        "vat": 7,
        "seat": 0,
        "dice": ["orange", "purple"],
        "rolling": False,
        "status": "ok",
    }
    pixels = shown["pixels"]
    assert isinstance(pixels, list) and len(pixels) == 23
    assert sum(p != "#000000" for p in pixels) == 5  # vat, seat, two dice, status


def test_two_hosts_cannot_share_the_port(emulator: Emulator, link: HostLink) -> None:
    assert link.wait_connected(WAIT_S)
    with HostLink(port=emulator.port) as second:
        eventually(lambda: "cannot open" in second.last_error, "the second open is refused")
        assert second.status is LinkState.SEARCHING


def test_no_port_found_keeps_searching() -> None:
    with HostLink(port_finder=lambda: None) as host:
        eventually(lambda: host.last_error == "no LED device found", "searching")
        assert host.status is LinkState.SEARCHING


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"vat": 0}, "vat"),
        ({"seat": 4}, "seat"),
        ({"dice": ("green", "pink")}, "dice.1"),
    ],
)
def test_bad_lights_are_refused_with_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as caught:
        TableLights(**kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field
