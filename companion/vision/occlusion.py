"""Finding a hand (or arm) over the board.

An arm always reaches in from outside, so it crosses the bare sheet around the grid: there
it shows as a large patch of skin, or of any colour on the sheet's outer edge where no
piece stands.  From that patch the region grows into the grid through skin, lit or in the
arm's own shade, as broad as a hand, and through the colour the arm shows where it crosses
the sheet (lit from the side, an arm's skin can leave the skin colours altogether, and all
of it shifts alike); it is closed to the convex hull of the arm's body (glare on skin
leaves holes) and widened by a margin for blur and soft edges.  It does not grow through
whatever else is not floor: tiles, walls and the floor's own shading next to an arm would
carry it across the whole board, and what lies beside the arm is read as usual.  An arm
that shows no skin anywhere (a dark skin in a shadow, a sleeve) is still a broad body of
no sheet colour reaching over the grid from beyond the sheet's edge; where it is too dark
for any colour, as dark as a hard shadow, it is one only where it hides the board's print.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.canonical import CanonicalLayout
from companion.vision.colour import PixelClass
from companion.vision.pixels import bounding_box, every_nth, pixel_coords
from companion.vision.surround import SheetSurround

# Smallest foreign patch on the bare sheet taken as a hand (mm²); a leaning dominus covers
# far less of the sheet outside the worker strips.
HAND_MIN_AREA_MM2 = 250.0
HAND_MARGIN_MM = 8.0
HAND_MIN_WIDTH_MM = 12.0
ARM_MIN_WIDTH_MM = 24.0
# Beside the skin found, parts of the same arm that show no skin colour (its pale, glossy
# underside, a sleeve) are taken up to this far (mm): near enough to belong to the arm,
# too near to carry the region across the board along walls and shading.
ARM_REACH_MM = 30.0
# Where the arm shows a colour of its own, the region follows it: pixels within this many
# Lab units (a, b) of the colour of the patch where the arm crosses the sheet.  Yellow and
# red tiles next to an arm sit 20 and more away.
ARM_ALIKE_AB = 10.0
# Skin lit until a channel clips keeps only the other two, and in those it shows the
# floor's chroma: up to about a hand's width (mm) from the part of an arm that was found,
# such a cell proves nothing (see :func:`within_reach`).
LIT_SKIN_REACH_MM = 60.0
# A broad stretch on the sheet is an arm's only when this share of it is lit skin (the
# rest: holes of no known colour that glare and shading leave in skin).
SKIN_SHARE_MIN = 0.3
# Lit skin this broad and this large (mm² of skin pixels in one such stretch) is an arm
# wherever it lies, joined to the view's edge or not: an arm crossing the sheet's edge in
# a shadow may leave its way out no broad colour at all (conditions 97020: 16,000 mm²
# over the grid).  In the clear frames of 246 stored photoreal and 390 conditions frames
# the largest such stretch held 1,130 mm² of skin (54 in conditions); over arms, up to
# 65,000 mm².
SKIN_ALONE_MM2 = 5000.0
# An arm that shows no skin anywhere (a dark skin in its own shade, a sleeve) is still a
# broad body of no sheet colour reaching in across the sheet's edge, and going on past
# it: this much of it (mm²) on the sheet at least, a forearm's length over its width,
# and over the fish cells ... (a tablecloth the lens bows in, or a shadow, along the
# sheet's edge goes on past it too, but stays off the grid).  Tiles never reach the
# sheet's edge, and bare sheet keeps the pieces from it.
BODY_MIN_AREA_MM2 = 2000.0
# ... a fingertip's patch, a third of a cell (mm²): over 560 clear conditions frames no
# body so reaching in and going on touched the cells at all (one, which does not go on,
# 125 mm²), while a dark arm whose fingertip alone lay over the grid covered 248 (88365:
# missed at a hand's 250, its skin read as a red tile).
BODY_OVER_CELLS_MIN_MM2 = 100.0
# Over the fish cells such a body hides the tiles: at least this share of its pixels
# there shows no species' colour (dark arms 0.29-0.63, skin read red in places).  A lamp's
# tint over the sheet's edge joined to the tiles it reaches shows theirs (0.06).
BODY_UNKNOWN_OVER_CELLS_MIN = 0.2
# A body too dark for any colour must be as broad as a forearm somewhere (mm across): a
# lamp arm's hard shadow is a band, and where it is narrow most of the print it covers
# lies by its soft edges, which hide the print as well (45 mm at most over the shadows
# seen; the bodies of the darkest arms, which only this search finds, 58 mm and more).
DARK_BODY_MIN_WIDTH_MM = 50.0
# ... unless it hides the tiles' colours as well, as a shadow does not: over the fish
# cells this share of it shows no class at all (a dark arm 44 mm across showed 0.86, a
# dark arm in a dim room, 41 mm across where too dark for skin, 0.41: conditions 100715;
# the two shadows that hid the print across 700 generated frames, 0.12 and 0.18: the
# tiles keep their colour in a shadow, darker, and bare floor goes dark).
DARK_BODY_UNKNOWN_OVER_CELLS_MIN = 0.3
# Connected regions are found on a view reduced by this factor (a hand is large).
REDUCE = 2
# Skin lit far brighter than the sheet (an arm near the lamp over a sheet in its own
# shadow) is brightened further by the balance until red clips, and turns from skin's
# hues towards the sheet's: it is no class at all, but still far (Lab a, b units) from the
# sheet's chroma, at least as saturated and on its red side, where a shadow on the sheet
# keeps about its chroma, glare is paler, and glare that clips red turns it green.  On
# the sheet's outer edge such a patch is a foreign object.
FOREIGN_AB_MIN = 12.0
# A patch on the sheet this share lit skin is an arm's, whatever lies beyond the sheet's
# edge (the coloured patches of clear frames hold at most 0.14 skin).
SEED_SKIN_SHARE = 0.3


# An arm found under the single balance alone must leave a trace under the balance fitted
# place by place, which bends only smoothly: where that fit took an arm for a lamp, the
# arm's edge and shading still show of no class, within the region found and on past its
# border (the region is the arm as far as the single balance showed it, widened by its
# margin).  Over the sheet's ring, away from the pieces (whose fringes are of no class),
# this share shows so on both sides of the border: real arms found that way, 0.08 to 0.75
# on the side that shows less (photoreal and generated frames); a warm lamp's tint, which
# the fit follows whole, 0.016 at most (one showed 0.062 inside and 0.003 beyond).
TRACE_UNDER_FIT_MIN = 0.04
# Pixels this near (mm) a piece's or tile's colour are not judged for that trace.
TRACE_CLEAR_OF_PIECES_MM = 3.5
# How far past the region's border (mm) the trace is looked for.
TRACE_BEYOND_MM = 15.0

# Whether a region of the reduced view (``REDUCE``) hides the board's print there.
PrintJudge = Callable[[NDArray[np.bool_]], bool]


def hand_mask(
    classes: NDArray[np.uint8],
    skin: NDArray[np.bool_],
    skin_any: NDArray[np.bool_],
    layout: CanonicalLayout,
    lab: NDArray[np.uint8] | None = None,
    sheet_ab: tuple[float, float] | None = None,
    surround: SheetSurround | None = None,
    hides_print: PrintJudge | None = None,
    without_skin: bool = False,
) -> NDArray[np.bool_] | None:
    """The region covered by a hand, or ``None`` when no hand reaches over the board.

    A hand is found where the bare sheet shows a large patch of lit skin, or, far enough
    from the worker strips that no piece can lean there, a large patch of anything but
    sheet and clearly coloured (an arm in shadow can look as red as a tile; glare or a
    shadow on the sheet is not coloured), or, given ``lab`` (the analysis Lab view) and
    the sheet's chroma there (``sheet_ab``), of no class but far from the sheet's chroma
    (see FOREIGN_AB_MIN).  Given the frame beyond the sheet (``surround``), patches with
    little skin count only when their colour goes on past the sheet's edge, as an arm's
    does: a coloured shadow or the tablecloth bowed in by the lens stops there.  The
    region then grows through skin as broad as a hand and,
    given ``lab``, through the colour of the arm's own patch on the sheet.  Given
    ``hides_print`` (whether a region of the reduced view hides the board's print), a
    body too dark for any colour counts as well where it hides the print.

    ``without_skin`` looks for an arm's body alone, skin and patches set aside: what they
    led to proved a shadow, and an arm that shows no skin may lie elsewhere.
    """
    # Every test runs on the reduced grid only (copied whole: strided views are slow).
    return reduced_hand_mask(
        every_nth(classes, REDUCE),
        every_nth(skin.view(np.uint8), REDUCE).view(bool),
        skin_any[::REDUCE, ::REDUCE],
        skin.shape,
        layout,
        lab,
        sheet_ab,
        surround,
        hides_print,
        without_skin,
    )


def reduced_hand_mask(
    small: NDArray[np.uint8],
    small_skin: NDArray[np.bool_],
    small_skin_any: NDArray[np.bool_],
    full_shape: tuple[int, ...],
    layout: CanonicalLayout,
    lab: NDArray[np.uint8] | None = None,
    sheet_ab: tuple[float, float] | None = None,
    surround: SheetSurround | None = None,
    hides_print: PrintJudge | None = None,
    without_skin: bool = False,
) -> NDArray[np.bool_] | None:
    """:func:`hand_mask` from the classes, lit skin and any skin of the view's every
    ``REDUCE``-th pixel (``lab`` stays whole), as a region of the whole view
    (``full_shape``): a view classified only there is searched as well."""
    s = layout.px_per_mm / REDUCE
    ring, outer, _, _ = layout.masks_every(REDUCE)
    nothing = np.zeros(small.shape, dtype=bool)
    if without_skin:
        patch = reaching = nothing
    else:
        coloured = cv2.inRange(small, int(PixelClass.B), int(PixelClass.R)) > 0
        if lab is not None and sheet_ab is not None:
            coloured |= _foreign(small, lab[::REDUCE, ::REDUCE], sheet_ab, outer)
        patch = (small_skin & ring) | (coloured & outer)
        # An arm may show its skin over the grid only, crossing the sheet in a shadow that
        # leaves it no colour of its own there (or one the balance took for a second
        # lamp's): its skin reaching in counts too where no patch on the sheet led to it.
        reaching = _skin_reaching_in(small, small_skin, s)
    min_px = HAND_MIN_AREA_MM2 * s * s
    n, labels, seeds = _patches(patch, min_px)
    # Skin reaching in from the view's edge is an arm's; so is a patch on the sheet that is
    # mostly skin, or whose colour goes on past the sheet's edge.  Where neither shows, an
    # arm with no skin colour at all may still reach in as a broad body.
    skinless = nothing  # an arm's body found without its skin
    searched = False  # for such a body
    # Skin reaching in proves an arm only where there is a hand's worth of it: a glint
    # is no hand, and the patches on the sheet must then prove themselves.
    a_hand_reaches_in = np.count_nonzero(reaching) >= min_px
    if (
        surround is not None
        and not a_hand_reaches_in
        and not (seeds and _an_arm_among(labels, seeds, small_skin, surround))
    ):
        skinless = reaching = _skinless_body(small, outer, layout, s, surround, hides_print)
        searched = True
        if not reaching.any():
            return None
    if reaching.any():
        apart = _apart_from(reaching, _chosen(n, labels, seeds))
        if apart.any():
            n, labels, seeds = _patches(patch | apart, min_px)
    if not seeds and surround is not None and not searched:
        # The skin reaching in was too little for a hand (a glint on a dark arm): the arm
        # may still show as a body.
        skinless = _skinless_body(small, outer, layout, s, surround, hides_print)
        if skinless.any():
            n, labels, seeds = _patches(patch | skinless, min_px)
    if not seeds:
        return None
    grow = small_skin_any.astype(np.uint8)
    grow = _u8(cv2.morphologyEx(grow, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
    # A hand is broad; the board's walls and pieces near it are narrow: an opening keeps
    # the region from running along a wall lit by the skin's warm light.
    width = _hand_width_px(s)
    grow = _u8(cv2.morphologyEx(grow, cv2.MORPH_OPEN, _disc(width)))
    n2, labels2 = cv2.connectedComponents(grow, connectivity=8)
    seeded = _chosen(n, labels, seeds)
    # The patch on the sheet always counts, even where it is too thin to grow from.
    grown = _parts_touching(np.asarray(labels2, np.int32), n2, seeded)
    # With no skin to grow through, a body found without it is the region itself.
    region = (seeded | grown | skinless).astype(np.uint8)
    region = _with_arm_beside(region, small, s)
    if lab is not None:
        region = _with_arm_alike(region, seeded, lab[::REDUCE, ::REDUCE], small, s)
    # Glare on the skin, or skin too saturated to tell from a red tile, leaves holes: the
    # region is closed to its convex hull, since an arm and hand are nearly convex.
    # Only the broad body of the arm is hulled, so that shaded floor clinging to its side
    # does not stretch the hull across the board.
    size = max(int(ARM_MIN_WIDTH_MM * s), 1) | 1
    body = cv2.morphologyEx(region, cv2.MORPH_OPEN, _disc(size))
    contours, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        cv2.fillConvexPoly(region, cv2.convexHull(contour), 1)
    margin = max(int(HAND_MARGIN_MM * s), 1)
    kernel = _disc(2 * margin + 1)
    region = _u8(cv2.dilate(region, kernel))
    full = cv2.resize(region, (full_shape[1], full_shape[0]), interpolation=cv2.INTER_NEAREST)
    return np.asarray(full > 0, dtype=bool)


def traced_under_fit(
    region: NDArray[np.bool_], fitted: NDArray[np.uint8], layout: CanonicalLayout
) -> bool:
    """Whether an arm's ``region``, found under the single balance, shows under the classes
    the place-by-place balance gave (``fitted``), within it and beyond its border: a lamp's
    tint that balance followed does not (see ``TRACE_UNDER_FIT_MIN``).  A side with
    nothing to judge it by says nothing."""
    species = cv2.inRange(fitted, int(PixelClass.B), int(PixelClass.R))
    clear = 2 * round(TRACE_CLEAR_OF_PIECES_MM * layout.px_per_mm) + 1
    judged = layout.ring_mask & ~(cv2.dilate(species, np.ones((clear, clear), np.uint8)) > 0)
    reach = 2 * round(TRACE_BEYOND_MM * layout.px_per_mm) + 1
    beyond = cv2.dilate(region.view(np.uint8), np.ones((reach, reach), np.uint8)) > 0
    unexplained = fitted >= PixelClass.UNKNOWN
    for side in (region & judged, beyond & ~region & judged):
        total = np.count_nonzero(side)
        if total and np.count_nonzero(side & unexplained) < TRACE_UNDER_FIT_MIN * total:
            return False
    return True


def _foreign(
    classes: NDArray[np.uint8],
    lab: NDArray[np.uint8],
    sheet_ab: tuple[float, float],
    where: NDArray[np.bool_],
) -> NDArray[np.bool_]:
    """Pixels ``where`` of no class whose chroma lies far from the sheet's, no paler and
    no greener."""
    out = np.zeros(classes.shape, dtype=bool)
    ys, xs = pixel_coords((classes == PixelClass.UNKNOWN) & where)  # few: measured alone
    ab = lab[ys, xs, 1:].astype(np.float32) - 128.0
    a, b = ab[:, 0], ab[:, 1]
    sa, sb = sheet_ab
    far = (a - sa) ** 2 + (b - sb) ** 2 >= FOREIGN_AB_MIN**2
    saturated = a * a + b * b >= sa * sa + sb * sb
    warm = a >= sa
    keep = far & saturated & warm
    out[ys[keep], xs[keep]] = True
    return out


def _patches(patch: NDArray[np.bool_], min_px: float) -> tuple[int, NDArray[np.int32], list[int]]:
    """The connected parts of ``patch`` (cleaned of single pixels): their count, labels,
    and those of them as large as ``min_px``."""
    found = _u8(cv2.morphologyEx(patch.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)))
    if cv2.countNonZero(found) < min_px:
        return 0, np.zeros(found.shape, np.int32), []  # not even all of it makes a hand
    n, labels = _labelled(found)
    areas = _areas(labels, n)
    seeds = [i for i in range(1, n) if areas[i] >= min_px]
    return n, labels, seeds


def _labelled(mask: NDArray[np.uint8]) -> tuple[int, NDArray[np.int32]]:
    """The 8-connected parts of ``mask``: their count (background included) and labels.

    OpenCV's labelling with statistics costs eight times the labelling alone (0.40 ms
    against 0.05 ms on the reduced view, one core); the few areas asked for are counted
    apart (:func:`_areas`)."""
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    return int(n), np.asarray(labels, np.int32)


def _areas(labels: NDArray[np.int32], count: int) -> NDArray[np.intp]:
    """Pixels of each of ``count`` labelled parts (label 0: the background)."""
    return np.bincount(labels.ravel(), minlength=count)


def _an_arm_among(
    labels: NDArray[np.int32], seeds: list[int], skin: NDArray[np.bool_], surround: SheetSurround
) -> bool:
    """Whether any of the patches ``seeds`` is an arm's: mostly skin, or of a colour that
    goes on beyond the sheet's edge."""
    skin_px = np.bincount(labels[skin], minlength=int(labels.max()) + 1)
    sizes = np.bincount(labels.ravel(), minlength=int(labels.max()) + 1)
    if any(skin_px[i] >= SEED_SKIN_SHARE * sizes[i] for i in seeds):
        return True
    return any(surround.goes_on(labels == i) for i in seeds)


