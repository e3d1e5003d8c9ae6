"""The fast pixel lookups agree with numpy's own, on every shape of mask."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.pixels import bounding_box, every_nth, pixel_coords


@pytest.mark.parametrize("seed", range(20))
def test_pixel_coords_match_nonzero_on_whole_masks_and_strided_views(seed: int) -> None:
    rng = np.random.default_rng(seed)
    height, width = (int(v) for v in rng.integers(1, 60, 2))
    mask = rng.random((height, width)) < rng.random()
    for view in (mask, mask[::2, ::3], mask[:, : max(width // 2, 1)]):
        ys, xs = pixel_coords(view)
        want_ys, want_xs = np.nonzero(view)
        assert ys.tolist() == want_ys.tolist()
        assert xs.tolist() == want_xs.tolist()


def test_bounding_box_ends_one_past_the_last_pixel() -> None:
    mask = np.zeros((40, 50), dtype=bool)
    mask[7, 9] = True
    mask[20, 31] = True
    assert bounding_box(mask) == (9, 7, 32, 21)
    assert bounding_box(mask.astype(np.uint8) * 255) == (9, 7, 32, 21)


def test_bounding_box_of_an_empty_mask_is_none() -> None:
    assert bounding_box(np.zeros((10, 10), dtype=bool)) is None
    assert pixel_coords(np.zeros((10, 10), dtype=bool))[0].size == 0


@pytest.mark.parametrize("seed", range(10))
def test_every_nth_takes_the_strided_pixels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    height, width = (int(v) for v in rng.integers(1, 80, 2))
    for channels in ((), (3,)):
        image = rng.integers(0, 256, (height, width, *channels), dtype=np.uint8)
        for step in (1, 2, 3):
            for part in (image, image[: height - height % step, : width - width % step]):
                got = every_nth(part, step)
                assert got.flags.c_contiguous
                assert np.array_equal(got, part[::step, ::step])
