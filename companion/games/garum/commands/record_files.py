"""Reading Garum files named on the command line: records and single board states."""

from __future__ import annotations

from companion import bounded_json, input_files
from companion.boards import BoardProfile, load_profile
from companion.errors import InputError
from companion.games.garum import BoardState, GameRecord, GameSetup, parse_record
from companion.games.garum.record import builtin_only, parse_header


def read_text(path: str) -> str:
    return input_files.read_text(path)


def board_loader(override: str | None):  # type: ignore[no-untyped-def]
    """Loads the header's board, or the user's profile file when ``--board`` is given."""
    if override is None:
        return builtin_only
    profile = load_profile(override)

    def load(_: str) -> BoardProfile:
        return profile

    return load


def read_record(path: str, board: str | None = None) -> GameRecord:
    return parse_record(read_text(path).splitlines(), path, board_loader(board))


def read_record_or_state(path: str, board: str | None = None) -> tuple[GameSetup, BoardState]:
    """The setup and the board to score: a record's last state, or one state file."""
    text = read_text(path)
    load_board = board_loader(board)  # a profile's own errors name the profile file
    try:
        whole = bounded_json.loads(text)
    except bounded_json.JsonInputError:
        whole = None  # not one document: read it line by line as a record
    if isinstance(whole, dict) and "cells" in whole:
        try:
            setup = parse_header({**whole, "game": "garum"}, load_board)
            state = BoardState.from_dict(whole)
        except InputError as exc:
            raise exc.located(source=path, line=1) from None
        return setup, state
    record = parse_record(text.splitlines(), path, load_board)
    return record.setup, record.states[-1] if record.states else BoardState()