def _chosen(count: int, labels: NDArray[np.int32], seeds: list[int]) -> NDArray[np.bool_]:
    """The pixels of the ``seeds`` among ``count`` labelled parts: a lookup by label
    (np.take: far faster than indexing)."""
    chosen = np.zeros(max(count, 1), dtype=bool)
    chosen[seeds] = True
    return np.asarray(np.take(chosen, labels), dtype=bool)


def _apart_from(stretches: NDArray[np.bool_], found: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The connected parts of ``stretches`` that share no pixel with ``found``."""
    n, parts = cv2.connectedComponents(_u8(stretches), connectivity=8)
    labels = np.asarray(parts, np.int32)
    return stretches & ~_parts_touching(labels, n, found)


def _skin_reaching_in(
    classes: NDArray[np.uint8], skin: NDArray[np.bool_], px_per_mm: float
) -> NDArray[np.bool_]:
    """Broad stretches of lit skin anywhere on the sheet that reach the view's edge
    through a way as broad of pixels that are not bare sheet: an arm whose skin leaves
    the skin colours where it crosses the sheet (in its own shade, or lit from the side)
    but shows them over the grid.  A pale tile is neither as broad as a hand across nor
    joined to the edge: bare sheet surrounds the grid.

    Glare and the arm's own shading leave holes of no known colour in its skin: they
    count towards its breadth, but a good share of a stretch must be skin, or skin alone
    must be as broad as a hand somewhere in it.  A stretch with far more skin than any
    tile shows (``SKIN_ALONE_MM2``) is an arm's without a way out."""
    width = _hand_width_px(px_per_mm)
    candidate = skin | (classes == PixelClass.UNKNOWN)
    broad = _u8(cv2.morphologyEx(candidate.astype(np.uint8), cv2.MORPH_OPEN, _disc(width)))
    # Most frames: the broad stretches, if any, hold no skin at all (asked before the
    # stretches are labelled, which costs more than the rest of the search).
    if not cv2.countNonZero(cv2.bitwise_and(broad, skin.view(np.uint8))):
        return np.zeros(skin.shape, dtype=bool)
    n, parts = _labelled(broad)
    skin_px = np.bincount(parts[skin], minlength=n)
    skin_px[0] = 0
    sizes = _areas(parts, n)
    skinned = skin_px >= SKIN_SHARE_MIN * sizes
    skinned[0] = False
    stretches: NDArray[np.bool_] = np.take(skinned, parts)
    # A hard shadow joined to the arm can make its stretch mostly shade: skin as broad as
    # a hand on its own still counts, alone.
    stretches |= cv2.morphologyEx(_u8(skin), cv2.MORPH_OPEN, _disc(width)) > 0
    if not stretches.any():
        return stretches
    # The way out must be as broad as an arm too: the grid's walls and the view's rim are
    # thin lines of no known colour that would join every tile to the edge.
    foreign = _u8(
        cv2.morphologyEx(_u8(classes != PixelClass.NEUTRAL), cv2.MORPH_OPEN, _disc(width))
    )
    foreign |= _u8(stretches)
    n2, joined = cv2.connectedComponents(foreign, connectivity=8)
    rim = np.ones(skin.shape, dtype=bool)
    rim[1:-1, 1:-1] = False
    vast = skinned & (skin_px >= SKIN_ALONE_MM2 * px_per_mm * px_per_mm)
    return stretches & (_parts_touching(np.asarray(joined, np.int32), n2, rim) | vast[parts])


def _skinless_body(
    classes: NDArray[np.uint8],
    outer: NDArray[np.bool_],
    layout: CanonicalLayout,
    px_per_mm: float,
    surround: SheetSurround,
    hides_print: PrintJudge | None,
) -> NDArray[np.bool_]:
    """An arm's body found without its skin (:func:`_body_reaching_in`): of any colour
    first, then, given ``hides_print``, too dark for colour where it hides the print."""
    masks = layout.masks_every(REDUCE)
    places = (masks.cells, masks.worker_spaces)
    body = _body_reaching_in(classes, outer, places, px_per_mm, surround, hides_print)
    if not body.any() and hides_print is not None:
        body = _body_reaching_in(
            classes, outer, places, px_per_mm, surround, hides_print, too_dark=True
        )
    return body


def _body_reaching_in(
    classes: NDArray[np.uint8],
    outer: NDArray[np.bool_],
    places: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    px_per_mm: float,
    surround: SheetSurround,
    hides_print: PrintJudge | None = None,
    too_dark: bool = False,
) -> NDArray[np.bool_]:
    """Broad stretches of no sheet colour (species or no class) that reach the view's edge
    across the sheet's bare ``outer`` band, cover ``BODY_MIN_AREA_MM2`` and a hand's least
    patch of the places pieces stand (``places``: the cells' windows, or else the worker
    spaces' circles), where they hide the pieces' colours, and whose colour goes on past
    the sheet's edge: an arm showing no skin at all.

    Over a worker strip alone, a shadow's soft edge or a lamp's tint along the sheet's
    edge shows as such a body too, the pieces keeping their colours under it (conditions
    94256): there the body must hide the board's print as well (``hides_print``, whether
    a region hides it; without one, only bodies over the cells count).

    With ``too_dark``, pixels too dark for any colour count as well, and a stretch must
    hide the board's print instead of the tiles' colours: the darkest skin in a shadow is
    as dark as a lamp arm's hard shadow, which only dims the print (and joined to the red
    tiles beside it, an arm shows their colour over much of the cells).  Such a stretch
    joins the arm's lit and shaded parts, so only where it crosses the sheet's outer band
    is its colour the one that goes on past the edge.  It must be as broad as a forearm,
    or, narrower, hide the tiles' colours too (over a worker strip alone, hide the
    pieces' colours whatever its breadth)."""
    body = np.zeros(classes.shape, dtype=bool)
    last = PixelClass.DARK if too_dark else PixelClass.UNKNOWN
    unexplained = cv2.inRange(classes, int(PixelClass.B), int(last))
    area_px = HAND_MIN_AREA_MM2 * px_per_mm * px_per_mm
    on_band = cv2.bitwise_and(unexplained, outer.view(np.uint8))  # 0 or 1
    if cv2.countNonZero(on_band) < area_px:  # most frames: the edge is bare
        return body
    parts, reaching = _broad_parts_reaching_the_edge(_u8(unexplained), px_per_mm)
    body_px = BODY_MIN_AREA_MM2 * px_per_mm * px_per_mm
    patch_px = BODY_OVER_CELLS_MIN_MM2 * px_per_mm**2
    cells, worker_spaces = places
    for label in reaching:
        part = parts == label
        if np.count_nonzero(part) < body_px:
            continue
        over = part & cells
        on_strip = np.count_nonzero(over) < patch_px
        if on_strip:
            over = part & worker_spaces
            if np.count_nonzero(over) < patch_px or hides_print is None:
                continue
        over_px = np.count_nonzero(over)
        unknown = np.count_nonzero(over & (classes == PixelClass.UNKNOWN))
        if not too_dark:
            if unknown < BODY_UNKNOWN_OVER_CELLS_MIN * over_px:
                continue
            if on_strip and not (hides_print is not None and hides_print(part)):
                continue
            if _goes_on_somewhere(part, surround, area_px):
                body |= part
            elif _goes_on_somewhere(part & outer, surround, area_px):
                # Joined to the tiles it lies on, a body takes their colours as a whole;
                # where it crosses the band its own colour goes on, and the arm is its
                # own pixels.
                body |= _own_body(part, classes, last, px_per_mm)
            continue
        # A person's shadow lies along a whole strip as broad as a forearm, the pieces
        # keeping their colours in it: over a strip alone, only hiding them counts.
        forearm = not on_strip and _width_px(part) >= DARK_BODY_MIN_WIDTH_MM * px_per_mm
        colourless = bool(unknown >= DARK_BODY_UNKNOWN_OVER_CELLS_MIN * over_px)
        hides = (forearm or colourless) and hides_print is not None and hides_print(part)
        if hides and _goes_on_somewhere(part & outer, surround, area_px):
            body |= part
    return body


def _own_body(
    part: NDArray[np.bool_], classes: NDArray[np.uint8], last: int, px_per_mm: float
) -> NDArray[np.bool_]:
    """The arm in a body found reaching in (``part``): its pixels of no species' colour
    (classes above R up to ``last``) as broad as a hand, in the pieces that reach the
    view's edge.  A body is joined to the tiles it lies against, which show their colours
    (conditions 77100: a dark arm over the grid joined to half the board's tiles); where
    too little of it is left, the whole part stands."""
    own = _u8(part & (classes > PixelClass.R) & (classes <= last))
    parts, labels = _broad_parts_reaching_the_edge(own, px_per_mm)
    reaching = np.isin(parts, labels)
    area_px = HAND_MIN_AREA_MM2 * px_per_mm * px_per_mm
    return reaching if np.count_nonzero(reaching) >= area_px else part


def _broad_parts_reaching_the_edge(
    mask: NDArray[np.uint8], px_per_mm: float
) -> tuple[NDArray[np.int32], list[int]]:
    """The parts of ``mask`` (0 or 1) as broad as a hand, labelled, and the labels of
    those that reach the view's edge: what comes in from outside, as an arm does."""
    broad = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disc(_hand_width_px(px_per_mm)))
    _, parts = _labelled(_u8(broad))
    rim = np.unique(np.concatenate([parts[0], parts[-1], parts[:, 0], parts[:, -1]]))
    return parts, rim[rim > 0].tolist()


def _goes_on_somewhere(crossing: NDArray[np.bool_], surround: SheetSurround, min_px: float) -> bool:
    """Whether one of the separate stretches (of ``min_px`` or more) where a body crosses
    the sheet's band goes on past the sheet's edge: an arm does where it comes in, not
    where its hand ends on the band elsewhere (conditions 80250: a dark arm across the
    board, its fingertips over the worker strip beside the tablecloth; judged together,
    the cloth beside the fingertips outweighed the arm beyond the edge)."""
    count, pieces = _labelled(_u8(crossing))
    areas = _areas(pieces, count)
    broad = [k for k in range(1, count) if areas[k] >= min_px]
    if not broad:
        return surround.goes_on(crossing)
    return any(surround.goes_on(np.asarray(pieces == k)) for k in broad)


def _with_arm_beside(
    region: NDArray[np.uint8], classes: NDArray[np.uint8], px_per_mm: float
) -> NDArray[np.uint8]:
    """``region`` (the skin found) with the unexplained pixels beside it that join it as
    one broad piece: the rest of the same arm."""
    reach = max(int(ARM_REACH_MM * px_per_mm), 1)
    near = _dilated_near(region, _disc(2 * reach + 1), reach)
    unexplained = (classes == PixelClass.UNKNOWN) & (near > 0)
    return _broad_parts_joining(unexplained, region, px_per_mm)


