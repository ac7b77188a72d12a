"""Generators of synthetic federations: the demo's inputs, the benchmarks' histories and the
tests' random tournaments. Not part of the product: only ``flows.demo``, ``bench/`` and
``tests/`` import it (an import-linter contract in ``pyproject.toml`` keeps it so)."""
