"""Learning the board's colours from a photograph.

From a photo of the board, the sheet's colour (the white-balance reference), the vat floor's
chroma (from cells that are clearly floor) and each species' chroma (from cells that clearly
show it) are measured and stored in the profile's optional ``calibration`` object.  Species
absent from the photo keep their printed values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import SPECIES, BoardProfile, profile_from_dict
from companion.errors import CompanionError
from companion.vision.canonical import CanonicalLayout
from companion.vision.cells import CellRules, class_fractions, read_cells
from companion.vision.colour import ColourModel, classify, white_balance
from companion.vision.illumination import observed_sheet
from companion.vision.localize import BoardLocator, BoardNotFound

MIN_CELLS = 3


def calibrate(profile: BoardProfile, image: NDArray[np.uint8]) -> ColourModel:
    """A colour model measured from ``image`` (the profile's model filling any gaps)."""
    base = ColourModel.from_profile(profile)
    layout = CanonicalLayout(profile)
    gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    try:
        loc = BoardLocator(profile).locate(gray)
    except BoardNotFound as exc:
        raise CompanionError(str(exc)) from exc
    view = layout.warp(image, loc.homography)
    sheet = observed_sheet(view, layout)
    balanced = white_balance(view, sheet, base)
    lab = np.asarray(cv2.cvtColor(balanced, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    classes, _, _ = classify(lab, base.lookup_table())
    cells = read_cells(class_fractions(classes, layout.cell_labels), CellRules(), {})
    ab = lab[..., 1:].astype(np.float64) - 128.0
    chroma: dict[str, list[NDArray[np.float64]]] = {ch: [] for ch in "." + SPECIES}
    for i, ch in enumerate(cells):
        if ch in chroma:
            chroma[ch].append(ab[layout.cell_labels == i])
    floor = base.floor_ab
    if len(chroma["."]) >= MIN_CELLS:
        floor = _median_ab(chroma["."])
    species = dict(base.species_ab)
    for letter in SPECIES:
        if len(chroma[letter]) >= MIN_CELLS:
            species[letter] = _median_ab(chroma[letter])
    return ColourModel(base.sheet_bgr, floor, species)


def _median_ab(parts: list[NDArray[np.float64]]) -> tuple[float, float]:
    values = np.concatenate(parts)
    med = np.median(values, axis=0)
    return (float(med[0]), float(med[1]))


def with_calibration(profile: BoardProfile, model: ColourModel) -> dict[str, Any]:
    """The profile's file content with ``calibration`` set (validated by reloading)."""
    data = profile.to_dict()
    data["calibration"] = model.to_dict()
    profile_from_dict(data)
    return data


def save_profile(data: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
