"""``companion run`` started as a user would, for the tests of what it refuses at start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def refused_run(config: Path) -> str:
    """Runs ``companion run --config CONFIG``, which must refuse to start (exit status 2)
    without a traceback; returns what it said on stderr."""
    result = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr
