"""Hostile-input measurement: generators, targets and the tally behind ``companion bench fuzz``."""
