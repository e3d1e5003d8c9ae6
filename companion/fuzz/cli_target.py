"""Hostile files and arguments for the command line, run in-process through ``main(argv)``.

Each case says whether its input must be refused (exit status non-zero).  Every registered
game brings the cases for its own commands (:meth:`GameCommands.fuzz_cases`); the table's
``run`` configuration is fuzzed here.  A case that exits 0 on input it must refuse is
*accepted invalid*; an exception escaping ``main`` or a traceback on stderr is a *crash*.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import companion.cli
from companion.fuzz.hostile import random_bytes
from companion.fuzz.inprocess import Outcome, call
from companion.fuzz.tally import ACCEPTED_INVALID, CRASH, HANG, TargetTally, shorten
from companion.games.command_seam import CaseMaker, CliCase, commands_of
from companion.games.registry import games
from companion.progress import Progress

Entry = Callable[[Sequence[str]], int]
ESCAPE = "\x1b"
RUN_LIMIT_S = 5.0


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
    ) -> None:
        self.dir = workdir
        self.rng = random.Random(seed)
        self.entry = entry
        self.timeout_s = timeout_s
        self._written: list[Path] = []
        self.generators: list[tuple[float, CaseMaker]] = [(2, self.hostile_run_config)]
        for plugin in games().values():
            self.generators += commands_of(plugin).fuzz_cases(self, self.rng)

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

    def write(self, name: str, data: bytes) -> str:
        path = self.scratch(name)
        path.write_bytes(data)
        return str(path)

    def scratch(self, name: str) -> Path:
        """A fresh file name for this input, removed after it (rewriting one file in place
        makes the file system flush it, a hundred times slower)."""
        path = self.dir / f"{len(self._written)}-{name}"
        self._written.append(path)
        return path

    def _clean(self) -> None:
        for path in self._written:
            path.unlink(missing_ok=True)
        self._written.clear()

    # -- generators ------------------------------------------------------------------------

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
        path = self.write("table.toml", data)
        invalid = choice != 6
        argv = ["run", "--config", path, "--port", "0"]
        return CliCase(
            "run: hostile configuration", argv, how, invalid, data.decode("utf-8", "replace")
        )