def _broad_parts_joining(
    candidates: NDArray[np.bool_],
    region: NDArray[np.uint8],
    px_per_mm: float,
    gap: NDArray[np.bool_] | None = None,
) -> NDArray[np.uint8]:
    """``region`` with the ``candidates`` that form, together with it, pieces as broad as a
    hand: a wall or a thin line of them does not carry the region further.  Pieces may
    join the region across ``gap`` pixels, which are not taken themselves."""
    width = _hand_width_px(px_per_mm)
    joined = candidates.astype(np.uint8) | region
    broad = _u8(cv2.morphologyEx(joined, cv2.MORPH_OPEN, _disc(width)))
    found = broad | region
    joinable = found if gap is None else found | _u8(gap)
    n, parts = cv2.connectedComponents(joinable, connectivity=8)
    return _u8(_parts_touching(np.asarray(parts, np.int32), n, region > 0) & (found > 0))


def _parts_touching(
    parts: NDArray[np.int32], count: int, where: NDArray[np.bool_]
) -> NDArray[np.bool_]:
    """The pixels of every labelled part (label 0 is background) that has a pixel in
    ``where``: a lookup by label, where searching for each pixel's label is slow."""
    touched = np.bincount(parts[where], minlength=count) > 0
    touched[0] = False
    return np.asarray(np.take(touched, parts), dtype=bool)


