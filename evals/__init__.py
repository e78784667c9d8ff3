"""Evaluations and benchmarks: question sets in YAML plus tiny runners over public entries."""
