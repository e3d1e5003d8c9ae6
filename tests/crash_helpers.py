"""Crash images: what a kill right after each event of a run leaves on disk, checked as
``companion bench crash`` checks a killed table (deterministic, in one process)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from companion.benchmarks._crash_harness import (
    CrashReport,
    Reference,
    check_point,
    digest,
    open_session,
    play,
    simulation,
)
from companion.table.log import Event, GameLog


class ImagedLog(GameLog):
    """A log that leaves a copy of its files after every event: what a kill right after
    that write would leave on disk."""

    def __init__(self, path: Path, images: Path) -> None:
        super().__init__(path)
        self.images = images

    def start_game(self, header: dict[str, Any]) -> Event:
        return self._image(super().start_game(header))

    def append(self, *args: Any, **kwargs: Any) -> Event:
        return self._image(super().append(*args, **kwargs))

    def _image(self, event: Event) -> Event:
        for suffix in ("", "-wal"):
            source = self.path.with_name(self.path.name + suffix)
            if source.exists():
                shutil.copy(source, self.images / f"{event.seq}.db{suffix}")
        return event


def kill_after_every_event(tmp_path: Path, game: str, *, seed: int, turns: int) -> CrashReport:
    """Every crash image of an uninterrupted run, with the acknowledgements printed by then
    (and without the last one, cut off by the kill), resumed and finished."""
    images = tmp_path / "images"
    images.mkdir(parents=True)
    log = ImagedLog(tmp_path / "reference.db", images)
    session, sim = open_session(log, game, seed), simulation(game, seed)
    acks: list[list[str]] = []

    def ack(i: int) -> None:
        head = log.head()
        assert head is not None
        acks.append([str(i), str(head.seq), head.hash, digest(session, sim)])

    with GameLog(tmp_path / "empty.db") as empty:
        passed = {-2: digest(open_session(empty, game, seed), sim)}
    play(session, sim, turns, 0, ack)
    assert session.match is not None
    passed |= {int(i): d for i, _, _, d in acks}
    reference = Reference(passed, (digest(session, sim), sim.export(session.match)))
    log.close()
    report = CrashReport()
    for image in sorted(images.glob("*.db"), key=lambda p: int(p.stem)):
        seq = int(image.stem)
        printed = [a for a in acks if int(a[1]) <= seq]
        for seen in (printed, [a for a in printed if int(a[1]) < seq]):
            db = tmp_path / "killed.db"
            for suffix in ("", "-wal"):
                killed = db.with_name(db.name + suffix)
                killed.unlink(missing_ok=True)
                if image.with_name(image.name + suffix).exists():
                    shutil.copy(image.with_name(image.name + suffix), killed)
            report.points += 1
            check_point(report, db, seen, reference, game, seed, turns)
    return report
