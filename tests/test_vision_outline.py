"""Floor whose colour the light bent is proven empty by its slot's outline; a washed tile
never is."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.boards import GRID, load_profile
from companion.vision.bench import generated_photo
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import ColourModel
from companion.vision.floor import CellColour, FloorModel
from companion.vision.outline import (
    OutlineRules,
    SlotOutlines,
    _quantile,
    doubt_floor_by_walls,
    prove_floor_by_outline,
)
from companion.vision.reader import BoardReader
from companion.vision.render import random_state, render, shot_for

PROFILE = load_profile("troia")
MODEL = ColourModel.from_profile(PROFILE)
OUTLINES = SlotOutlines(PROFILE, OutlineRules())
GEOMETRY = PROFILE.geometry
FRAME_PX_PER_MM = 2.0  # about what a 1280 x 960 sensor mode gives over this board
HOMOGRAPHY = np.diag([FRAME_PX_PER_MM, FRAME_PX_PER_MM, 1.0])
WASHED_FLOOR = (238, 246, 250)  # BGR: the cream floor, two channels near the limit
# Two slots side by side in one vat, and one in the next vat along.
VAT_SLOTS = PROFILE.vat_slots[PROFILE.vats[0]]
LEFT, RIGHT = VAT_SLOTS[0], VAT_SLOTS[1]
FAR = PROFILE.vat_slots[PROFILE.vats[-1]][3]


def _slot_rect_px(slot: tuple[int, ...]) -> tuple[float, float, float]:
    row, col = divmod(slot[0], GRID)
    x = GEOMETRY.grid_origin_mm[0] + GEOMETRY.cell_start_mm(col)
    y = GEOMETRY.grid_origin_mm[1] + GEOMETRY.cell_start_mm(row)
    return x * FRAME_PX_PER_MM, y * FRAME_PX_PER_MM, 2 * GEOMETRY.cell_mm * FRAME_PX_PER_MM


def _frame(tiles: list[tuple[int, ...]], dashes: bool = True) -> NDArray[np.uint8]:
    """The board seen straight down in glare: washed floor with its printed dashes, and a
    tile, turned a little and washed near white, in each of ``tiles``."""
    w, h = (round(v * FRAME_PX_PER_MM) for v in GEOMETRY.sheet_mm)
    image = np.full((h, w, 3), WASHED_FLOOR, dtype=np.uint8)
    if dashes:
        for slot in PROFILE.slots:
            x, y, side = _slot_rect_px(slot)
            for k in range(0, int(side), 6):
                cv2.line(image, (int(x + k), int(y)), (int(x + k + 3), int(y)), (222, 230, 235), 1)
    for slot in tiles:
        x, y, side = _slot_rect_px(slot)
        centre = (x + side / 2 + 1.0, y + side / 2 - 0.5)
        box = cv2.boxPoints((centre, (side - 1.0, side - 1.0), 2.0)).astype(np.int32)
        cv2.fillConvexPoly(image, box, (246, 250, 252))
        cv2.polylines(image, [box], True, (40, 40, 45), 2)  # the gap and shadowed side face
    return np.asarray(cv2.GaussianBlur(image, (3, 3), 0.8), dtype=np.uint8)


def _glare(washed: bool = True) -> tuple[CellColour, FloorModel]:
    """Every cell shows the floor's own chroma, clipped (or not) by glare."""
    a = np.full(GRID * GRID, MODEL.floor_ab[0])
    b = np.full(GRID * GRID, MODEL.floor_ab[1])
    clipped = np.full(GRID * GRID, float(washed))  # two channels at the limit, so any
    colour = CellColour(np.full(GRID * GRID, 240.0), a, b, clipped, clipped.copy())
    floor = FloorModel(
        a.copy(),
        b.copy(),
        np.linspace(0.0, 255.0, 5)[None, :],
        np.zeros((1, 5)),
        np.zeros((1, 5)),
        np.zeros(GRID * GRID, dtype=np.intp),
    )
    return colour, floor


def _prove(
    frame: NDArray[np.uint8], washed: bool = True, hidden: frozenset[int] = frozenset()
) -> str:
    colour, floor = _glare(washed)
    cells = prove_floor_by_outline(
        ["?"] * (GRID * GRID), colour, floor, OUTLINES, frame, HOMOGRAPHY, hidden
    )
    return "".join(cells)


