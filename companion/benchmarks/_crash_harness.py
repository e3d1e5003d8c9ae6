"""Killing the table at random points: nothing acknowledged is lost, the game resumes exactly.

A child process plays a scripted game (legal turns, flagged moves, repeated and unreadable
readings) through a real :class:`TableSession` and prints one acknowledgement per reading
once it is processed: the log's newest sequence number and hash, and a digest of the
session's state.  The parent kills it with ``SIGKILL`` at a random moment, reopens the log,
checks the chain and every acknowledged event, resumes a session from the log and compares
its state with the last acknowledgement, then finishes the game and compares the result with
an uninterrupted run.

Run the child with ``python -m companion.benchmarks._crash_harness DB SEED TURNS``.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.games.garum import Game, GameSetup, simulate_game
from companion.games.garum.referee import SetupRequest
from companion.games.garum.replay import export_lines
from companion.games.garum.sighting import Sighting
from companion.games.garum.sources import misplaced
from companion.games.garum.state import BoardState
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog, canonical_json
from companion.table.session import TableSession

NEW_GAME = SetupRequest("troia", "standard", (("Ana", ("B", "G")), ("Ben", ("Y", "R"))))


def readings_for(setup: GameSetup, seed: int, turns: int) -> list[Sighting]:
    """The camera's stable readings for ``turns`` turns, with every few turns a flagged move
    (later fixed by the player), a repeated reading and an unreadable one."""
    rng = random.Random(seed)
    game = Game.new(setup)
    out: list[Sighting] = []
    for number, state in enumerate(simulate_game(setup, rng)[:turns]):
        frame = f"frame-{number}".encode()
        if number % 5 == 2:
            out.append(Sighting(misplaced(game, state), frame + b"-bad"))
        if number % 7 == 3:
            out.append(Sighting(BoardState("?" + state.cells[1:], state.workers)))
        out.append(Sighting(state, frame))
        if number % 4 == 1:
            out.append(Sighting(state, frame))
        game = game.advance(state)
    return out


def digest(session: TableSession) -> str:
    """The session's observable state, independent of event numbers and times."""
    h = session.history
    flag = h.flag if h else None
    game = session.game
    value = {
        "status": session.state.value,
        "board": game.state.to_dict() if game else None,
        "turn": game.turn.number if game and game.turn else None,
        "boards": h.boards if h else [],
        "vats": list(game.vats) if game else [],
        "flag": [flag.outcome, flag.reading.board, [v["code"] for v in flag.violations]]
        if flag
        else None,
    }
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:16]


def play(
    session: TableSession, seed: int, turns: int, start: int, ack: Callable[[int], None]
) -> None:
    """Feeds the script from reading ``start`` on; acknowledges each processed reading."""
    if session.history is None:
        session.operate("new_game", request=NEW_GAME)
        ack(-1)
    assert session.game is not None
    for i, reading in enumerate(readings_for(session.game.setup, seed, turns)):
        if i < start:
            continue
        session.feed(reading)
        session.drain()
        ack(i)


def child(db: str, seed: int, turns: int) -> None:
    log = GameLog(db)
    session = TableSession(log, RecordingLights(), rng=random.Random(seed))

    def ack(i: int) -> None:
        head = log.head()
        assert head is not None
        # One write per line: a kill can cut a line short, never merge two.
        sys.stdout.write(f"{i} {head.seq} {head.hash} {digest(session)}\n")
        sys.stdout.flush()

    play(session, seed, turns, 0, ack)
    print("done", flush=True)


@dataclass
class CrashReport:
    points: int = 0
    acknowledged: int = 0
    lost: int = 0
    chain_broken: int = 0
    resumed_differs: int = 0
    finished_differs: int = 0
    mid_reading: int = 0

    @property
    def ok(self) -> bool:
        return not (self.lost or self.chain_broken or self.resumed_differs or self.finished_differs)


