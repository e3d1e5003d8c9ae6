"""Board profiles: the shipped ones express the reference board; bad files are named."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from companion.boards import load_profile, profile_from_dict
from companion.errors import InputError


def troia_data() -> dict[str, Any]:
    return copy.deepcopy(load_profile("troia").to_dict())


def test_troia_reference_numbers() -> None:
    p = load_profile("troia")
    assert p.rounds == 16
    assert p.hand_size == 4
    assert [p.vat_grid[0][c] for c in range(4)] == [13, 14, 15, 16]
    # Rulebook example 2: a tile in vat 14 opens row area {13,14,15,16} and column {14,3,2,9}.
    areas = {p.area_of_line[line].vats for line in p.vat_lines[14]}
    assert areas == {(13, 14, 15, 16), (14, 3, 2, 9)}
    # Cell index i starts at 76 + 18 i + 8 (i // 4): cell 4 starts at 76 + 72 + 8.
    assert p.geometry.cell_centre_mm(4, 4) == (76 + 72 + 8 + 9, 76 + 72 + 8 + 9)
    assert p.geometry.worker_space_centre_mm(0) == (52, 85)
    assert p.geometry.worker_space_centre_mm(16 + 15) == (76 + 18 * 15 + 24 + 9, 52)
    assert p.markers.centres_mm[2] == (416, 416)
    assert p.bonus_kind[1 * 16 + 2] == "R"


def test_baelo_claudia_drops_the_diagonal() -> None:
    p = load_profile("baelo-claudia")
    assert p.rounds == 12
    assert p.hand_size == 3
    assert not {13, 3, 1, 7} & set(p.vats)
    assert all(len(a.vats) == 3 for a in p.influence_areas)
    assert p.vat_of_cell[0] is None
    assert all(p.vat_of_cell[b.cell] is not None for b in p.bonus_cells)


def test_profile_round_trips_through_its_file_format() -> None:
    p = load_profile("troia")
    assert profile_from_dict(json.loads(json.dumps(p.to_dict()))) == p


def test_user_profile_file_is_loaded(tmp_path: Path) -> None:
    data = troia_data()
    data["name"] = "my-troia"
    data["geometry_mm"]["cell"] = 18.5
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    assert load_profile(path).geometry.cell_mm == 18.5


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (lambda d: d.pop("hand_size"), "hand_size", "missing"),
        (lambda d: d["grid"]["vats"][1].__setitem__(0, 13), "grid.vats[1][0]", "appears twice"),
        (lambda d: d["bonus_cells"][0].__setitem__("kind", "X"), "bonus_cells[0].kind", "one of"),
        (
            lambda d: d["colours"]["species"].__setitem__("B", "blue"),
            "colours.species.B",
            "#RRGGBB",
        ),
        (
            lambda d: d["influence_areas"][0].__setitem__("vats", [13, 14]),
            "influence_areas[0].vats",
            "cross",
        ),
        (lambda d: d["geometry_mm"].__setitem__("cell", -1), "geometry_mm.cell", "positive"),
        (lambda d: d["geometry_mm"].__setitem__("cell", 10**40), "geometry_mm.cell", "within"),
        (lambda d: d.__setitem__("format", "v0"), "format", "expected"),
    ],
)
def test_profile_errors_name_the_field(mutate: Any, field: str, words: str) -> None:
    data = troia_data()
    mutate(data)
    with pytest.raises(InputError) as info:
        profile_from_dict(data, source="mine.json")
    assert info.value.field == field
    assert words in info.value.message
    assert str(info.value).startswith("mine.json")


def test_bonus_in_missing_vat_is_refused() -> None:
    data = copy.deepcopy(load_profile("baelo-claudia").to_dict())
    data["bonus_cells"].append({"row": 0, "col": 0, "kind": "J"})
    with pytest.raises(InputError, match="missing vat"):
        profile_from_dict(data)


def test_missing_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="built-in profiles"):
        load_profile(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "format": \n}')
    with pytest.raises(InputError) as info:
        load_profile(bad)
    assert info.value.line == 3
