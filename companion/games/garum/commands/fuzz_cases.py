"""Hostile inputs to Garum's commands, for ``companion bench fuzz``: records, board states,
profiles and photos made from real simulated games, each case saying whether it must be
refused (a record that breaks a rule, a single board state given to ``check``, a photo
with no board in it)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from companion.fuzz.hostile import Mutant, garbage, mutate_lines, mutate_value
from companion.fuzz.images import hostile_image
from companion.fuzz.tally import shorten
from companion.games.command_seam import CaseFiles, CaseMaker, CliCase
from companion.games.garum.commands.fuzz_samples import Samples, garum_samples


class GarumCliCases:
    """The case makers; ``files`` holds their input files, ``rng`` chooses every mutation."""

    def __init__(self, files: CaseFiles, rng: random.Random, samples: Samples) -> None:
        self.files = files
        self.rng = rng
        self.samples = samples

    @classmethod
    def seeded(cls, files: CaseFiles, rng: random.Random) -> GarumCliCases:
        """Samples of games drawn from ``rng`` itself, so one seed gives the same inputs."""
        return cls(files, rng, garum_samples(rng.randrange(1 << 32)))

    def weighted(self) -> Sequence[tuple[float, CaseMaker]]:
        return [
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
            (0.3, self.hostile_simulate),
        ]

    def _record(self) -> tuple[str, ...]:
        return self.rng.choice(self.samples.records)

    def _scoring_command(self) -> list[str]:
        command = self.rng.choice(("check", "score"))
        return [command, "--json"] if self.rng.random() < 0.3 else [command]

    def mutated_record(self) -> CliCase:
        m = mutate_lines(list(self._record()), self.rng)
        path = self.files.write("record.jsonl", m.data)
        return self._case("mutated record", [*self._scoring_command(), path], m)

    def mutated_state(self) -> CliCase:
        m = mutate_value(self.rng.choice(self.samples.states), self.rng)
        path = self.files.write("state.json", m.data)
        return self._case("mutated board state", ["score", path], m)

    def broken_rule(self) -> CliCase:
        lines = list(self._record())
        turns = [i for i in range(1, len(lines) - 1) if lines[i] != lines[i + 1]]
        i = self.rng.choice(turns)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        path = self.files.write("record.jsonl", "\n".join(lines).encode() + b"\n")
        how = f"turns {i} and {i + 1} swapped: two tiles at once, then one taken back"
        return CliCase("check: a rule broken", ["check", path], how, True)

    def single_state_checked(self) -> CliCase:
        data = json.dumps(self.rng.choice(self.samples.states)).encode()
        path = self.files.write("state.json", data)
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
        path = self.files.write("record.jsonl", "\n".join(lines).encode() + b"\n")
        return CliCase("check: a record without its aureus", ["check", path], how, True)

    def fractional_vat(self) -> CliCase:
        lines = list(self.rng.choice([r for r in self.samples.records if "emperor" not in r[0]]))
        header = json.loads(lines[0])
        at = self.rng.randrange(len(header["aureus"]))
        header["aureus"][at] = header["aureus"][at] + self.rng.choice((0.9, 0.5, 0.1))
        lines[0] = json.dumps(header)
        path = self.files.write("record.jsonl", "\n".join(lines).encode() + b"\n")
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
        path = self.files.write("record.jsonl", "\n".join(lines).encode() + b"\n")
        how = f"seats[{seat}].name carries terminal escape codes"
        return CliCase("score: escape codes in a name", ["score", path], how, False, "", True)

    def hostile_profile(self) -> CliCase:
        m = mutate_value(self.samples.profile, self.rng)
        board = self.files.write("board.json", m.data)
        record = self.files.write("record.jsonl", "\n".join(self._record()).encode() + b"\n")
        return self._case("hostile --board profile", ["check", record, "--board", board], m)

    def garbage_file(self) -> CliCase:
        m = garbage(self.rng)
        suffix = self.rng.choice(("jsonl", "json"))
        path = self.files.write(f"garbage.{suffix}", m.data)
        return self._case("garbage file", [*self._scoring_command(), path], m)

    def hostile_image_read(self) -> CliCase:
        data, suffix, how = hostile_image(self.rng)
        path = self.files.write(f"photo{suffix}", data)
        return CliCase("recognize: no board in the image", ["recognize", "--json", path], how, True)

    def hostile_image_calibrated(self) -> CliCase:
        data, suffix, how = hostile_image(self.rng)
        path = self.files.write(f"photo{suffix}", data)
        out = str(self.files.scratch("calibrated.json"))
        argv = ["calibrate", path, "--out", out]
        return CliCase("calibrate: no board in the image", argv, how, True)

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
