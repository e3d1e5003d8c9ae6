"""The progress bar, kept importable here for the commands that use this path."""

from companion.progress import Progress

__all__ = ["Progress"]