def _with_arm_alike(
    region: NDArray[np.uint8],
    seeded: NDArray[np.bool_],
    lab: NDArray[np.uint8],
    classes: NDArray[np.uint8],
    px_per_mm: float,
) -> NDArray[np.uint8]:
    """``region`` with the broad stretches of the colour the arm shows on the sheet
    (``seeded``) that join it: the arm's body where light took it out of the skin colours."""
    if not seeded.any():
        return region
    seed_a, seed_b = np.median(lab[seeded][:, 1:], axis=0).tolist()
    # In doubled units every offset is a whole number (a median of 8-bit values is one,
    # or half-way between two): integer squares, exact, and far faster than hypot.
    da = 2 * lab[..., 1].astype(np.int32) - round(2 * seed_a)
    db = 2 * lab[..., 2].astype(np.int32) - round(2 * seed_b)
    alike = da * da + db * db <= (2 * ARM_ALIKE_AB) ** 2
    alike &= (classes != PixelClass.NEUTRAL) & (classes != PixelClass.DARK)
    # A hard shadow across the arm changes its colour there: the arm beyond is joined
    # across such a gap near the region, though the gap itself is not taken.
    reach = max(int(ARM_REACH_MM * px_per_mm), 1)
    gap = _dilated_near(region, _disc(2 * reach + 1), reach) > 0
    return _broad_parts_joining(alike, region, px_per_mm, gap)


