"""The command line lists no game: every registered game adds its commands and benchmarks."""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.errors import InputError
from companion.fuzz.cli_target import CliTarget
from companion.fuzz.tally import Tally
from companion.games import registry
from companion.games.command_seam import BenchTarget, CaseFiles, CaseMaker, CliCase
from companion.games.registry import games


class CountBench:
    """A bench target of the toy game: counts to ``--to`` and prints the figure."""

    NAME = "toycount"
    HELP = "count as the toy game does"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--to", type=int, default=3)

    def run(self, args: argparse.Namespace) -> int:
        print(f"counted to {sum(1 for _ in range(args.to))}")
        return 0


class ToyCommands:
    def register(self, subparsers: Any) -> None:
        parser = subparsers.add_parser("toyroll", help="roll the toy die")
        parser.add_argument("--faces", type=int, default=6)
        parser.set_defaults(handler=self.roll)

    def roll(self, args: argparse.Namespace) -> int:
        if args.faces < 1:
            raise InputError("a die needs a face", field="--faces")
        print(f"a die of {args.faces} faces")
        return 0

    def bench_targets(self) -> Sequence[BenchTarget]:
        return [CountBench()]

    def fuzz_cases(self, files: CaseFiles, rng: random.Random) -> Sequence[tuple[float, CaseMaker]]:
        def negative_faces() -> CliCase:
            faces = str(-rng.randrange(1, 100))
            return CliCase("toyroll: no faces", ["toyroll", "--faces", faces], faces, True)

        return [(1, negative_faces)]


class ToyGame:
    name = "toycli"
    title = "Toy of the command line"

    def referee(self) -> Any:
        raise NotImplementedError

    def pages(self) -> Any:
        raise NotImplementedError

    def commands(self) -> ToyCommands:
        return ToyCommands()

    def cafe(self) -> Any:
        raise NotImplementedError


@pytest.fixture
def toy() -> Iterator[ToyGame]:
    game = ToyGame()
    registry.register(game)
    try:
        yield game
    finally:
        registry.unregister(game.name)


def test_a_registered_game_brings_its_command_and_its_benchmark(
    toy: ToyGame, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["toyroll", "--faces", "8"]) == 0
    assert capsys.readouterr().out == "a die of 8 faces\n"
    assert main(["bench", "toycount", "--to", "5"]) == 0
    assert capsys.readouterr().out == "counted to 5\n"
    assert main(["toyroll", "--faces", "0"]) == 2  # its errors are one line like any other
    assert capsys.readouterr().err == "companion: error: field '--faces': a die needs a face\n"


def test_without_the_game_its_command_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["toyroll"])
    assert exit_.value.code == 2
    assert "invalid choice: 'toyroll'" in capsys.readouterr().err


def test_the_help_names_every_installed_game(
    toy: ToyGame, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for plugin in games().values():
        assert plugin.title in out
    assert "toyroll" in out


def test_the_installed_games_keep_the_spec_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    for command in ("recognize", "score", "check", "simulate", "calibrate", "markers"):
        assert f"    {command}" in listed


def test_the_fuzz_sends_a_registered_game_hostile_input_to_its_commands(
    toy: ToyGame, tmp_path: Path
) -> None:
    target = CliTarget(tmp_path, 7)
    kinds = {maker().kind for _, maker in target.generators}
    assert "toyroll: no faces" in kinds and "run: hostile configuration" in kinds
    target.generators = [(w, m) for w, m in target.generators if m().kind.startswith("toyroll")]
    tally = Tally()
    target.run(20, tally.target("cli"))
    assert tally.target("cli").sent == 20 and tally.serious == 0  # each one refused in a line


class SilentGame(ToyGame):
    name = "toysilent"
    title = "Toy without commands"

    def commands(self) -> ToyCommands:
        raise NotImplementedError


def test_a_game_without_commands_adds_none_and_breaks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry.register(SilentGame())
    try:
        with pytest.raises(SystemExit) as exit_:
            main(["bench", "--help"])
        target = CliTarget(tmp_path, 1)
    finally:
        registry.unregister(SilentGame.name)
    assert exit_.value.code == 0
    assert "rules" in capsys.readouterr().out  # every other game's benchmarks are there
    assert any(m().kind == "run: hostile configuration" for _, m in target.generators)
