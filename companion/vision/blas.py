"""The reader's linear algebra runs on the calling thread.

Its systems are small (the light's lattice has under 200 unknowns), yet OpenCV 5 wheels
hand ``cv2.solve`` to a bundled, threaded OpenBLAS, and numpy brings one of its own.  Their
worker threads cost more than the sums: on a busy core (a camera loop beside the
dashboard) one such solve took 40 ms instead of 0.2, and the threads spun on after it,
slowing the rest of the frame.
"""

from __future__ import annotations

import functools

from threadpoolctl import threadpool_limits


@functools.cache
def keep_blas_on_one_thread() -> None:
    """Limit every BLAS loaded in this process to one thread (once per process: the
    limit holds until something raises it)."""
    threadpool_limits(limits=1, user_api="blas")


__all__ = ["keep_blas_on_one_thread"]