def within_reach(hand: NDArray[np.bool_], px_per_mm: float, reach_mm: float) -> NDArray[np.bool_]:
    """Everything within ``reach_mm`` of the hand's region.

    The region can miss the part of a hand a lamp lights until a channel clips: what is
    left of its colour is the floor's, and nothing tells where that skin ends.
    """
    reach_px = reach_mm * px_per_mm
    near = np.zeros(hand.shape, dtype=bool)
    found = bounding_box(hand)
    if found is None:
        return near
    # Nothing beyond the hand's box widened by the reach can be within it, and the
    # shortest path to the hand from inside that box stays inside it.
    margin = int(np.ceil(reach_px)) + 1
    y0, x0 = max(found[1] - margin, 0), max(found[0] - margin, 0)
    y1, x1 = found[3] + margin, found[2] + margin
    box = (~hand[y0:y1, x0:x1]).astype(np.uint8)
    distance = cv2.distanceTransform(box, cv2.DIST_L2, 5)
    near[y0:y1, x0:x1] = distance <= reach_px
    return near


def _dilated_near(
    region: NDArray[np.uint8], kernel: NDArray[np.uint8], reach_px: int
) -> NDArray[np.uint8]:
    """``cv2.dilate(region, kernel)`` worked out only around the region: nothing further
    than ``reach_px`` (the kernel's radius) from it can change."""
    near = np.zeros_like(region)
    box = bounding_box(region)
    if box is None:
        return near
    y0, x0 = max(box[1] - reach_px - 1, 0), max(box[0] - reach_px - 1, 0)
    y1, x1 = box[3] + reach_px + 1, box[2] + reach_px + 1
    near[y0:y1, x0:x1] = _dilate_by_rows(region[y0:y1, x0:x1], kernel)
    return near


