"""Hostile files and arguments for the command line, run in-process through ``main(argv)``.

Each case says whether its input must be refused (exit status non-zero): a record that
breaks a rule, a single board state given to ``check``, a photo with no board in it.  A
case that exits 0 on such input is *accepted invalid*; an exception escaping ``main`` or a
traceback on stderr is a *crash*.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import companion.cli
from companion.fuzz.hostile import Mutant, garbage, mutate_lines, mutate_value, random_bytes
from companion.fuzz.images import hostile_image
from companion.fuzz.inprocess import Outcome, call
from companion.fuzz.samples import Samples, garum_samples
from companion.fuzz.tally import ACCEPTED_INVALID, CRASH, HANG, TargetTally, shorten
from companion.progress import Progress

Entry = Callable[[Sequence[str]], int]
ESCAPE = "\x1b"
RUN_LIMIT_S = 5.0


@dataclass(frozen=True)
class CliCase:
    kind: str
    argv: list[str]
    how: str
    invalid: bool  # must be refused: exit status 0 is a finding
    preview: str = ""
    escape_codes_matter: bool = False  # stdout must not carry the ESC character


@contextlib.contextmanager
def parser_built_once() -> Iterator[None]:
    """``main`` builds its whole parser on every call; one build serves every input here."""
    namespace = vars(companion.cli)
    original = namespace["build_parser"]
    parser = original()
    namespace["build_parser"] = lambda: parser
    try:
        yield
    finally:
        namespace["build_parser"] = original


class CliTarget:
    name = "cli"

    def __init__(
        self,
        workdir: Path,
        seed: int,
        entry: Entry | None = None,
        timeout_s: float = 20.0,
        samples: Samples | None = None,
    ) -> None:
        self.dir = workdir
        self.rng = random.Random(seed)
        self.entry = entry
        self.timeout_s = timeout_s
        self.samples = samples or garum_samples(seed)
        self._written: list[Path] = []
        self.generators: list[tuple[float, Callable[[], CliCase]]] = [
            (22, self.mutated_record),
            (14, self.mutated_state),
            (6, self.broken_rule),
            (3, self.single_state_checked),
            (3, self.record_without_aureus),
            (2, self.fractional_vat),
            (3, self.escape_codes_in_names),
            (6, self.hostile_profile),
            (7, self.garbage_file),
            # A photo costs a hundred times a record (the reader is built for each one).
            (0.4, self.hostile_image_read),
            (0.2, self.hostile_image_calibrated),
            (2, self.hostile_run_config),
            (0.3, self.hostile_simulate),
        ]

    # -- running ---------------------------------------------------------------------------

    def run(self, count: int, tally: TargetTally, progress: Progress | None = None) -> None:
        weights = [w for w, _ in self.generators]
        makers = [m for _, m in self.generators]
        guard = parser_built_once() if self.entry is None else contextlib.nullcontext()
        entry: Entry = self.entry or (lambda argv: companion.cli.main(argv))
        with guard:
            for _ in range(count):
                case = self.rng.choices(makers, weights)[0]()
                # A ``run`` that accepted its configuration serves until stopped.
                limit = (
                    min(self.timeout_s, RUN_LIMIT_S) if case.argv[0] == "run" else self.timeout_s
                )
                self.judge(case, call(entry, case.argv, limit), tally)
                self._clean()
                if progress is not None:
                    progress.advance()

    def judge(self, case: CliCase, outcome: Outcome, tally: TargetTally) -> None:
        tally.sent += 1
        command = case.argv[0] if case.argv else "(none)"
        example = f"{self._shown(case.argv)} | {case.how}"
        if case.preview:
            example += f" | file: {shorten(case.preview, 100)}"
        if outcome.hung:
            if command == "run":  # it served: right for a good configuration only
                if case.invalid:
                    tally.found(ACCEPTED_INVALID, "run: served a bad configuration", example)
            else:
                tally.found(HANG, f"{command}: still running after {self.timeout_s:g} s", example)
        elif outcome.crashed:
            name = type(outcome.error).__name__ if outcome.error else "traceback on stderr"
            tally.found(CRASH, f"{command}: {name}", example)
        elif outcome.status == 0 and case.invalid:
            tally.found(ACCEPTED_INVALID, f"{case.kind}: exit status 0", example)
        if case.escape_codes_matter and ESCAPE in outcome.stdout:
            tally.found(ACCEPTED_INVALID, f"{case.kind}: terminal escape codes printed", example)

    def _shown(self, argv: list[str]) -> str:
        return "companion " + " ".join(a.replace(str(self.dir), "$TMP") for a in argv)

    # -- files -----------------------------------------------------------------------------

    def _write(self, name: str, data: bytes) -> str:
        path = self._scratch(name)
        path.write_bytes(data)
        return str(path)

    def _scratch(self, name: str) -> Path:
        """A fresh file name for this input, removed after it (rewriting one file in place
        makes the file system flush it, a hundred times slower)."""
        path = self.dir / f"{len(self._written)}-{name}"
        self._written.append(path)
        return path

    def _clean(self) -> None:
        for path in self._written:
            path.unlink(missing_ok=True)
        self._written.clear()

    def _record(self) -> tuple[str, ...]:
        return self.rng.choice(self.samples.records)

    def _scoring_command(self) -> list[str]:
        command = self.rng.choice(("check", "score"))
        return [command, "--json"] if self.rng.random() < 0.3 else [command]

    # -- generators ------------------------------------------------------------------------

    def mutated_record(self) -> CliCase:
        m = mutate_lines(list(self._record()), self.rng)
        path = self._write("record.jsonl", m.data)
        return self._case("mutated record", [*self._scoring_command(), path], m)

    def mutated_state(self) -> CliCase:
        m = mutate_value(self.rng.choice(self.samples.states), self.rng)
        path = self._write("state.json", m.data)
        return self._case("mutated board state", ["score", path], m)

    def broken_rule(self) -> CliCase:
        lines = list(self._record())
        turns = [i for i in range(1, len(lines) - 1) if lines[i] != lines[i + 1]]
        i = self.rng.choice(turns)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        path = self._write("record.jsonl", "\n".join(lines).encode() + b"\n")
        how = f"turns {i} and {i + 1} swapped: two tiles at once, then one taken back"
        return CliCase("check: a rule broken", ["check", path], how, True)

    def single_state_checked(self) -> CliCase:
        data = json.dumps(self.rng.choice(self.samples.states)).encode()
        path = self._write("state.json", data)
        return CliCase("check: a single board state", ["check", path], "not a record", True)

    def record_without_aureus(self) -> CliCase:
        lines = list(self.rng.choice([r for r in self.samples.records if "emperor" not in r[0]]))
        header = json.loads(lines[0])
        if self.rng.random() < 0.5:
            del header["aureus"]
            how = "aureus removed"
        else:
            header["aureus"] = header["aureus"][: self.rng.randrange(len(header["aureus"]))]
            how = f"aureus cut to {len(header['aureus'])} values"
        lines[0] = json.dumps(header)
        path = self._write("record.jsonl", "\n".join(lines).encode() + b"\n")
        return CliCase("check: a record without its aureus", ["check", path], how, True)

    def fractional_vat(self) -> CliCase:
        lines = list(self.rng.choice([r for r in self.samples.records if "emperor" not in r[0]]))
        header = json.loads(lines[0])
        at = self.rng.randrange(len(header["aureus"]))
        header["aureus"][at] = header["aureus"][at] + self.rng.choice((0.9, 0.5, 0.1))
        lines[0] = json.dumps(header)
        path = self._write("record.jsonl", "\n".join(lines).encode() + b"\n")
        how = f"aureus[{at}] = {header['aureus'][at]}"
        return CliCase("check: a fractional vat", ["check", path], how, True)

    def escape_codes_in_names(self) -> CliCase:
        lines = list(self._record())
        header = json.loads(lines[0])
        seat = self.rng.randrange(len(header["seats"]))
        header["seats"][seat]["name"] = self.rng.choice(
            ("\x1b[2J\x1b[HEve", "Ann\x1b]0;owned\x07", "\x1b[31mRed\x1b[0m")
        )
        lines[0] = json.dumps(header)
        path = self._write("record.jsonl", "\n".join(lines).encode() + b"\n")
        how = f"seats[{seat}].name carries terminal escape codes"
        return CliCase("score: escape codes in a name", ["score", path], how, False, "", True)

    def hostile_profile(self) -> CliCase:
        m = mutate_value(self.samples.profile, self.rng)
        board = self._write("board.json", m.data)
        record = self._write("record.jsonl", "\n".join(self._record()).encode() + b"\n")
        return self._case("hostile --board profile", ["check", record, "--board", board], m)

    def garbage_file(self) -> CliCase:
        m = garbage(self.rng)
        suffix = self.rng.choice(("jsonl", "json"))
        path = self._write(f"garbage.{suffix}", m.data)
        return self._case("garbage file", [*self._scoring_command(), path], m)

    def hostile_image_read(self) -> CliCase:
        data, suffix, how = hostile_image(self.rng)
        path = self._write(f"photo{suffix}", data)
        return CliCase("recognize: no board in the image", ["recognize", "--json", path], how, True)

    def hostile_image_calibrated(self) -> CliCase:
        data, suffix, how = hostile_image(self.rng)
        path = self._write(f"photo{suffix}", data)
        out = str(self._scratch("calibrated.json"))
        argv = ["calibrate", path, "--out", out]
        return CliCase("calibrate: no board in the image", argv, how, True)

    def hostile_run_config(self) -> CliCase:
        """A table configuration with one value no table can use (each refused at start)."""
        camera_kind, camera_index, port, data_dir, extra = "none", "0", "0", '"data"', ""
        choice = self.rng.randrange(8)
        if choice == 0:
            camera_kind, camera_index = "opencv", self.rng.choice(('"zz"', "1.5", "true", "[]"))
        elif choice == 1:
            camera_kind = self.rng.choice(("warp-drive", "", "OPENCV"))
        elif choice == 2:
            port = self.rng.choice(("70000", '"80"', "-1", "9223372036854775807"))
        elif choice == 3:
            data_dir = self.rng.choice(("5", '""', "[]"))
        elif choice == 4:
            extra = "game = 5\n"
        elif choice == 5:
            camera_kind, camera_index = "opencv", "1" + "0" * 40  # past 64-bit integers
        text = (
            f"data_dir = {data_dir}\n{extra}[web]\nport = {port}\n"
            f'[camera]\nkind = "{camera_kind}"\nindex = {camera_index}\n'
        )
        if choice == 6:
            depth = self.rng.choice((1000, 100_000))
            text = f"x = {'[' * depth}{']' * depth}\n" + text
            data, how = text.encode(), f"an array nested {depth} deep"
        elif choice == 7:
            at = self.rng.randrange(len(text))
            data = (
                text[:at].encode() + b"\xff\xfe" + random_bytes(self.rng, 16) + text[at:].encode()
            )
            how = f"bytes that are not UTF-8 at byte {at}"
        else:
            data, how = text.encode(), "one value out of range"
        path = self._write("table.toml", data)
        invalid = choice != 6
        argv = ["run", "--config", path, "--port", "0"]
        return CliCase(
            "run: hostile configuration", argv, how, invalid, data.decode("utf-8", "replace")
        )

    def hostile_simulate(self) -> CliCase:
        choice = self.rng.randrange(3)
        if choice == 0:
            argv = ["simulate", "--seed", "1", "--out", "/nonexistent-folder/sub/game.jsonl"]
            how = "--out into a folder that does not exist"
        elif choice == 1:
            argv = ["simulate", "--seed", "9" * 5000]
            how = "a 5000-digit seed"
        else:
            argv = ["simulate", "--players", self.rng.choice(("5", "0", "-1", "two"))]
            how = "a player count no game has"
        return CliCase("simulate: hostile arguments", argv, how, True)

    def _case(self, kind: str, argv: list[str], m: Mutant) -> CliCase:
        return CliCase(kind, argv, shorten(m.how, 100), m.surely_invalid, m.text)
