"""Board profiles: everything about a physical Garum board that is data, not rules.

A profile states the vat grid and numbering, the influence areas, the bonus cells, the hand
size and the printed geometry (millimetres on the board plane, origin at the sheet's top-left
corner, x right, y down).  Rules, vision and the dashboard all read the same profile, so an
owner who measures a real board corrects one file and nothing else.

Indexing used everywhere: a *cell* is ``row * 16 + col``; a *line* (and its worker space) is
``0..15`` for fish rows and ``16..31`` for fish columns.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from companion import bounded_json, input_files
from companion.errors import InputError

FORMAT = "companion-board-profile/1"
SPECIES = "BGYR"
BONUS_KINDS = "BGYRJ"
GRID = 16
LINES = 2 * GRID
BUILTIN = ("troia", "baelo-claudia")


def worker_strip(line: int) -> range:
    """The worker spaces on the same edge of the board as ``line``: rows 0-15 stand on the
    left edge, columns (16-31) on the top edge."""
    return range(0, GRID) if line < GRID else range(GRID, LINES)


@dataclass(frozen=True)
class BonusCell:
    row: int
    col: int
    kind: str  # a species letter, or "J" for the joker

    @property
    def cell(self) -> int:
        return self.row * GRID + self.col


@dataclass(frozen=True)
class InfluenceArea:
    axis: str  # "row" or "col"
    lines: tuple[int, ...]  # line indices 0..31
    vats: tuple[int, ...]  # vat numbers the area's lines cross


@dataclass(frozen=True)
class MarkerLayout:
    dictionary: str
    side_mm: float
    quiet_zone_mm: float
    centres_mm: dict[int, tuple[float, float]]


@dataclass(frozen=True)
class PieceSize:
    width_mm: float
    height_mm: float
    depth_mm: float


@dataclass(frozen=True)
class Geometry:
    sheet_mm: tuple[float, float]
    grid_origin_mm: tuple[float, float]
    cell_mm: float
    wall_mm: float
    row_workers_x_mm: float
    col_workers_y_mm: float
    worker_space_diameter_mm: float
    tile_side_mm: float
    tile_thickness_mm: float
    vilicus: PieceSize
    dominus: PieceSize
    # Every worker space's centre, worked out once: the vision asks for them thousands of
    # times a frame.
    _worker_centres_mm: tuple[tuple[float, float], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        centres = tuple(self._worker_space_centre_mm(line) for line in range(2 * GRID))
        object.__setattr__(self, "_worker_centres_mm", centres)

    def cell_start_mm(self, index: int) -> float:
        """Top (or left) edge of fish row (or column) ``index`` along one axis."""
        return self.cell_mm * index + self.wall_mm * (index // 4)

    def cell_corner_mm(self, row: int, col: int) -> tuple[float, float]:
        """Top-left corner of fish cell (``row``, ``col``) on the sheet."""
        return (
            self.grid_origin_mm[0] + self.cell_start_mm(col),
            self.grid_origin_mm[1] + self.cell_start_mm(row),
        )

    def cell_centre_mm(self, row: int, col: int) -> tuple[float, float]:
        x, y = self.cell_corner_mm(row, col)
        half = self.cell_mm / 2
        return (x + half, y + half)

    def worker_space_centre_mm(self, line: int) -> tuple[float, float]:
        """Centre of the printed worker circle of ``line`` (rows 0-15, columns 16-31)."""
        return self._worker_centres_mm[line]

    def _worker_space_centre_mm(self, line: int) -> tuple[float, float]:
        if line < GRID:
            return (self.row_workers_x_mm, self.cell_centre_mm(line, 0)[1])
        return (self.cell_centre_mm(0, line - GRID)[0], self.col_workers_y_mm)


@dataclass(frozen=True)
class Colours:
    sheet: str
    vat_floor: str
    wall: str
    species: dict[str, str]


@dataclass(frozen=True)
class BoardProfile:
    """One physical board side, validated; derived lookup tables are precomputed."""

    name: str
    title: str
    vat_grid: tuple[tuple[int | None, ...], ...]
    influence_areas: tuple[InfluenceArea, ...]
    hand_size: int
    score_track_length: int
    bonus_cells: tuple[BonusCell, ...]
    geometry: Geometry
    markers: MarkerLayout
    colours: Colours
    calibration: dict[str, Any] | None = None
    # Derived tables (filled in __post_init__).
    vats: tuple[int, ...] = field(init=False)
    vat_position: dict[int, tuple[int, int]] = field(init=False)
    vat_of_cell: tuple[int | None, ...] = field(init=False)
    vat_cells: dict[int, tuple[int, ...]] = field(init=False)
    vat_slots: dict[int, tuple[tuple[int, int, int, int], ...]] = field(init=False)
    slots: tuple[tuple[int, int, int, int], ...] = field(init=False)  # every vat's, in turn
    vat_lines: dict[int, tuple[int, ...]] = field(init=False)
    area_of_line: tuple[InfluenceArea, ...] = field(init=False)
    line_cells: tuple[tuple[int, ...], ...] = field(init=False)
    bonus_kind: dict[int, str] = field(init=False)
    vat_areas: dict[int, tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]] = field(init=False)

    def __post_init__(self) -> None:
        positions: dict[int, tuple[int, int]] = {}
        for vr, row in enumerate(self.vat_grid):
            for vc, vat in enumerate(row):
                if vat is not None:
                    positions[vat] = (vr, vc)
        vat_of_cell: list[int | None] = [None] * (GRID * GRID)
        vat_cells: dict[int, tuple[int, ...]] = {}
        vat_slots: dict[int, tuple[tuple[int, int, int, int], ...]] = {}
        vat_lines: dict[int, tuple[int, ...]] = {}
        for vat, (vr, vc) in positions.items():
            r0, c0 = vr * 4, vc * 4
            cells = tuple((r0 + r) * GRID + c0 + c for r in range(4) for c in range(4))
            for cell in cells:
                vat_of_cell[cell] = vat
            vat_cells[vat] = cells
            slots = []
            for sr in (0, 2):
                for sc in (0, 2):
                    top = (r0 + sr) * GRID + c0 + sc
                    slots.append((top, top + 1, top + GRID, top + GRID + 1))
            vat_slots[vat] = tuple(slots)
            vat_lines[vat] = tuple(range(r0, r0 + 4)) + tuple(GRID + c for c in range(c0, c0 + 4))
        area_of_line: list[InfluenceArea | None] = [None] * LINES
        for area in self.influence_areas:
            for line in area.lines:
                area_of_line[line + (GRID if area.axis == "col" else 0)] = area
        line_cells = tuple(tuple(r * GRID + c for c in range(GRID)) for r in range(GRID)) + tuple(
            tuple(r * GRID + c for r in range(GRID)) for c in range(GRID)
        )
        set_ = object.__setattr__
        set_(self, "vats", tuple(sorted(positions)))
        set_(self, "vat_position", positions)
        set_(self, "vat_of_cell", tuple(vat_of_cell))
        set_(self, "vat_cells", vat_cells)
        set_(self, "vat_slots", vat_slots)
        set_(self, "slots", tuple(slot for slots in vat_slots.values() for slot in slots))
        set_(self, "vat_lines", vat_lines)
        set_(self, "area_of_line", tuple(a for a in area_of_line if a is not None))
        set_(self, "line_cells", line_cells)
        set_(self, "bonus_kind", {b.cell: b.kind for b in self.bonus_cells})
        # For each vat: (its lines in one area, that area's other vats), per area crossed.
        vat_areas: dict[int, tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]] = {}
        for vat, lines in vat_lines.items():
            groups: dict[int, list[int]] = {}
            for line in lines:
                groups.setdefault(id(area_of_line[line]), []).append(line)
            vat_areas[vat] = tuple(
                (
                    tuple(group),
                    tuple(v for v in self.area_of_line[group[0]].vats if v != vat),
                )
                for group in groups.values()
            )
        set_(self, "vat_areas", vat_areas)

    @property
    def rounds(self) -> int:
        """One round per vat; every vat receives one tile of each colour."""
        return len(self.vats)

    @property
    def tiles_per_colour(self) -> int:
        return len(self.vats)

    def vats_of(self, cells: Iterable[int]) -> list[int]:
        """The vats holding any of ``cells``, in order, each once (a cell outside every vat,
        on Baelo Claudia's missing ones, names none)."""
        return sorted({vat for cell in cells if (vat := self.vat_of_cell[cell]) is not None})

    def area_vats_closed(self, line: int, full_vats: frozenset[int], round_vat: int) -> bool:
        """True when every vat of ``line``'s area other than ``round_vat`` is full."""
        area = self.area_of_line[line]
        return all(v in full_vats for v in area.vats if v != round_vat)

    def to_dict(self) -> dict[str, Any]:
        """The profile in its file format (derived tables omitted)."""
        g = self.geometry
        data: dict[str, Any] = {
            "format": FORMAT,
            "name": self.name,
            "title": self.title,
            "grid": {"size": GRID, "vat_cells": 4, "vats": [list(r) for r in self.vat_grid]},
            "influence_areas": [
                {"axis": a.axis, "lines": list(a.lines), "vats": list(a.vats)}
                for a in self.influence_areas
            ],
            "hand_size": self.hand_size,
            "score_track_length": self.score_track_length,
            "bonus_cells": [{"row": b.row, "col": b.col, "kind": b.kind} for b in self.bonus_cells],
            "geometry_mm": {
                "sheet": list(g.sheet_mm),
                "grid_origin": list(g.grid_origin_mm),
                "cell": g.cell_mm,
                "wall": g.wall_mm,
                "row_workers_x": g.row_workers_x_mm,
                "col_workers_y": g.col_workers_y_mm,
                "worker_space_diameter": g.worker_space_diameter_mm,
                "tile": {"side": g.tile_side_mm, "thickness": g.tile_thickness_mm},
                "vilicus": _piece_dict(g.vilicus),
                "dominus": _piece_dict(g.dominus),
            },
            "markers": {
                "dictionary": self.markers.dictionary,
                "side_mm": self.markers.side_mm,
                "quiet_zone_mm": self.markers.quiet_zone_mm,
                "centres_mm": {str(k): list(v) for k, v in self.markers.centres_mm.items()},
            },
            "colours": {
                "sheet": self.colours.sheet,
                "vat_floor": self.colours.vat_floor,
                "wall": self.colours.wall,
                "species": dict(self.colours.species),
            },
        }
        if self.calibration is not None:
            data["calibration"] = self.calibration
        return data


def _piece_dict(p: PieceSize) -> dict[str, float]:
    return {"width": p.width_mm, "height": p.height_mm, "depth": p.depth_mm}


# --------------------------------------------------------------------------- loading


# No measure of a real board (or of a piece on it) comes near ten metres.
MAX_BOARD_MM = 10_000.0


class _Reader:
    """Typed accessors that raise :class:`InputError` naming the field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> InputError:
        return InputError(message, source=self.source, field=path)

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {_kind(value)}")
        return value

    def get(self, data: dict[str, Any], key: str, path: str) -> Any:
        if key not in data:
            raise self.fail(f"{path}.{key}" if path else key, "missing")
        return data[key]

    def num(self, value: Any, path: str, *, positive: bool = True) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(path, f"expected a number, got {_kind(value)}")
        if not -MAX_BOARD_MM <= value <= MAX_BOARD_MM:
            raise self.fail(path, f"must be within ±{MAX_BOARD_MM:g} mm, got {value:.3g}")
        if positive and value <= 0:
            raise self.fail(path, f"must be positive, got {value}")
        return float(value)

    def integer(self, value: Any, path: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected an integer, got {_kind(value)}")
        if not lo <= value <= hi:
            raise self.fail(path, f"must be between {lo} and {hi}, got {value}")
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"expected a non-empty string, got {_kind(value)}")
        return value

    def colour(self, value: Any, path: str) -> str:
        text = self.string(value, path)
        if (
            len(text) != 7
            or text[0] != "#"
            or any(ch not in "0123456789abcdefABCDEF" for ch in text[1:])
        ):
            raise self.fail(path, f"expected a colour like '#RRGGBB', got {text!r}")
        return text.upper()

    def point(self, value: Any, path: str) -> tuple[float, float]:
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(path, "expected [x, y]")
        return (
            self.num(value[0], f"{path}[0]", positive=False),
            self.num(value[1], f"{path}[1]", positive=False),
        )

    def array(self, value: Any, path: str, length: int | None = None) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {_kind(value)}")
        if length is not None and len(value) != length:
            raise self.fail(path, f"expected {length} entries, got {len(value)}")
        return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def profile_from_dict(data: Any, source: str = "<profile>") -> BoardProfile:
    """Validates ``data`` (a parsed profile file) and builds the profile."""
    rd = _Reader(source)
    top = rd.obj(data, "profile")
    fmt = rd.get(top, "format", "")
    if fmt != FORMAT:
        raise rd.fail("format", f"expected {FORMAT!r}, got {fmt!r}")
    name = rd.string(rd.get(top, "name", ""), "name")
    title = rd.string(top.get("title", name), "title")

    grid = rd.obj(rd.get(top, "grid", ""), "grid")
    if grid.get("size", GRID) != GRID or grid.get("vat_cells", 4) != 4:
        raise rd.fail("grid", "only a 16 x 16 fish grid of 4 x 4 vats is supported")
    rows = rd.array(rd.get(grid, "vats", "grid"), "grid.vats", 4)
    vat_grid: list[tuple[int | None, ...]] = []
    seen: set[int] = set()
    for vr, row in enumerate(rd.array(r, f"grid.vats[{i}]", 4) for i, r in enumerate(rows)):
        out: list[int | None] = []
        for vc, vat in enumerate(row):
            path = f"grid.vats[{vr}][{vc}]"
            if vat is None:
                out.append(None)
                continue
            number = rd.integer(vat, path, 1, 99)
            if number in seen:
                raise rd.fail(path, f"vat number {number} appears twice")
            seen.add(number)
            out.append(number)
        vat_grid.append(tuple(out))
    if len(seen) < 2:
        raise rd.fail("grid.vats", "a board needs at least two vats")

    areas = _areas(rd, top.get("influence_areas"), vat_grid)
    hand_size = rd.integer(rd.get(top, "hand_size", ""), "hand_size", 1, 16)
    track = rd.integer(top.get("score_track_length", 25), "score_track_length", 10, 200)

    bonus: list[BonusCell] = []
    taken: set[tuple[int, int]] = set()
    for i, entry in enumerate(rd.array(top.get("bonus_cells", []), "bonus_cells")):
        path = f"bonus_cells[{i}]"
        entry = rd.obj(entry, path)
        b_row = rd.integer(rd.get(entry, "row", path), f"{path}.row", 0, GRID - 1)
        b_col = rd.integer(rd.get(entry, "col", path), f"{path}.col", 0, GRID - 1)
        kind = rd.get(entry, "kind", path)
        if kind not in tuple(BONUS_KINDS):
            raise rd.fail(f"{path}.kind", f"expected one of B, G, Y, R or J, got {kind!r}")
        if vat_grid[b_row // 4][b_col // 4] is None:
            raise rd.fail(path, f"cell ({b_row}, {b_col}) lies in a missing vat")
        if (b_row, b_col) in taken:
            raise rd.fail(path, f"cell ({b_row}, {b_col}) has two bonuses")
        taken.add((b_row, b_col))
        bonus.append(BonusCell(b_row, b_col, kind))

    geometry = _geometry(rd, rd.obj(rd.get(top, "geometry_mm", ""), "geometry_mm"))
    markers = _markers(rd, rd.obj(rd.get(top, "markers", ""), "markers"))
    colours = _colours(rd, rd.obj(rd.get(top, "colours", ""), "colours"))
    calibration = top.get("calibration")
    if calibration is not None:
        calibration = rd.obj(calibration, "calibration")
    return BoardProfile(
        name=name,
        title=title,
        vat_grid=tuple(vat_grid),
        influence_areas=areas,
        hand_size=hand_size,
        score_track_length=track,
        bonus_cells=tuple(bonus),
        geometry=geometry,
        markers=markers,
        colours=colours,
        calibration=calibration,
    )


def _areas(
    rd: _Reader, value: Any, vat_grid: list[tuple[int | None, ...]]
) -> tuple[InfluenceArea, ...]:
    """Reads the influence areas, or derives them (a row or column of vats each)."""
    if value is None:
        derived = []
        for i in range(4):
            derived.append(
                InfluenceArea(
                    "row", tuple(range(4 * i, 4 * i + 4)), tuple(v for v in vat_grid[i] if v)
                )
            )
        for i in range(4):
            col = tuple(vat_grid[r][i] for r in range(4))
            derived.append(
                InfluenceArea("col", tuple(range(4 * i, 4 * i + 4)), tuple(v for v in col if v))
            )
        return tuple(derived)
    areas: list[InfluenceArea] = []
    covered: dict[str, set[int]] = {"row": set(), "col": set()}
    for i, entry in enumerate(rd.array(value, "influence_areas")):
        path = f"influence_areas[{i}]"
        entry = rd.obj(entry, path)
        axis = rd.get(entry, "axis", path)
        if axis not in ("row", "col"):
            raise rd.fail(f"{path}.axis", f"expected 'row' or 'col', got {axis!r}")
        lines = tuple(
            rd.integer(x, f"{path}.lines[{j}]", 0, GRID - 1)
            for j, x in enumerate(rd.array(rd.get(entry, "lines", path), f"{path}.lines"))
        )
        vats = tuple(
            rd.integer(x, f"{path}.vats[{j}]", 1, 99)
            for j, x in enumerate(rd.array(rd.get(entry, "vats", path), f"{path}.vats"))
        )
        if not lines:
            raise rd.fail(f"{path}.lines", "an area needs at least one line")
        for line in lines:
            if line in covered[axis]:
                raise rd.fail(f"{path}.lines", f"{axis} line {line} belongs to two areas")
            covered[axis].add(line)
        crossed: set[int] = set()
        for line in lines:
            band = line // 4
            cells = vat_grid[band] if axis == "row" else tuple(r[band] for r in vat_grid)
            crossed.update(v for v in cells if v is not None)
        if set(vats) != crossed:
            raise rd.fail(
                f"{path}.vats",
                f"the lines cross vats {sorted(crossed)}, but the area lists {sorted(vats)}",
            )
        areas.append(InfluenceArea(axis, lines, vats))
    for axis, lines_seen in covered.items():
        missing = sorted(set(range(GRID)) - lines_seen)
        if missing:
            raise rd.fail("influence_areas", f"{axis} lines {missing} belong to no area")
    return tuple(areas)


def _piece(rd: _Reader, value: Any, path: str) -> PieceSize:
    d = rd.obj(value, path)
    return PieceSize(
        rd.num(rd.get(d, "width", path), f"{path}.width"),
        rd.num(rd.get(d, "height", path), f"{path}.height"),
        rd.num(rd.get(d, "depth", path), f"{path}.depth"),
    )


def _geometry(rd: _Reader, g: dict[str, Any]) -> Geometry:
    p = "geometry_mm"
    sheet = rd.point(rd.get(g, "sheet", p), f"{p}.sheet")
    tile = rd.obj(rd.get(g, "tile", p), f"{p}.tile")
    geometry = Geometry(
        sheet_mm=sheet,
        grid_origin_mm=rd.point(rd.get(g, "grid_origin", p), f"{p}.grid_origin"),
        cell_mm=rd.num(rd.get(g, "cell", p), f"{p}.cell"),
        wall_mm=rd.num(rd.get(g, "wall", p), f"{p}.wall", positive=False),
        row_workers_x_mm=rd.num(rd.get(g, "row_workers_x", p), f"{p}.row_workers_x"),
        col_workers_y_mm=rd.num(rd.get(g, "col_workers_y", p), f"{p}.col_workers_y"),
        worker_space_diameter_mm=rd.num(
            rd.get(g, "worker_space_diameter", p), f"{p}.worker_space_diameter"
        ),
        tile_side_mm=rd.num(rd.get(tile, "side", f"{p}.tile"), f"{p}.tile.side"),
        tile_thickness_mm=rd.num(rd.get(tile, "thickness", f"{p}.tile"), f"{p}.tile.thickness"),
        vilicus=_piece(rd, rd.get(g, "vilicus", p), f"{p}.vilicus"),
        dominus=_piece(rd, rd.get(g, "dominus", p), f"{p}.dominus"),
    )
    end = geometry.grid_origin_mm[0] + geometry.cell_start_mm(GRID - 1) + geometry.cell_mm
    bottom = geometry.grid_origin_mm[1] + geometry.cell_start_mm(GRID - 1) + geometry.cell_mm
    if end > sheet[0] or bottom > sheet[1]:
        raise rd.fail(p, f"the fish grid ends at ({end:g}, {bottom:g}) mm, outside the sheet")
    return geometry


def _markers(rd: _Reader, m: dict[str, Any]) -> MarkerLayout:
    p = "markers"
    dictionary = rd.string(rd.get(m, "dictionary", p), f"{p}.dictionary")
    if not dictionary.startswith("DICT_"):
        raise rd.fail(f"{p}.dictionary", f"expected an ArUco dictionary name, got {dictionary!r}")
    centres_raw = rd.obj(rd.get(m, "centres_mm", p), f"{p}.centres_mm")
    centres: dict[int, tuple[float, float]] = {}
    for key, value in centres_raw.items():
        if not key.isdigit():
            raise rd.fail(f"{p}.centres_mm", f"marker ids are integers, got {key!r}")
        centres[int(key)] = rd.point(value, f"{p}.centres_mm.{key}")
    if len(centres) < 3:
        raise rd.fail(f"{p}.centres_mm", "at least three markers are needed to find the board")
    return MarkerLayout(
        dictionary=dictionary,
        side_mm=rd.num(rd.get(m, "side_mm", p), f"{p}.side_mm"),
        quiet_zone_mm=rd.num(m.get("quiet_zone_mm", 0), f"{p}.quiet_zone_mm", positive=False),
        centres_mm=centres,
    )


def _colours(rd: _Reader, c: dict[str, Any]) -> Colours:
    p = "colours"
    species_raw = rd.obj(rd.get(c, "species", p), f"{p}.species")
    species = {}
    for letter in SPECIES:
        species[letter] = rd.colour(
            rd.get(species_raw, letter, f"{p}.species"), f"{p}.species.{letter}"
        )
    return Colours(
        sheet=rd.colour(rd.get(c, "sheet", p), f"{p}.sheet"),
        vat_floor=rd.colour(rd.get(c, "vat_floor", p), f"{p}.vat_floor"),
        wall=rd.colour(rd.get(c, "wall", p), f"{p}.wall"),
        species=species,
    )


_cache: dict[str, BoardProfile] = {}


def load_profile(name_or_path: str | Path) -> BoardProfile:
    """A built-in profile by name (``troia``, ``baelo-claudia``) or a profile file by path."""
    key = str(name_or_path)
    if key in BUILTIN:
        if key not in _cache:
            text = resources.files("companion.boards").joinpath(f"profiles/{key}.json").read_text()
            _cache[key] = profile_from_dict(json.loads(text), source=f"built-in profile {key}")
        return _cache[key]
    path = Path(key)
    if not path.exists():
        raise InputError(
            f"no such board profile (built-in profiles: {', '.join(BUILTIN)})", source=key
        )
    text = input_files.read_text(path, what="board profile")
    try:
        data = bounded_json.loads(text)
    except bounded_json.JsonInputError as exc:
        raise InputError(exc.message, source=key, line=exc.line) from None
    return profile_from_dict(data, source=key)
