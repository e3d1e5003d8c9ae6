"""The table watching a synthetic camera: real recognition, hands over the board, stillness."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from companion.boards import load_profile
from companion.table.camera import CameraReadings
from companion.table.fakes import RecordingLights
from companion.table.log import EventKind, GameLog
from companion.table.runner import DEFAULT_GAME, new_game_from
from companion.table.session import NewGame, TableSession, make_setup
from companion.table.simcam import SimulatedPlayersCamera
from companion.table.sources import simulated_players


def test_simulated_players_through_the_camera_are_recognised_and_accepted(
    tmp_path: Path,
) -> None:
    profile = load_profile("troia")
    setup = make_setup(new_game_from(DEFAULT_GAME, "test"), load_profile, random.Random(1))
    states = simulated_players(setup, random.Random(1), mistakes_at=())[:3]
    camera = SimulatedPlayersCamera(profile, states, seed=2, fps=20, hand_s=0.3, still_s=0.8)
    source = CameraReadings(camera, profile, still_s=0.2, max_fps=20)
    log = GameLog(tmp_path / "table.db")
    session = TableSession(log, RecordingLights())
    session.operate("new_game", request=NewGame.of(setup))
    stop = threading.Event()
    owner = threading.Thread(target=session.run, args=(stop,))
    owner.start()
    try:
        with session.hub.subscribe() as sub:
            session.attach_readings(source)
            while (update := sub.get(20.0)) is not None and update.get("turns_played", 0) < 3:
                pass
    finally:
        source.close()
        stop.set()
        owner.join()
    assert update is not None and update["turns_played"] == 3
    assert session.history is not None and session.history.boards == [s.to_dict() for s in states]
    accepted = [e for e in log.events() if e.kind is EventKind.ACCEPTED]
    photos = [log.photo(e.photo) for e in accepted if e.photo]
    assert len(photos) == 3 and all(p is not None and p.startswith(b"\xff\xd8") for p in photos)
    assert len(camera.hand_left_s) == 3
    log.close()


def test_a_hand_over_the_board_gives_no_reading() -> None:
    profile = load_profile("troia")
    setup = make_setup(new_game_from(DEFAULT_GAME, "test"), load_profile, random.Random(1))
    states = simulated_players(setup, random.Random(1), mistakes_at=())[:1]
    camera = SimulatedPlayersCamera(profile, states, seed=2, fps=20, hand_s=0.3, still_s=0.6)
    source = CameraReadings(camera, profile, still_s=0.2, max_fps=20)
    items = []
    for item in source.readings():
        items.append(item)
        if item is not None and item.state == states[0]:
            break
    source.close()
    assert items[0] is not None and items[0].state.cells == "." * 256  # the empty board
    assert None in items[1:-1]  # then the hand: no reading until the board is still again
    assert items[-1] is not None and items[-1].jpeg is not None
