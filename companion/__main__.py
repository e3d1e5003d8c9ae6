"""Allows ``python -m companion``."""

import sys

from companion.cli import main

sys.exit(main())
