"""companion: a physical-table companion for real board games."""

__version__ = "0.1.0"