def test_a_washed_tiles_outline_is_an_edge_and_bare_floors_dashes_are_not() -> None:
    frame = _frame([LEFT])
    rules = OUTLINES.rules
    assert OUTLINES.strongest_edge(frame, HOMOGRAPHY, LEFT) >= rules.edge_min
    assert OUTLINES.strongest_edge(frame, HOMOGRAPHY, FAR) < rules.edge_min


def test_a_tiles_own_edge_shows_along_the_walls_and_a_neighbours_does_not() -> None:
    frame = _frame([LEFT])
    rules = OUTLINES.rules
    assert OUTLINES.own_edge(frame, HOMOGRAPHY, LEFT) >= rules.own_edge_min
    # Beside it, the tile's edge lies on the side the two slots share: an edge, but not
    # the bare slot's own.
    assert OUTLINES.strongest_edge(frame, HOMOGRAPHY, RIGHT) >= rules.edge_min
    assert OUTLINES.own_edge(frame, HOMOGRAPHY, RIGHT) < rules.own_edge_min
    assert OUTLINES.own_edge(frame, HOMOGRAPHY, FAR) < rules.own_edge_min


def test_a_slot_with_a_quiet_outline_is_proven_empty_and_a_washed_tile_stays_unread() -> None:
    cells = _prove(_frame([LEFT]))
    assert [cells[i] for i in LEFT] == ["?"] * 4
    assert [cells[i] for i in FAR] == ["."] * 4


def test_bare_floor_beside_a_tile_stays_unread() -> None:
    # The tile's edge lies on the side the two slots share: no side-by-side proof.
    cells = _prove(_frame([LEFT]))
    assert [cells[i] for i in RIGHT] == ["?"] * 4


def test_bare_floor_beside_a_tile_read_for_sure_is_proven_by_its_other_sides() -> None:
    # The tile beside is read: its edge on the shared side says nothing of this slot, and
    # the other three sides are quiet.  A washed tile beside a read one still shows its
    # own edge on its other sides.  (Before, any tile beside kept the slot unread: bare
    # floor in an overexposed frame stayed "?" beside a yellow tile.)
    colour, floor = _glare()
    cells = ["?"] * (GRID * GRID)
    for i in LEFT:
        cells[i] = "Y"
    out = prove_floor_by_outline(cells, colour, floor, OUTLINES, _frame([LEFT]), HOMOGRAPHY)
    assert [out[i] for i in RIGHT] == ["."] * 4
    out = prove_floor_by_outline(cells, colour, floor, OUTLINES, _frame([LEFT, RIGHT]), HOMOGRAPHY)
    assert [out[i] for i in RIGHT] == ["?"] * 4


def test_only_clipped_cells_are_proven_by_their_outline() -> None:
    # A cell unread with a channel to spare was refused by the colour proof for a reason
    # of its own; the outline does not overrule it.
    cells = _prove(_frame([]), washed=False)
    assert set(cells) == {"?"}


def test_clipped_floor_bent_off_the_floors_chroma_is_proven_by_a_quiet_outline() -> None:
    # Clipping two channels bends the floor's chroma past the colour proof's 4 Lab units
    # (photoreal glare: up to 7): a quiet outline still proves the slot bare; a cell
    # further off than clipped floor lies is left to the other passes.
    colour, floor = _glare()
    for offset, proven in ((6.0, True), (10.0, False)):
        bent = replace(
            colour, b=colour.b + np.where(np.isin(np.arange(GRID * GRID), FAR), offset, 0)
        )
        cells = prove_floor_by_outline(
            ["?"] * (GRID * GRID), bent, floor, OUTLINES, _frame([]), HOMOGRAPHY
        )
        assert [cells[i] for i in FAR] == (["."] * 4 if proven else ["?"] * 4), offset
        assert [cells[i] for i in LEFT] == ["."] * 4


