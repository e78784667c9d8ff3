"""The launcher: the jailed process that imports the submission and calls ``custom_kernel``.

Run by ``sandbox.runner`` through ``sandbox.jail.run_isolated`` as ``python -m
sandbox.launcher CONFIG_JSON``; it connects to the judge's socket (a path in scratch),
imports the submission, then obeys the judge's commands (``sandbox.launcher.serve``):
map the judge's shared buffers, call ``custom_kernel`` on views of them, run a timed
batch, write a value for the judge's null batch. ``sandbox.launcher.guard`` watches each
call (own Triton kernel launched, no PyTorch compute, no side stream).

Nothing this process says is believed: its "done", its guard findings and its own event
timings are claims. A claim of failure fails the run; a claim of success only lets the
judge look at the outputs itself. Public entry: ``main(argv)``.
"""
from sandbox.launcher.serve import main

__all__ = ["main"]
