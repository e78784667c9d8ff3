"""The judge: the trusted process that writes a submission's report.

Run by ``sandbox.runner`` as ``python -I -c <bootstrap> JOB_JSON`` (the bootstrap puts the
package's checkout first on ``sys.path`` and calls ``main``); it never imports, executes or
unpickles anything of the submission: it reads the launcher's JSON messages and the
memory it shares with it, nothing else. As root it drops to a uid of its own (different
from the launcher's) and sets ``PR_SET_DUMPABLE 0``. Its report goes to the parent on a
socket only the parent holds. Modules: ``main`` (the run), ``session`` (commands to the
launcher, shared buffers, stopping the launcher through the parent), ``checks``
(correctness), ``clock`` (GPU timing), ``figures`` (GB/s, verdict).

What an attacker with full control of the launcher process can do (its memory, its
modules, its descriptors, when it answers and what it says), and what it cannot:
- It cannot write the report, nor make its files, stdout, exit code or messages count as
  a result: they can only add a failure (crash, time-out, its own guard's findings).
- It cannot be "correct" without correct outputs: the judge draws every seed with
  ``secrets`` after the module is loaded, makes the inputs, keeps them out of the
  launcher's reach (a private copy, or the seed to regenerate them), computes the
  reference with the exercise's trusted code, poisons every output with NaN before each
  call and reads every output back itself, timed calls included; inputs are compared
  with the private copy. Seed replay, inputs overwritten with the answer, results kept
  from an earlier call (every timed batch gets fresh inputs), memory left by the
  reference (it never leaves the judge's process) and CUDA graphs replaying old
  pointers all end "incorrect".
- It cannot bend the clock: the figure is the judge's wall clock from resuming the
  stopped launcher to the completion of the judge's own read of a random sample of
  every output, around a full batch (N sets) and a short one (K = 2 sets drawn at
  random) in each round; per call = (full − short) / (N − K) − flush, the flush timed by
  the judge alone. Events, ``do_bench`` and ``time`` patched in the launcher change only
  ``claimed_median_us``. Side streams and lazy work are inside the clock, since the
  judge's read of the outputs waits for them or finds poison; a "done" before the work
  ends finds poison in the sample ("early_done"); a kernel left queued before a batch
  (or before the judge times its flush) is seen by the idle probe (refused above 200 µs;
  21.6 µs idle, ≥ 725 µs busy on the H200); a skipped L2 flush leaves the judge's flush
  buffer unzeroed (refused).
- What it can still do to the figure, with bounds: (1) slow its short batches by d
  (it sees K sets in the order): that lowers the per-call time by d / (N − K) and raises
  the implied fixed cost by d·N / (N − K); past ``FIXED_CAP_US`` (2 000 µs, against
  1.69–1.76 ms measured per batch on the H200) the round is timed with the cap instead,
  so it gains at most (cap − true fixed cost) / N per call (N ≈ 42 sets of 2.28 GB for
  the fp32 16384² transposition in 70 % of an H200's free memory: about 300 / 42 ≈ 7 µs,
  1.4 % of 521 µs); slowing its full batches only slows its figure; (2) leave a fraction
  f of one output unwritten at "done": it escapes the 256-position sample with
  probability (1 − f)^256 and gains at most f of one call, then fails the full check;
  (3) fuse the N calls of a batch into fewer launches or overlap its flushes with its
  kernels: every byte is still moved and checked, so it saves only per-launch gaps and
  ramps (not measured; the physical floor, bytes / peak, still rejects anything above
  102 % of the card's peak); (4) slow itself or fail, at will.
- Free mode (``libre``): the inputs and the reference are the submission's, so the judge
  cannot check the values; it checks that inputs stay unchanged and that every output
  element is written, times the same way, and says in the report that correctness was
  declared by the module, not judged, and that the figure is unverified.
- Out of reach of this design: the GPU driver and the kernel (a native exploit of the
  driver from the launcher could reach the judge's context); the judge's idle probe and
  clock assume one measurement at a time on the GPU (``sandbox.gpuqueue``).

In interpreter mode the judge checks but does not time (verdict ``not_timed``); with
TUILE_JUDGE_CPU_BATCHES=1 (tests only) it also rehearses the GPU's batch protocol on the
CPU with the ``cpu-memfd`` buffers, so that CI runs every step of it; those times mean
nothing and are not reported as figures.

Public entry: ``main(argv)``.
"""
from sandbox.judge.main import main

__all__ = ["main"]