def test_floor_clipped_in_one_channel_only_is_proven_by_a_quiet_outline() -> None:
    # The cream floor clips red first: bent a little off the floor's chroma, with two
    # channels to spare, it is still glare's doing, and a quiet outline proves it.
    colour, floor = _glare()
    one = replace(
        colour,
        b=colour.b + 5.0,
        washed_out=np.zeros(GRID * GRID),
        clipped=np.ones(GRID * GRID),
    )
    cells = prove_floor_by_outline(
        ["?"] * (GRID * GRID), one, floor, OUTLINES, _frame([LEFT]), HOMOGRAPHY
    )
    assert [cells[i] for i in FAR] == ["."] * 4
    assert [cells[i] for i in LEFT] == ["?"] * 4  # the washed tile's edge still shows


def test_nearly_white_floor_clipped_in_its_brightest_channel_is_proven_far_off_its_chroma() -> None:
    # A bright spot takes the cream floor's red far past the limit: balanced, the chroma
    # bends 10 to 18 Lab units off (conditions 99049).  Nearly white, clipped in red
    # alone and showing no tile's colour, a quiet outline still proves it bare.  Less
    # bright, clipped in two channels or in one the floor does not hold highest (glare
    # on a green tile), or showing a tile's colour, it stays unread; and a tile's edge,
    # however faint, keeps it unread.
    colour, floor = _glare()
    far = np.isin(np.arange(GRID * GRID), FAR)
    everywhere = np.ones(GRID * GRID, dtype=bool)
    red_alone = np.zeros((GRID * GRID, 3))
    red_alone[:, 2] = 1.0
    bent = replace(
        colour,
        lightness=np.full(GRID * GRID, 246.0),
        a=colour.a - np.where(far, 14.0, 0.0),
        b=colour.b - np.where(far, 9.0, 0.0),
        washed_out=np.zeros(GRID * GRID),
        clipped=np.ones(GRID * GRID),
        channel_clipped=red_alone,
    )

    def prove(
        shown: CellColour, colourless: NDArray[np.bool_] = everywhere, tiles: int = 0
    ) -> list[str]:
        frame = _frame([LEFT])
        if tiles:
            x, y, side = _slot_rect_px(FAR)
            box = np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.int32)
            cv2.polylines(frame, [box], True, (250 - tiles,) * 3, 2)
        cells = prove_floor_by_outline(
            ["?"] * (GRID * GRID),
            shown,
            floor,
            OUTLINES,
            frame,
            HOMOGRAPHY,
            colourless=colourless,
        )
        return [cells[i] for i in FAR]

    assert prove(bent) == ["."] * 4
    assert prove(replace(bent, lightness=np.full(GRID * GRID, 225.0))) == ["?"] * 4
    assert prove(replace(bent, washed_out=np.ones(GRID * GRID))) == ["?"] * 4
    green_alone = np.roll(red_alone, -1, axis=1)
    assert prove(replace(bent, channel_clipped=green_alone)) == ["?"] * 4
    assert prove(bent, ~everywhere) == ["?"] * 4
    further = replace(bent, b=bent.b - np.where(far, 15.0, 0.0))
    assert prove(further) == ["?"] * 4
    # An edge 15 grey levels dark: below the bar for floor near its own chroma, above the
    # one for floor this far off.
    assert prove(replace(colour, channel_clipped=red_alone), tiles=15) == ["."] * 4
    assert prove(bent, tiles=15) == ["?"] * 4


def test_unclipped_colourless_floor_in_fair_light_is_proven_by_a_quiet_outline() -> None:
    # A shadow's edge across a bare slot, or a tinted lamp, blurs its printed dashes
    # below the print proof's bar (conditions 97002, 93147); cells showing no tile's
    # colour, near the floor's in a fair light, are bare if no tile's edge shows.  In a
    # deep shadow a tile's ink and edge both fade: there the outline proves nothing, nor
    # for cells showing a tile's colour, nor for cells off the floor's chroma.
    colour, floor = _glare(washed=False)
    everywhere = np.ones(GRID * GRID, dtype=bool)

    def prove(shown: CellColour, colourless: NDArray[np.bool_]) -> str:
        return "".join(
            prove_floor_by_outline(
                ["?"] * (GRID * GRID),
                shown,
                floor,
                OUTLINES,
                _frame([LEFT]),
                HOMOGRAPHY,
                colourless=colourless,
            )
        )

    fair = replace(colour, lightness=np.full(GRID * GRID, 150.0))
    cells = prove(fair, everywhere)
    assert [cells[i] for i in FAR] == ["."] * 4
    assert [cells[i] for i in LEFT] == ["?"] * 4  # the tile's edge shows
    assert set(prove(fair, ~everywhere)) == {"?"}
    dark = replace(colour, lightness=np.full(GRID * GRID, 60.0))
    assert set(prove(dark, everywhere)) == {"?"}
    tinted = replace(fair, b=fair.b + 10.0)
    assert set(prove(tinted, everywhere)) == {"?"}


