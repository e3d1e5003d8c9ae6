"""Killing the table at random points: nothing acknowledged is lost, the game resumes exactly.

A child process plays a game's hostile simulated script (see
:mod:`companion.games.simulation_seam`: for a camera game legal turns, flagged moves,
repeated and unreadable readings) through a real :class:`TableSession` and prints one
acknowledgement per move once it is processed: the log's newest sequence number and hash,
and a digest of the session's state.  The parent kills it with ``SIGKILL`` at a random
moment, reopens the log, checks the chain and every acknowledged event, resumes a session
from the log and compares its state with the last acknowledgement, then finishes the game
and compares the result with an uninterrupted run.

Run the child with ``python -m companion.benchmarks._crash_harness DB SEED TURNS GAME``.
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

from companion.games import registry
from companion.games.simulation_seam import Simulation, simulation_of
from companion.table.commands import command_for
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog, canonical_json
from companion.table.session import TableSession


def simulation(game: str, seed: int) -> Simulation:
    """The game's hostile simulated game: the same moves in the child and the parent."""
    return simulation_of(registry.game(game), seed, hostile=True)


def open_session(log: GameLog, game: str, seed: int) -> TableSession:
    """The table as the child runs it, and as it is resumed from the child's log."""
    referee = simulation(game, seed).referee()
    return TableSession(log, RecordingLights(), game=game, referee=referee, rng=random.Random(seed))


def digest(session: TableSession, sim: Simulation) -> str:
    """The session's observable state, independent of event numbers and times."""
    match = session.match
    value = {
        "status": session.state.value,
        "game": sim.digest(match) if match is not None else None,
    }
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:16]


def play(
    session: TableSession,
    sim: Simulation,
    turns: int,
    start: int,
    ack: Callable[[int], None],
) -> None:
    """Plays the script from move ``start`` on; acknowledges each processed move (a refused
    one too: the session has judged it)."""
    if session.match is None:
        session.operate("new_game", request=sim.setup_request())
        ack(-1)
    assert session.match is not None
    for i, move in enumerate(sim.script(session.match, turns)):
        if i < start:
            continue
        session.submit(command_for(move))
        session.drain()
        ack(i)


def child(db: str, seed: int, turns: int, game: str) -> None:
    log = GameLog(db)
    session = open_session(log, game, seed)
    sim = simulation(game, seed)

    def ack(i: int) -> None:
        head = log.head()
        assert head is not None
        # One write per line: a kill can cut a line short, never merge two.
        sys.stdout.write(f"{i} {head.seq} {head.hash} {digest(session, sim)}\n")
        sys.stdout.flush()

    play(session, sim, turns, 0, ack)
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


def _spawn(db: Path, seed: int, turns: int, game: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.benchmarks._crash_harness",
            str(db),
            str(seed),
            str(turns),
            game,
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


@dataclass(frozen=True)
class Reference:
    """An uninterrupted run: the state digest after each move (key -1: the game opened, -2:
    before it), and the finished game's digest and export."""

    passed: dict[int, str]
    final: tuple[str, list[str]]


def _finish(db: Path, game: str, seed: int, turns: int, start: int) -> tuple[TableSession, GameLog]:
    log = GameLog(db)
    session = open_session(log, game, seed)
    play(session, simulation(game, seed), turns, start, lambda i: None)
    return session, log


def run_points(
    points: int,
    seed: int,
    turns: int,
    progress: Callable[[int], None] = lambda n: None,
    *,
    game: str = registry.DEFAULT_GAME,
) -> CrashReport:
    rng = random.Random(seed)
    report = CrashReport()
    with tempfile.TemporaryDirectory(prefix="companion-crash-") as tmp:
        ref_db = Path(tmp) / "reference.db"
        sim = simulation(game, seed)
        ref = _spawn(ref_db, seed, turns, game)
        ref_lines = ref.communicate(timeout=600)[0].split("\n")
        assert ref_lines[-2] == "done", "the reference run did not finish"
        # The state after each reading of an uninterrupted run; key -2: before the game.
        passed = {int(i): d for i, _, _, d in (line.split() for line in ref_lines[:-2])}
        with GameLog(Path(tmp) / "empty.db") as empty_log:
            passed[-2] = digest(open_session(empty_log, game, seed), sim)
        total = len(ref_lines) - 3
        final_session, ref_log = _finish(ref_db, game, seed, turns, total)
        assert final_session.match is not None
        reference = Reference(passed, (digest(final_session, sim), sim.export(final_session.match)))
        ref_log.close()
        for point in range(points):
            db = Path(tmp) / f"point-{point}.db"
            wait_for = rng.randint(0, total)
            proc = _spawn(db, seed, turns, game)
            seen = output_until_killed(proc, wait_for, rng.uniform(0.0, 0.004))
            # Every whole line printed before the kill is an acknowledgement.
            acks = [line.split() for line in seen if line.endswith("\n") and len(line.split()) == 4]
            report.points += 1
            report.acknowledged += len(acks)
            check_point(report, db, acks, reference, game, seed, turns)
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


def check_point(
    report: CrashReport,
    db: Path,
    acks: list[list[str]],
    reference: Reference,
    game: str,
    seed: int,
    turns: int,
) -> None:
    """Counts what one kill cost: ``db`` is the killed table's log, ``acks`` the
    acknowledgements it printed (``index seq hash digest``)."""
    passed = reference.passed
    log = GameLog(db)
    try:
        if not log.verify().ok:
            report.chain_broken += 1
        stored = {e.seq: e.hash for e in log.events()}
        report.lost += sum(1 for _, seq, h, _ in acks if stored.get(int(seq)) != h)
        session = open_session(log, game, seed)
        sim = simulation(game, seed)
        head = log.head()
        last = int(acks[-1][0]) if acks else -2
        resumed = digest(session, sim)
        if acks and head is not None and int(acks[-1][1]) == head.seq:
            same = resumed == acks[-1][3]
        else:
            # Killed inside a reading: the state is the one before it or the one after it.
            report.mid_reading += 1
            same = resumed in (passed[last], passed.get(last + 1, passed[last]))
        if not same:
            report.resumed_differs += 1
        # The players go on from what the table shows: a move the log already holds in full
        # is not made again (an operator does not repeat an action the table took; a camera
        # would only see the same board again).
        took_effect = resumed != passed[last] and resumed == passed.get(last + 1)
        start = max(last + (2 if took_effect else 1), 0)
        play(session, sim, turns, start, lambda i: None)
        assert session.match is not None
        if (digest(session, sim), sim.export(session.match)) != reference.final:
            report.finished_differs += 1
    finally:
        log.close()


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
