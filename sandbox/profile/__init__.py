"""Profiler feedback: Nsight Compute figures on one call of the user's kernel, and a diagnosis.

Public entry: ``profile_submission(source, exercise, *, dtype=None, ...) -> dict`` (module
``run``) and ``diagnose(profile, *, report=None) -> list[dict]`` (module ``diagnosis``:
French items with links into the guide). ``ncu`` finds Nsight Compute and reads its CSV;
``driver`` is what runs inside the jail under ncu.

Figures from ncu explain; they never score: kernels replayed under ncu run slower, and
the bandwidth and verdict come from ``timing`` only. (The submission runs as the same
user as ncu inside the sandbox, so it could forge its own figures: it would only mislead
its own feedback.) Run it under ``gpuqueue.gpu_slot`` like a timing, so that it does not
disturb someone else's measurement.
"""
from sandbox.profile.diagnosis import LINKS, diagnose
from sandbox.profile.ncu import find_ncu, parse_ncu_csv, summarise
from sandbox.profile.run import profile_submission

__all__ = ["profile_submission", "diagnose", "LINKS", "find_ncu", "parse_ncu_csv", "summarise"]
