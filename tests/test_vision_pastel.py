"""Tiles washed pastel by glare are read from their cells' mean colours, floor never is."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import cv2
import numpy as np

from companion.boards import load_profile
from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import ColourModel, hex_to_bgr
from companion.vision.floor import CellColour, CellWindows, FloorModel, yellow_clipped
from companion.vision.pastel import PastelRules, fill_pastel_slots, fill_washed_tiles

PROFILE = load_profile("troia")
MODEL = ColourModel.from_profile(PROFILE)
RULES = PastelRules()
SLOT = next(s for s in PROFILE.slots if not any(i in PROFILE.bonus_kind for i in s))


def _lab(bgr: tuple[float, float, float]) -> tuple[float, float, float]:
    px = np.clip(np.array([[bgr]]), 0, 255).astype(np.uint8)
    lightness, a, b = cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0].astype(float)
    return lightness, a - 128.0, b - 128.0


def _washed(letter: str, share: float) -> tuple[float, float, float]:
    """A species' printed colour with glare's white over ``1 - share`` of it."""
    ink = np.array(hex_to_bgr(PROFILE.colours.species[letter]), dtype=float)
    mixed = share * ink + (1.0 - share) * 255.0
    return _lab((mixed[0], mixed[1], mixed[2]))


def _board(cell_lab: dict[int, tuple[float, float, float]]) -> CellColour:
    """Bright bare floor everywhere but the given cells."""
    floor_l = 228.0
    lightness = np.full(256, floor_l)
    a = np.full(256, MODEL.floor_ab[0])
    b = np.full(256, MODEL.floor_ab[1])
    for i, (li, ai, bi) in cell_lab.items():
        lightness[i], a[i], b[i] = li, ai, bi
    return CellColour(lightness, a, b, np.zeros(256), np.zeros(256))


def _glared(colour: CellColour, cells: Iterable[int], share: float = 1.0) -> CellColour:
    """``colour`` with ``cells`` clipped over ``share`` of their windows, as glare leaves
    them (a yellow seen from its mean must be glare's)."""
    clipped = colour.clipped.copy()
    clipped[list(cells)] = share
    return dataclasses.replace(colour, clipped=clipped)


FLOOR = FloorModel(
    np.full(256, MODEL.floor_ab[0]),
    np.full(256, MODEL.floor_ab[1]),
    np.linspace(0.0, 255.0, 5)[None, :],
    np.zeros((1, 5)),
    np.zeros((1, 5)),
    np.zeros(256, dtype=np.intp),
)


def _read(colour: CellColour, cells: list[str], **evidence: Any) -> list[str]:
    """The slot's cells as the pastel pass reads them, given ``evidence`` (edges, the
    sheet's clipping) as keywords of :func:`fill_pastel_slots`."""
    out = fill_pastel_slots(cells, colour, FLOOR, MODEL, PROFILE, RULES, **evidence)
    return [out[i] for i in SLOT]


def test_a_tile_washed_pastel_is_read_cell_by_cell() -> None:
    tile = "RBBY"
    colour = _board({i: _washed(c, 0.35) for i, c in zip(SLOT, tile, strict=True)})
    assert _read(colour, ["?"] * 256) == list(tile)


def test_cells_already_read_count_towards_the_tile_and_stay() -> None:
    colour = _board({SLOT[0]: _washed("G", 0.35), SLOT[3]: _washed("Y", 0.5)})
    cells = ["?"] * 256
    cells[SLOT[1]], cells[SLOT[2]] = "G", "R"
    assert _read(colour, cells) == ["G", "G", "R", "Y"]


def test_bright_bare_floor_is_never_read_as_a_tile() -> None:
    assert _read(_board({}), ["?"] * 256) == ["?"] * 4


def test_one_tinted_cell_is_no_tile() -> None:
    # A neighbour's piece leaning in tints one cell; the other three show floor.
    colour = _board({SLOT[0]: _washed("B", 0.35)})
    assert _read(colour, ["?"] * 256) == ["?"] * 4


def test_a_slot_with_a_cell_read_empty_is_left_alone() -> None:
    colour = _board({i: _washed("R", 0.35) for i in SLOT[:3]})
    cells = ["?"] * 256
    cells[SLOT[3]] = "."
    assert _read(colour, cells) == ["?", "?", "?", "."]


def test_a_cell_washed_white_stays_unread_and_one_at_the_floors_hue_in_a_tile_is_yellow() -> None:
    # White has no hue left. A yellow washed to a quarter of its ink sits within a few
    # units of the floor: inside a slot that shows a tile, no floor can be there.
    white = _lab((255.0, 255.0, 255.0))
    faint = _washed("Y", 0.25)
    colour = _board(
        {SLOT[0]: _washed("B", 0.35), SLOT[1]: _washed("G", 0.35), SLOT[2]: white, SLOT[3]: faint}
    )
    assert _read(colour, ["?"] * 256) == ["B", "G", "?", "Y"]


def test_cells_at_the_floors_hue_alone_are_no_tile() -> None:
    # Two floor-hued cells and one tinted one: the tint may be a neighbour's spill, and
    # floor-hued cells are evidence of a tile only once one is known to be there.
    faint = _washed("Y", 0.25)
    colour = _board({SLOT[0]: _washed("R", 0.35), SLOT[1]: faint, SLOT[2]: faint})
    assert _read(colour, ["?"] * 256) == ["?"] * 4


def test_a_washed_green_inside_a_tile_is_read_by_its_hue_not_taken_for_yellow() -> None:
    # Glare brings green towards the floor's hue from its own side; short of it, it is
    # no yellow.  Inside the tile the blues prove, a faint green still names its species.
    blue, green = _washed("B", 0.35), _washed("G", 0.15)
    colour = _board({SLOT[0]: blue, SLOT[1]: blue, SLOT[2]: green, SLOT[3]: blue})
    assert _read(colour, ["?"] * 256) == ["B", "B", "G", "B"]


def test_a_cell_washed_almost_white_stays_unread_inside_a_tile() -> None:
    blue, green = _washed("B", 0.35), _washed("G", 0.05)
    colour = _board({SLOT[0]: blue, SLOT[1]: blue, SLOT[2]: green, SLOT[3]: blue})
    assert _read(colour, ["?"] * 256) == ["B", "B", "?", "B"]


def test_faint_tints_under_glare_prove_a_tile() -> None:
    # Too faint for a reading on their own (an eighth of the ink), but two cells off the
    # floor at one species' hue, lit as glare lights: no bare floor shows that.
    colour = _board({i: _washed("R", 0.13) for i in SLOT})
    assert _read(colour, ["?"] * 256) == ["R"] * 4


def test_a_cell_between_two_species_hues_stays_unread() -> None:
    # A tile sitting across two slots mixes red and yellow in one window: orange names
    # neither species.
    red = np.array(hex_to_bgr(PROFILE.colours.species["R"]), dtype=float)
    yellow = np.array(hex_to_bgr(PROFILE.colours.species["Y"]), dtype=float)
    mixed = 0.5 * (0.6 * red + 0.4 * yellow) + 0.5 * 255.0
    orange = _lab((mixed[0], mixed[1], mixed[2]))
    colour = _board({SLOT[0]: _washed("R", 0.35), SLOT[1]: _washed("R", 0.35), SLOT[2]: orange})
    assert _read(colour, ["?"] * 256)[2] == "?"


def test_one_tile_coloured_cell_and_floor_hued_ones_need_the_tiles_edge() -> None:
    # A tile mostly yellow, washed: three cells at the floor's hue, one clearly red.  Its
    # colours alone could be bare floor with a spill; the 2 mm edge of a tile decides.
    colour = _board({SLOT[0]: _washed("R", 0.35), SLOT[1]: _washed("Y", 0.25)})
    cells = ["?"] * 256
    without = fill_pastel_slots(cells, colour, FLOOR, MODEL, PROFILE, RULES)
    with_edge = fill_pastel_slots(
        cells, colour, FLOOR, MODEL, PROFILE, RULES, lambda slot: slot == SLOT
    )
    assert [without[i] for i in SLOT] == ["?"] * 4
    assert [with_edge[i] for i in SLOT] == ["R", "Y", "Y", "Y"]
    # Or the red cell's glare clipped red first, over a green and blue held level: a red
    # ink's order, which a lamp's tint would lay on the cells beside it too.  A first
    # clipped channel that names another ink than the hue proves nothing.
    for first, expected in (("R", ["R", "Y", "Y", "Y"]), ("Y", ["?"] * 4)):
        out = fill_pastel_slots(
            cells,
            colour,
            FLOOR,
            MODEL,
            PROFILE,
            RULES,
            first_clipped=lambda cell, first=first: first if cell == SLOT[0] else None,
        )
        assert [out[i] for i in SLOT] == expected, first


def test_a_tile_washed_to_the_floors_colour_is_yellow_inside_its_own_edge() -> None:
    # Glare left all four cells the floor's very colour: bare floor, or a yellow tile
    # (the one ink glare washes to the floor's hue).  An edge on a side the slot shares
    # with another may be that slot's tile; along the vat's walls it is this slot's own.
    colour = _board({i: (240.0, MODEL.floor_ab[0], MODEL.floor_ab[1]) for i in SLOT})

    def read(edge: bool = False, own_edge: bool = False) -> list[str]:
        out = fill_pastel_slots(
            ["?"] * 256,
            colour,
            FLOOR,
            MODEL,
            PROFILE,
            RULES,
            shows_edge=lambda slot: edge,
            shows_own_edge=lambda slot: own_edge and slot == SLOT,
        )
        assert all(out[i] == "?" for i in range(256) if i not in SLOT)
        return [out[i] for i in SLOT]

    assert read() == ["?"] * 4
    assert read(edge=True) == ["?"] * 4
    assert read(own_edge=True) == ["Y"] * 4
    # Cells at another ink's hue are no washed yellow's, inside its own edge or not.
    colour = _board({i: _washed("G", 0.12) for i in SLOT})
    assert "Y" not in read(own_edge=True)


def test_a_cell_read_from_its_pixels_counts_however_faint_its_mean() -> None:
    # The red cell's own pixels named it; its mean, paled by the yellow glare around it,
    # lies short of the offset a cell seen from its mean alone must reach.  With the
    # tile's edge and the other three at the floor's hue, the tile is read.
    faint_red = (224.0, 8.0, 10.0)  # about 10 units off the floor, on red's side
    colour = _board({SLOT[0]: faint_red, SLOT[1]: _washed("Y", 0.25)})
    cells = ["?"] * 256
    cells[SLOT[0]] = "R"
    edge = fill_pastel_slots(cells, colour, FLOOR, MODEL, PROFILE, RULES, lambda s: s == SLOT)
    assert [edge[i] for i in SLOT] == ["R", "Y", "Y", "Y"]
    # Seen only from its mean, the same cell is too faint to prove a tile on its own.
    unread = fill_pastel_slots(
        ["?"] * 256, colour, FLOOR, MODEL, PROFILE, RULES, lambda s: s == SLOT
    )
    assert [unread[i] for i in SLOT] == ["?"] * 4


def test_a_faint_tint_in_the_shade_is_no_evidence_of_a_tile() -> None:
    # A lamp's coloured shadow may tint bare floor: no glare there, so no tile is proven.
    faint = _washed("B", 0.13)
    colour = _board({i: (170.0, faint[1], faint[2]) for i in SLOT})
    assert _read(colour, ["?"] * 256) == ["?"] * 4


def test_a_dim_faint_tint_inside_a_tile_stays_unread() -> None:
    # Two cells read red prove a tile; a third shows a faint red tint but lies as dim as
    # an arm's shaded skin, which an unseen arm leaves there: no glare washed it, so its
    # tint names nothing.  The same tint lit by glare is the tile's washed red.
    faint = _washed("R", 0.13)
    cells = ["?"] * 256
    cells[SLOT[0]] = cells[SLOT[1]] = "R"
    dim = _board({SLOT[2]: (105.0, faint[1], faint[2])})
    lit = _board({SLOT[2]: (185.0, faint[1], faint[2])})
    assert _read(dim, cells)[2] == "?"
    assert _read(lit, cells)[2] == "R"


def test_shaded_cells_are_not_read_from_their_mean() -> None:
    # Below glare's brightness an unread cell is a shadow or an edge, not a pastel tile.
    dim = {i: (150.0, a, b) for i, (_, a, b) in ((i, _washed("B", 0.35)) for i in SLOT)}
    assert _read(_board(dim), ["?"] * 256) == ["?"] * 4


def test_a_tile_that_cannot_exist_is_not_filled_in() -> None:
    # Two colours two cells each: no colour leads, so no real tile looks like this.
    tile = "RBRB"
    colour = _board({i: _washed(c, 0.35) for i, c in zip(SLOT, tile, strict=True)})
    assert _read(colour, ["?"] * 256) == ["?"] * 4


def _polar(lightness: float, chroma: float, hue_deg: float) -> tuple[float, float, float]:
    angle = np.radians(hue_deg)
    return lightness, chroma * float(np.cos(angle)), chroma * float(np.sin(angle))


FLOOR_HUE = float(np.degrees(np.arctan2(MODEL.floor_ab[1], MODEL.floor_ab[0])))
FLOOR_CHROMA = float(np.hypot(*MODEL.floor_ab))


def test_a_washed_yellow_bent_towards_green_inside_a_tile_is_yellow() -> None:
    # Two reds prove a tile.  Glare bends a glossy yellow towards green while it keeps the
    # floor's chroma or more; a green that close to the floor's hue has lost its chroma
    # to white, further round.
    cells = ["?"] * 256
    cells[SLOT[0]] = cells[SLOT[1]] = "R"
    colour = _board(
        {
            SLOT[2]: _polar(228.0, 1.2 * FLOOR_CHROMA, FLOOR_HUE + 18.0),
            SLOT[3]: _polar(228.0, 0.9 * FLOOR_CHROMA, FLOOR_HUE + 24.0),
        }
    )
    assert _read(colour, cells) == ["R", "R", "Y", "?"]


def test_yellow_is_looked_for_where_the_floor_beside_it_has_turned() -> None:
    # A lamp's tint (or red clipped in glare) turns the floor's hue here by 25 degrees
    # towards green, and a yellow tile's with it: measured against the printed yellow, the
    # tile would lie outside yellow's hues; against the floor's turn, it is yellow.
    turn = 25.0
    floor_here = _polar(228.0, FLOOR_CHROMA, FLOOR_HUE + turn)
    a = np.full(256, MODEL.floor_ab[0])
    b = np.full(256, MODEL.floor_ab[1])
    for i in SLOT:
        a[i], b[i] = floor_here[1], floor_here[2]
    turned = FloorModel(
        a, b, FLOOR.path_lightness, FLOOR.path_da, FLOOR.path_db, FLOOR.light_of_cell
    )
    yellow = _polar(228.0, FLOOR_CHROMA + 11.0, FLOOR_HUE + turn + 3.0)
    colour = _glared(_board({i: yellow for i in SLOT}), SLOT)
    out = fill_pastel_slots(["?"] * 256, colour, turned, MODEL, PROFILE, RULES)
    assert [out[i] for i in SLOT] == ["Y"] * 4


def _clipped_in_two_channels(colour: CellColour, cell: int) -> CellColour:
    washed = np.where(np.arange(256) == cell, 1.0, 0.0)
    return CellColour(colour.lightness, colour.a, colour.b, washed, colour.clipped)


def test_a_tint_where_glare_clipped_two_channels_is_read_as_a_bent_yellow() -> None:
    # Three greens prove a tile.  A cell 38 degrees round from yellow towards green is a
    # washed green's tint where nothing clipped.  Where red and green both clipped it is
    # the yellow that clipping bends about that far: a green tile clips two channels only
    # in glare that leaves it white.
    printed_yellow = MODEL.species_hues_deg()["Y"]
    cells = ["?"] * 256
    cells[SLOT[0]] = cells[SLOT[1]] = cells[SLOT[3]] = "G"
    clear = _board({SLOT[2]: _polar(245.0, 1.1 * FLOOR_CHROMA, printed_yellow + 38.0)})
    assert _read(clear, cells)[2] == "G"
    assert _read(_clipped_in_two_channels(clear, SLOT[2]), cells)[2] == "Y"


def test_a_clipped_tint_between_bent_yellow_and_green_stays_unread() -> None:
    # 44 degrees round: hardly nearer the bent yellow than green, so neither is read.
    printed_yellow = MODEL.species_hues_deg()["Y"]
    cells = ["?"] * 256
    cells[SLOT[0]] = cells[SLOT[1]] = cells[SLOT[3]] = "G"
    between = _board({SLOT[2]: _polar(245.0, 1.1 * FLOOR_CHROMA, printed_yellow + 44.0)})
    assert _read(_clipped_in_two_channels(between, SLOT[2]), cells)[2] == "?"


def test_a_bent_yellow_with_a_red_alone_fills_a_tile_that_shows_its_edge() -> None:
    # One cell read red, three washed yellows bent by clipping: the tile's edge proves
    # the tile, and the three name their species.
    printed_yellow = MODEL.species_hues_deg()["Y"]
    bent = _polar(236.0, 1.4 * FLOOR_CHROMA, printed_yellow + 35.0)
    colour = _board({SLOT[0]: _washed("R", 0.35), SLOT[1]: bent, SLOT[2]: bent, SLOT[3]: bent})
    washed = np.isin(np.arange(256), SLOT[1:]).astype(float)
    colour = CellColour(colour.lightness, colour.a, colour.b, washed, colour.clipped)
    out = fill_pastel_slots(
        ["?"] * 256, colour, FLOOR, MODEL, PROFILE, RULES, lambda slot: slot == SLOT
    )
    assert [out[i] for i in SLOT] == ["R", "Y", "Y", "Y"]


def _under_white(white: tuple[float, float]) -> FloorModel:
    """The floor model of the other tests, with glare's white balanced to ``white``."""
    return FloorModel(
        FLOOR.a,
        FLOOR.b,
        FLOOR.path_lightness,
        FLOOR.path_da,
        FLOOR.path_db,
        FLOOR.light_of_cell,
        np.array([white]),
    )


def test_a_tint_read_differently_from_the_white_and_from_grey_stays_unread() -> None:
    # A pale orange (a tile the balance misjudged, or a red and a yellow mixed) seen from
    # a greenish white points at red; from neutral grey it lies nearer yellow.  Where the
    # glare's white is that uncertain, no species is named.
    colour = _board({i: (228.0, 10.0, 18.0) for i in SLOT})
    out = fill_pastel_slots(["?"] * 256, colour, _under_white((-10.0, 0.0)), MODEL, PROFILE, RULES)
    assert [out[i] for i in SLOT] == ["?"] * 4


def test_hues_are_measured_from_the_white_glare_mixes_in() -> None:
    # Under a warm lamp the balance shows the sensor's white bluish.  A red washed to a
    # fifth of its ink lies on the line from that white to the red ink: measured from
    # neutral grey its hue is 37 degrees off red, measured from the white it is red.
    white = np.array([6.0, -10.0])
    red = np.array(MODEL.species_ab["R"])
    a, b = white + 0.2 * (red - white)
    colour = _board({i: (228.0, float(a), float(b)) for i in SLOT})
    under_lamp = _under_white((float(white[0]), float(white[1])))
    out = fill_pastel_slots(["?"] * 256, colour, under_lamp, MODEL, PROFILE, RULES)
    assert [out[i] for i in SLOT] == ["R"] * 4
    assert _read(colour, ["?"] * 256) == ["?"] * 4


def test_a_cell_at_the_sensors_white_under_a_warm_lamp_is_no_washed_yellow() -> None:
    # Under a warm lamp the balance shows the sensor's white yellowish; a slot glare
    # clipped in every channel sits at that white and shows nothing of what lies under it.
    # The same colour where the white is neutral is a washed yellow's.
    white = (0.0, MODEL.floor_ab[1] + 15.0)  # yellower than the floor, as a warm lamp shows
    colour = _glared(_board({i: (255.0, *white) for i in SLOT}), SLOT)
    under_lamp = _under_white(white)
    out = fill_pastel_slots(["?"] * 256, colour, under_lamp, MODEL, PROFILE, RULES)
    assert [out[i] for i in SLOT] == ["?"] * 4
    out = fill_pastel_slots(["?"] * 256, colour, _under_white((0.0, 0.0)), MODEL, PROFILE, RULES)
    assert [out[i] for i in SLOT] == ["Y"] * 4


def _clipped_channels(colour: CellColour, cell: int, shares_bgr: tuple[float, ...]) -> CellColour:
    """``colour`` with ``cell``'s window clipped in each channel (blue, green, red) over the
    given shares."""
    shares = colour.channel_clipped.copy()
    shares[cell] = shares_bgr
    return dataclasses.replace(colour, channel_clipped=shares)


def _greenish_beside(letter: str) -> tuple[list[str], CellColour]:
    """A slot with three cells read ``letter`` and the fourth washed to a faint tint 10
    degrees short of green's hue."""
    printed_green = MODEL.species_hues_deg()["G"]
    cells = ["?"] * 256
    cells[SLOT[0]] = cells[SLOT[1]] = cells[SLOT[3]] = letter
    return cells, _board({SLOT[2]: _polar(240.0, 9.0, printed_green - 10.0)})


def test_a_green_hue_over_a_clipped_red_is_no_green() -> None:
    # Three greens prove a tile; the fourth shows green's hue, but its red is at the
    # sensor's limit: how far above green it stood is unknown (a yellow under a lamp
    # whose balance lowers red looks just so), and the cell stays unread.
    cells, tint = _greenish_beside("G")
    assert _read(tint, cells)[2] == "G"
    assert _read(_clipped_channels(tint, SLOT[2], (0.0, 1.0, 1.0)), cells)[2] == "?"
    # A clipped green alone is the green ink's own brightest channel: still green.
    assert _read(_clipped_channels(tint, SLOT[2], (0.0, 1.0, 0.0)), cells)[2] == "G"


def test_red_and_green_clipped_over_a_low_blue_inside_a_tile_is_yellow() -> None:
    # Whatever hue the balance gives it, a cell whose red and green clipped while its
    # balanced blue stayed far below both is a washed yellow (or floor, which a tile
    # covers): no green, blue or red ink clips so.
    cells, greenish = _greenish_beside("R")
    assert _read(greenish, cells)[2] == "G"
    flagged = dataclasses.replace(
        _glared(greenish, [SLOT[2]]),
        yellow_clipped=np.where(np.arange(256) == SLOT[2], 1.0, 0.0),
    )
    assert _read(flagged, cells)[2] == "Y"


def test_only_red_and_green_clipped_over_a_low_balanced_blue_count_as_yellow() -> None:
    # The measure itself, on real pixels: a washed yellow clips red and green with blue
    # far below; a washed green whose red clipped under a lamp keeps its balanced blue
    # at red's level; white clips all three.
    layout = CanonicalLayout(PROFILE)
    windows = CellWindows(layout.cell_labels, PROFILE, layout.bonus_rings)
    view = np.full((*layout.cell_labels.shape, 3), (168, 195, 207), dtype=np.uint8)
    balanced = view.copy()
    yellow, green, white = SLOT[0], SLOT[1], SLOT[2]
    for cell, raw, bal in (
        (yellow, (120, 255, 255), (118, 240, 232)),
        (green, (229, 253, 253), (226, 242, 223)),
        (white, (255, 255, 255), (250, 240, 232)),
    ):
        view[layout.cell_labels == cell] = raw
        balanced[layout.cell_labels == cell] = bal
    lab = np.asarray(cv2.cvtColor(balanced, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    colour = CellColour.measure(lab, view, balanced, windows)
    flagged = yellow_clipped(colour)
    assert flagged[yellow]
    assert not flagged[green]
    assert not flagged[white]
    assert not flagged[SLOT[3]]  # bare floor, nothing clipped


def test_a_tile_clipped_in_red_and_green_far_off_the_floor_is_all_yellow() -> None:
    # An all-yellow tile under glare: red and green clipped, blue far below, and the
    # balance turns the clipped pair towards green, 25 degrees from the floor's hue and
    # 11 units off it.  No cell shows yellow's hue, so nothing proves a tile; clipped so,
    # each cell is a yellow or the floor, and this far off the floor, a yellow.
    printed_yellow = MODEL.species_hues_deg()["Y"]
    bent = _polar(230.0, 1.5 * FLOOR_CHROMA, printed_yellow + 27.0)
    colour = _board(dict.fromkeys(SLOT, bent))
    assert _read(colour, ["?"] * 256) == ["?"] * 4
    flagged = dataclasses.replace(
        _glared(colour, SLOT), yellow_clipped=np.isin(np.arange(256), SLOT).astype(float)
    )
    assert _read(flagged, ["?"] * 256) == ["Y"] * 4


def test_a_washed_blue_bent_towards_cyan_is_still_blue() -> None:
    # Two cells read red prove a tile.  Glare clips a blue's own channel first and bends
    # it towards cyan, where no other species lies: 35 degrees that way it is still
    # blue.  As far the other way, towards red, it is no species clearly.
    blue = MODEL.species_hues_deg()["B"]
    cells = ["?"] * 256
    cells[SLOT[0]] = cells[SLOT[1]] = "R"
    cyan = _board({SLOT[2]: _polar(210.0, 9.0, blue - 35.0)})
    purple = _board({SLOT[2]: _polar(210.0, 9.0, blue + 35.0)})
    assert _read(cyan, cells)[2] == "B"
    assert _read(purple, cells)[2] == "?"


def test_red_clipped_alone_counts_as_yellow_only_with_blue_far_below_green() -> None:
    # Glare on a yellow can clip red while green stays just below the limit: its green
    # and blue are still far apart.  A washed red clips red alone too, but holds its
    # green and blue level.
    layout = CanonicalLayout(PROFILE)
    windows = CellWindows(layout.cell_labels, PROFILE, layout.bonus_rings)
    view = np.full((*layout.cell_labels.shape, 3), (168, 195, 207), dtype=np.uint8)
    balanced = view.copy()
    yellow, red = SLOT[0], SLOT[1]
    for cell, raw, bal in (
        (yellow, (186, 240, 255), (191, 238, 235)),
        (red, (201, 219, 255), (207, 217, 234)),
    ):
        view[layout.cell_labels == cell] = raw
        balanced[layout.cell_labels == cell] = bal
    lab = np.asarray(cv2.cvtColor(balanced, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    flagged = yellow_clipped(CellColour.measure(lab, view, balanced, windows))
    assert flagged[yellow]
    assert not flagged[red]


def test_inside_a_tile_the_channel_glare_clipped_first_names_a_washed_cell() -> None:
    # Two cells read red prove a tile; a third is washed nearly white, its mean too pale
    # for any hue.  The channel its glare clipped first still names it; outside a known
    # tile that proves nothing, and a cell in the shade is not asked.
    pale = _lab((247.0, 242.0, 237.0))
    colour = _board({SLOT[2]: pale, SLOT[3]: pale})
    cells = ["."] * 256
    cells[SLOT[0]], cells[SLOT[1]], cells[SLOT[2]], cells[SLOT[3]] = "R", "R", "?", "?"
    assert _read(colour, cells)[2:] == ["?", "?"]

    def blue_first(cell: int) -> str | None:
        return "B" if cell == SLOT[2] else None

    out = fill_pastel_slots(cells, colour, FLOOR, MODEL, PROFILE, RULES, first_clipped=blue_first)
    assert [out[i] for i in SLOT] == ["R", "R", "B", "?"]
    lone = ["?"] * 256
    out = fill_pastel_slots(lone, colour, FLOOR, MODEL, PROFILE, RULES, first_clipped=blue_first)
    assert [out[i] for i in SLOT] == ["?"] * 4
    shaded = _board({SLOT[2]: _lab((120.0, 116.0, 112.0)), SLOT[3]: pale})
    out = fill_pastel_slots(cells, shaded, FLOOR, MODEL, PROFILE, RULES, first_clipped=blue_first)
    assert out[SLOT[2]] == "?"


def test_a_tile_the_exemplars_name_a_cell_of_is_read_again_as_a_known_tile() -> None:
    calls: list[list[str]] = []

    def pastel(chars: list[str]) -> list[str]:
        calls.append(chars)
        known = "R" in chars
        return ["Y" if known and c == "?" else c for c in chars]

    def exemplars(chars: list[str]) -> list[str]:
        return ["R", *chars[1:]]

    assert fill_washed_tiles(["?", "?", "?"], pastel, exemplars) == ["R", "Y", "Y"]
    assert len(calls) == 2
    # Where the exemplars name nothing new, the pastel pass is not run again.
    calls.clear()
    assert fill_washed_tiles(["R", "?", "Y"], pastel, lambda chars: chars) == ["R", "Y", "Y"]
    assert len(calls) == 1


def test_two_cells_glare_clipped_green_first_prove_a_tile_the_floor_never_does() -> None:
    # A whole slot washed nearly white, none of its cells read: two whose glare clipped
    # green first prove a tile (the cream floor clips red first), and inside it a cell
    # at the floor's hue is a washed yellow.  Red clipped first proves nothing alone: the
    # floor clips red first too.
    pale = _lab((247.0, 242.0, 237.0))
    colour = _board({SLOT[0]: pale, SLOT[1]: pale, SLOT[2]: pale})
    cells = ["."] * 256
    for i in SLOT:
        cells[i] = "?"

    def clipped_first(letter: str) -> list[str]:
        def first(cell: int) -> str | None:
            return letter if cell in SLOT[:2] else None

        out = fill_pastel_slots(cells, colour, FLOOR, MODEL, PROFILE, RULES, first_clipped=first)
        return [out[i] for i in SLOT]

    assert clipped_first("G") == ["G", "G", "?", "Y"]
    assert clipped_first("R") == ["?"] * 4


def test_a_lone_green_a_little_off_the_floor_names_a_yellow_tile_when_clipped_first() -> None:
    # A tile mostly yellow under glare (photoreal): three cells at the floor's hue, one
    # green only 10 units off the floor, its glare clipping green first.  As far off as
    # any pastel cell must lie, the green's own channel clipping first proves the tile;
    # without that proof the slot stays unread, and the tile's edge alone asks a lone
    # cell seen from its mean to lie further off (see the faint red above).
    fa, fb = MODEL.floor_ab
    green = (227.0, fa - 8.7, fb - 5.4)  # 10.2 off the floor
    yellow = (230.0, fa - 1.5, fb + 2.0)
    colour = _board({SLOT[0]: yellow, SLOT[1]: yellow, SLOT[2]: green, SLOT[3]: yellow})
    cells = ["?"] * 256

    def green_first(cell: int) -> str | None:
        return "G" if cell == SLOT[2] else None

    out = fill_pastel_slots(cells, colour, FLOOR, MODEL, PROFILE, RULES, first_clipped=green_first)
    assert [out[i] for i in SLOT] == ["Y", "Y", "G", "Y"]
    assert _read(colour, cells) == ["?"] * 4
    edge = fill_pastel_slots(cells, colour, FLOOR, MODEL, PROFILE, RULES, lambda s: s == SLOT)
    assert [edge[i] for i in SLOT] == ["?"] * 4


def test_bright_floor_under_a_warm_lamp_is_no_washed_yellow() -> None:
    # A bright warm lamp lifts bare floor's chroma past what the floor model expects at
    # that lightness, along the floor's own hue, as a washed yellow lies; but it clips
    # nothing (conditions 36051: a bare slot read yellow).  Glare washing a yellow tile
    # clips its pixels.
    warm = (239.0, MODEL.floor_ab[0], MODEL.floor_ab[1] + 10.0)
    colour = _board(dict.fromkeys(SLOT, warm))
    assert _read(colour, ["?"] * 256) == ["?"] * 4
    assert _read(_glared(colour, SLOT), ["?"] * 256) == ["Y"] * 4


def _stepped_off_floor(step: float, turn_deg: float = 0.0) -> CellColour:
    """Every cell of SLOT clipped in red and green over a low blue, its mean ``step``
    units off the floor, ``turn_deg`` from the floor's hue."""
    floor_a, floor_b = MODEL.floor_ab
    hue = np.arctan2(floor_b, floor_a) + np.radians(turn_deg)
    cell = (240.0, floor_a + step * np.cos(hue), floor_b + step * np.sin(hue))
    colour = _glared(_board(dict.fromkeys(SLOT, cell)), SLOT)
    return dataclasses.replace(colour, yellow_clipped=np.isin(np.arange(256), SLOT).astype(float))


def test_a_yellow_clipped_tile_just_off_the_floor_is_read_where_its_edge_shows() -> None:
    # Glare clipped red and green over a low blue in every cell, as only a yellow or the
    # floor clips, and each lies 6 off the floor along its hue: short of what a pastel
    # cell must reach alone, but more than bare floor lies.  The tile's edge decides.
    def read(colour: CellColour, edge: bool) -> list[str]:
        out = fill_pastel_slots(
            ["?"] * 256, colour, FLOOR, MODEL, PROFILE, RULES, lambda slot: edge and slot == SLOT
        )
        return [out[i] for i in SLOT]

    assert read(_stepped_off_floor(6.0), edge=False) == ["?"] * 4
    assert read(_stepped_off_floor(6.0), edge=True) == ["Y"] * 4
    # Bare floor so clipped lies within a unit or two of the floor, edge or not.
    assert read(_stepped_off_floor(1.5), edge=True) == ["?"] * 4
    # A step towards red is no yellow's.
    assert read(_stepped_off_floor(6.0, turn_deg=-90.0), edge=True) == ["?"] * 4
    # Glare bends a washed yellow towards green: a step turned far that way is still one,
    # but not one turned back against the floor's own hue.
    assert read(_stepped_off_floor(6.0, turn_deg=100.0), edge=True) == ["Y"] * 4
    assert read(_stepped_off_floor(6.0, turn_deg=150.0), edge=True) == ["?"] * 4


def test_a_yellow_tile_with_a_cell_washed_to_the_floors_colour_is_read_inside_its_edge() -> None:
    # Photoreal 5551 img045: glare clipped a yellow tile's four cells as a yellow, three
    # of them 6 off the floor, the palest on the floor's very colour.  Two cells off the
    # floor and a tile's edge prove the tile, which covers its whole slot; one alone
    # does not.
    floor_a, floor_b = MODEL.floor_ab
    hue = np.arctan2(floor_b, floor_a)
    off = (240.0, floor_a + 6.0 * np.cos(hue), floor_b + 6.0 * np.sin(hue))
    on = (240.0, floor_a, floor_b)

    def read(stepped: int) -> list[str]:
        cells = {cell: off if k < stepped else on for k, cell in enumerate(SLOT)}
        colour = _glared(_board(cells), SLOT)
        clipped = np.isin(np.arange(256), SLOT).astype(float)
        colour = dataclasses.replace(colour, yellow_clipped=clipped)
        out = fill_pastel_slots(
            ["?"] * 256, colour, FLOOR, MODEL, PROFILE, RULES, lambda slot: slot == SLOT
        )
        return [out[i] for i in SLOT]

    assert read(3) == ["Y"] * 4
    assert read(2) == ["Y"] * 4
    assert read(1) == ["?"] * 4


def test_an_overexposed_frame_needs_a_tiles_edge_for_yellow_from_glare_alone() -> None:
    # A lamp that clips the bare sheet clips bare floor as glare clips a washed yellow:
    # colour alone no longer tells the two apart, a tile's edge or pixels still do.
    colour = _glared(_board({i: _washed("Y", 0.5) for i in SLOT}), SLOT)

    def read(clipped: float, edge: bool = False, cells: list[str] | None = None) -> list[str]:
        return _read(
            colour,
            cells or ["?"] * 256,
            shows_edge=lambda slot: edge,
            sheet_clipped=lambda: clipped,
        )

    assert read(0.0) == ["Y"] * 4
    assert read(RULES.overexposed_sheet_min - 0.01) == ["Y"] * 4
    assert read(RULES.overexposed_sheet_min) == ["?"] * 4
    assert read(RULES.overexposed_sheet_min, edge=True) == ["Y"] * 4
    named = ["?"] * 256
    named[SLOT[0]] = "Y"  # one cell named by its own pixels: a tile is there
    assert read(RULES.overexposed_sheet_min, cells=named) == ["Y"] * 4
    # Another ink washed pale is no floor's colour, overexposed or not.
    colour = _glared(_board({i: _washed(c, 0.35) for i, c in zip(SLOT, "RBBY", strict=True)}), SLOT)
    assert read(RULES.overexposed_sheet_min) == list("RBBY")