def _spawn(db: Path, seed: int, turns: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.benchmarks._crash_harness",
            str(db),
            str(seed),
            str(turns),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _finish(db: Path, seed: int, turns: int, start: int) -> tuple[TableSession, GameLog]:
    log = GameLog(db)
    session = TableSession(log, RecordingLights(), rng=random.Random(seed))
    play(session, seed, turns, start, lambda i: None)
    return session, log


def run_points(
    points: int, seed: int, turns: int, progress: Callable[[int], None] = lambda n: None
) -> CrashReport:
    rng = random.Random(seed)
    report = CrashReport()
    with tempfile.TemporaryDirectory(prefix="companion-crash-") as tmp:
        ref_db = Path(tmp) / "reference.db"
        ref = _spawn(ref_db, seed, turns)
        ref_lines = ref.communicate(timeout=600)[0].split("\n")
        assert ref_lines[-2] == "done", "the reference run did not finish"
        # The state after each reading of an uninterrupted run; key -2: before the game.
        passed = {int(i): d for i, _, _, d in (line.split() for line in ref_lines[:-2])}
        with GameLog(Path(tmp) / "empty.db") as empty_log:
            passed[-2] = digest(TableSession(empty_log, RecordingLights()))
        total = len(ref_lines) - 3
        final_session, ref_log = _finish(ref_db, seed, turns, total)
        want_final = digest(final_session)
        want_record = export_lines(final_session.history)
        ref_log.close()
        for point in range(points):
            db = Path(tmp) / f"point-{point}.db"
            wait_for = rng.randint(0, total)
            proc = _spawn(db, seed, turns)
            seen = output_until_killed(proc, wait_for, rng.uniform(0.0, 0.004))
            # Every whole line printed before the kill is an acknowledgement.
            acks = [line.split() for line in seen if line.endswith("\n") and len(line.split()) == 4]
            report.points += 1
            report.acknowledged += len(acks)
            _check(report, db, acks, passed, seed, turns, want_final, want_record)
            progress(point + 1)
    return report


def output_until_killed(proc: subprocess.Popen[str], lines: int, pause_s: float) -> list[str]:
    """What the child printed: ``lines`` lines read while it runs, then, after ``pause_s``
    and a SIGKILL, the rest."""
    assert proc.stdout is not None
    seen: list[str] = []
    for _ in range(lines):
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
    time.sleep(pause_s)
    proc.send_signal(signal.SIGKILL)
    # The rest through the same reader: readline() may hold lines it read ahead, which
    # communicate() with a timeout never sees (it reads the pipe itself), and a lost
    # acknowledgement makes a sound resume look like a wrong one.
    seen.extend(proc.stdout.read().splitlines(keepends=True))
    proc.stdout.close()
    proc.wait(timeout=60)
    return seen


def _check(
    report: CrashReport,
    db: Path,
    acks: list[list[str]],
    passed: dict[int, str],
    seed: int,
    turns: int,
    want_final: str,
    want_record: list[str],
) -> None:
    log = GameLog(db)
    try:
        if not log.verify().ok:
            report.chain_broken += 1
        stored = {e.seq: e.hash for e in log.events()}
        report.lost += sum(1 for _, seq, h, _ in acks if stored.get(int(seq)) != h)
        session = TableSession(log, RecordingLights(), rng=random.Random(seed))
        head = log.head()
        last = int(acks[-1][0]) if acks else -2
        resumed = digest(session)
        if acks and head is not None and int(acks[-1][1]) == head.seq:
            same = resumed == acks[-1][3]
        else:
            # Killed inside a reading: the state is the one before it or the one after it.
            report.mid_reading += 1
            same = resumed in (passed[last], passed.get(last + 1, passed[last]))
        if not same:
            report.resumed_differs += 1
        start = last + 1 if last >= 0 else 0
        play(session, seed, turns, start, lambda i: None)
        if digest(session) != want_final or export_lines(session.history) != want_record:
            report.finished_differs += 1
    finally:
        log.close()


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