def test_cells_under_an_arm_are_never_proven() -> None:
    cells = _prove(_frame([]), hidden=frozenset({FAR[0]}))
    assert [cells[i] for i in FAR] == ["?"] * 4
    assert [cells[i] for i in LEFT] == ["."] * 4


def test_slots_with_a_read_species_are_left_to_the_other_passes() -> None:
    colour, floor = _glare()
    cells = ["?"] * (GRID * GRID)
    cells[FAR[1]] = "Y"
    out = prove_floor_by_outline(cells, colour, floor, OUTLINES, _frame([]), HOMOGRAPHY)
    assert [out[i] for i in FAR] == ["?", "Y", "?", "?"]


LAYOUT = CanonicalLayout(PROFILE)


def _doubt(
    tiles: list[tuple[int, ...]],
    cells: list[str] | None = None,
    lightness: NDArray[np.float64] | None = None,
) -> str:
    """``cells`` (every cell read bare unless given) checked against the board's view in
    glare with tiles in ``tiles``; every cell as light as glare makes it unless given."""
    view = LAYOUT.warp(_frame(tiles), HOMOGRAPHY)
    read = ["."] * (GRID * GRID) if cells is None else cells
    light = np.full(GRID * GRID, 240.0) if lightness is None else lightness
    return "".join(doubt_floor_by_walls(read, OUTLINES, view, LAYOUT.px_per_mm, light))


def test_a_tile_washed_to_the_floors_colour_shows_its_edge_along_the_vat_walls() -> None:
    assert OUTLINES.wall_edge(LAYOUT.warp(_frame([LEFT]), HOMOGRAPHY), LAYOUT.px_per_mm, LEFT) >= (
        OUTLINES.rules.wall_edge_min
    )
    cells = _doubt([LEFT])
    assert [cells[i] for i in LEFT] == ["?"] * 4
    # Beside it, its edge lies on the side the two slots share, not along a wall.
    assert [cells[i] for i in RIGHT] == ["."] * 4
    assert [cells[i] for i in FAR] == ["."] * 4


def test_the_walls_judge_slots_read_bare_in_part_and_leave_tiles_read_alone() -> None:
    cells = ["."] * (GRID * GRID)
    cells[LEFT[0]] = "?"
    assert [_doubt([LEFT], cells)[i] for i in LEFT] == ["?"] * 4
    cells[LEFT[0]] = "Y"  # a species read: the colour proof did not take it for floor
    assert [_doubt([LEFT], cells)[i] for i in LEFT] == ["Y", ".", ".", "."]


def test_each_slot_asked_of_at_once_gets_its_own_walls_edge() -> None:
    view = LAYOUT.warp(_frame([LEFT]), HOMOGRAPHY)
    edges = OUTLINES.wall_edges(view, LAYOUT.px_per_mm, [RIGHT, LEFT, FAR])
    assert edges[1] >= OUTLINES.rules.wall_edge_min > max(edges[0], edges[2])
    assert OUTLINES.wall_edges(view, LAYOUT.px_per_mm, [LEFT, FAR]) == edges[1:]
    assert OUTLINES.wall_edges(view, LAYOUT.px_per_mm, []) == []


