"""The reader keeps BLAS on the calling thread: its systems are too small for threads."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from companion.boards import load_profile
from companion.vision.blas import keep_blas_on_one_thread
from companion.vision.reader import BoardReader


def _blas_threads() -> list[int]:
    return [int(info["num_threads"]) for info in threadpool_info() if info["user_api"] == "blas"]


def test_a_reader_limits_every_loaded_blas_to_one_thread() -> None:
    if not _blas_threads():
        pytest.skip("no BLAS with a thread pool is loaded in this process")
    threadpool_limits(limits=2, user_api="blas")  # as a fresh process on two cores has them
    keep_blas_on_one_thread.cache_clear()
    assert max(_blas_threads()) == 2
    BoardReader(load_profile("troia"))
    assert set(_blas_threads()) == {1}