def _dilate_by_rows(image: NDArray[np.uint8], kernel: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """``cv2.dilate(image, kernel)`` for a kernel (a disc) whose every row is one run
    centred on its middle column.

    The dilation is then the maximum, over the kernel's rows, of the image widened by that
    row's half-width and shifted by its offset; widening step by step from the narrowest
    row to the widest costs two maxima a step.  For a disc as wide as the arm's reach this
    is several times faster than OpenCV's dilation, whose cost grows with the disc's area.
    """
    halves = _centred_runs(kernel.tobytes(), kernel.shape) if kernel.dtype == np.uint8 else None
    if halves is None:
        return np.asarray(cv2.dilate(image, kernel), dtype=np.uint8)
    rows, radius = kernel.shape[0], kernel.shape[1] // 2
    top = rows // 2
    height, width = image.shape
    padded = np.zeros((height + 2 * top, width + 2 * radius), dtype=np.uint8)
    padded[top : top + height, radius : radius + width] = image
    widened = padded[:, radius : radius + width].copy()
    out = np.zeros((height, width), dtype=np.uint8)
    reached = 0
    for row in sorted(range(rows), key=lambda r: halves[r]):
        while reached < halves[row]:
            reached += 1
            np.maximum(widened, padded[:, radius + reached : radius + reached + width], out=widened)
            np.maximum(widened, padded[:, radius - reached : radius - reached + width], out=widened)
        np.maximum(out, widened[row : row + height], out=out)
    return out


@functools.lru_cache(maxsize=16)
def _centred_runs(data: bytes, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """Half-width of each row of an odd-sized 8-bit kernel (its bytes and shape) whose rows
    are each one run of ones centred on its middle column, or ``None`` for any other
    kernel; the same few discs every frame."""
    kernel = np.frombuffer(data, dtype=np.uint8).reshape(shape)
    rows, cols = kernel.shape
    if rows % 2 == 0 or cols % 2 == 0:
        return None
    middle = cols // 2
    halves = []
    for row in kernel:
        ones = np.flatnonzero(row)
        if len(ones) == 0 or len(ones) != ones[-1] - ones[0] + 1:
            return None
        if ones[0] + ones[-1] != 2 * middle:
            return None
        halves.append(int(ones[-1]) - middle)
    return tuple(halves)


def _width_px(region: NDArray[np.bool_]) -> float:
    """The region's greatest breadth (pixels): the widest disc that fits inside it."""
    inside = cv2.distanceTransform(_u8(region), cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    return 2.0 * float(inside.max())


def _hand_width_px(px_per_mm: float) -> int:
    """A hand's least width (HAND_MIN_WIDTH_MM) in pixels, odd: an opening by a disc this
    wide keeps only what is as broad as a hand."""
    return max(int(HAND_MIN_WIDTH_MM * px_per_mm), 1) | 1


def _disc(diameter_px: int) -> NDArray[np.uint8]:
    """A round structuring element: hands and arms have no corners."""
    return _u8(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (diameter_px, diameter_px)))


def _u8(image: NDArray[np.generic]) -> NDArray[np.uint8]:
    """An OpenCV result known to be 8-bit, typed as such."""
    return np.asarray(image, dtype=np.uint8)
