"""Benchmarks run by ``companion bench NAME``; each module is one benchmark."""