def test_a_slot_read_bare_partly_in_a_shadow_is_no_washed_tile() -> None:
    # Glare lights a washed tile all over; half its cells in a shadow, a slot read bare
    # is bare floor whatever line the shadow's edge draws beside its wall.
    lightness = np.full(GRID * GRID, 240.0)
    assert [_doubt([LEFT], lightness=lightness)[i] for i in LEFT] == ["?"] * 4
    lightness[[LEFT[2], LEFT[3]]] = 170.0
    assert [_doubt([LEFT], lightness=lightness)[i] for i in LEFT] == ["."] * 4
    # Only the cells read bare count: a dark cell left unread proves no shadow.
    cells = ["."] * (GRID * GRID)
    cells[LEFT[2]] = cells[LEFT[3]] = "?"
    assert [_doubt([LEFT], cells, lightness)[i] for i in LEFT] == ["?"] * 4


def test_a_hard_shadows_edge_beside_a_bare_slots_wall_leaves_it_read_bare() -> None:
    """Frame 77496 of ``bench vision --conditions --seed 77401``: a lamp arm's hard shadow
    crosses a bare slot at the grid's edge, its edge running just inside the vat's wall,
    and where it overlaps the wall it draws a thin dark line like a tile's edge gap.  The
    slot, half in the shadow, was left unread (4 cells)."""
    seed = 77496
    truth = random_state(PROFILE, np.random.default_rng(seed + 7_919))
    frame = render(PROFILE, truth, shot_for(seed, False, True)).image
    state = BoardReader(PROFILE).read(frame).state
    assert state is not None
    assert state.cells == truth.cells


@pytest.mark.parametrize(("seed", "first"), [(99049, (12, 10)), (99139, (7, 4))])
def test_a_bare_slot_under_a_bright_spot_is_read_bare(seed: int, first: tuple[int, int]) -> None:
    """Clear frames of ``bench vision --conditions`` (seeds 99001 and 99101): a bare slot
    under a bright spot, red clipped and nearly white in its four cells, 10 to 18 Lab
    units off the floor's chroma, its dashes too faint for the print proof.  It was left
    unread, the board's only miss."""
    photo = generated_photo(PROFILE, seed, False, True)
    row, col = first
    slot = [
        row * GRID + col,
        row * GRID + col + 1,
        (row + 1) * GRID + col,
        (row + 1) * GRID + col + 1,
    ]
    assert [photo.state.cells[i] for i in slot] == ["."] * 4
    state = BoardReader(PROFILE).read(photo.image).state
    assert state is not None
    assert state.cells == photo.state.cells


def _dashes_between(frame: NDArray[np.uint8], first: tuple[int, ...]) -> NDArray[np.uint8]:
    """``frame`` with the dashes some boards print between a vat's slots, dark, 3 mm long
    and 3 mm apart, along the side ``first`` shares with the slot on its right."""
    x, y, side = _slot_rect_px(first)
    image = frame.copy()
    for k in range(0, int(side), 12):
        cv2.line(
            image, (int(x + side), int(y + k)), (int(x + side), int(y + k + 6)), (96, 122, 142), 2
        )
    return np.asarray(cv2.GaussianBlur(image, (3, 3), 0.8), dtype=np.uint8)


def test_printed_dashes_along_a_slots_side_are_no_tiles_edge() -> None:
    """Photoreal frames print dashes between a vat's slots, along their shared sides: at
    half the side's length, their median along it reached an edge's strength, and a
    bare slot in glare beside another stayed unread (photoreal 6051 img045)."""
    frame = _dashes_between(_frame([FAR]), LEFT)
    rules = OUTLINES.rules
    assert OUTLINES.strongest_edge(frame, HOMOGRAPHY, RIGHT) >= rules.edge_min  # the median
    cells = _prove(frame)
    assert [cells[i] for i in LEFT] == ["."] * 4
    assert [cells[i] for i in RIGHT] == ["."] * 4
    assert [cells[i] for i in FAR] == ["?"] * 4  # a tile's edge runs all along its sides


def test_the_quantile_along_a_side_is_numpys_from_one_sort() -> None:
    rng = np.random.default_rng(7)
    for count in (1, 2, 9, 40):
        values = rng.integers(0, 256, count).astype(np.uint8)
        for q in (0.0, 0.25, 0.5, 0.9, 1.0):
            assert _quantile(values, q) == pytest.approx(float(np.quantile(values, q)))
    assert _quantile(np.zeros(0, np.uint8), 0.25) == 0.0
