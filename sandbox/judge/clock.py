"""The judge's clock on the GPU: batches of calls timed from outside the launcher.

Public entries: ``time_gpu(j, info)`` fills the report's timing fields (median, p10,
p90 per call over the timed rounds, each round's figure, the raw batch times, the fixed
cost and the flush cost removed, the launcher's claim); ``per_call_us(...)`` is the
arithmetic of one round; ``copy_ceiling_gbps(j, l2_bytes)`` measures a large device copy
by the judge alone. The bounds an attacker with full control of the launcher has on
these figures are in ``sandbox.judge``'s docstring.

One batch (``_batch``) on a list of sets: the launcher is stopped (SIGSTOP through the
parent); the judge writes fresh inputs into those sets, poisons their outputs (NaN) and
their flush buffers, then runs its idle probe (a tiny kernel and a synchronise: 21.6 µs
median on an idle H200, 725 µs and more with another context's work queued, so above
200 µs the GPU is busy and the run is refused); it takes t0, resumes the launcher and
sends "batch"; the launcher, for each set in the order given, zeroes that set's flush
buffer (2 × L2, at least 128 MB) and calls ``custom_kernel``, then synchronises and
answers; the judge reads a random sample of every output used in one gather (last
output first) and stops its clock when that read completes. A poisoned element in the
sample fails the run ("early_done"). Untimed, the launcher stopped again, the judge
checks the flush buffers used are zero, regenerates their inputs from their seeds,
checks them unchanged and every output used against its own reference.

One timed round is a full batch (all N sets, time T_full) and a short batch (K = 2 sets
drawn at random, T_short), so the batch's fixed cost (two GPU context switches, the
messages, the sample read) cancels out instead of being guessed:
c = (T_full − T_short) / (N − K) − flush per call, and the implied fixed cost is
f = T_short − K × (c + flush). If f exceeds ``FIXED_CAP_US`` the round falls back to
c = (T_full − cap) / N − flush. ``flush`` is the judge's own measure of a flush as it
costs inside a batch, the launcher stopped: (write one output-sized buffer, then zero a
flush buffer) minus (write the buffer), so that the write-back of the dirty lines the
previous call left is counted.
"""
from __future__ import annotations

import math
import secrets
import statistics
import time

from sandbox.records import Fault

# Fixed cost of one batch on the H200 (fp32 16384² transposition, 23 sets): the judge's
# raw batch time minus the launcher's own span from its first flush to its last kernel
# was 1.69 and 1.76 ms per batch (bench/results/2026-12-01-judge-clock-diag{1,2}-h200.json).
# A round whose implied fixed cost is above this cap is timed as if the fixed cost were
# the cap, so a launcher that slows its short batches gains at most (cap − true) / N per
# call (about 300 / 42 ≈ 7 µs there).
FIXED_CAP_US = 2000.0
SHORT_SETS = 2              # K: the sets of a round's short batch, drawn at random
IDLE_LIMIT_US = 200.0       # idle probe: 21.6 µs idle, ≥ 725 µs busy (H200, same record)
MAX_SETS = 64
# Of the free GPU memory, for the N buffer sets: 0.70 gives about 42 sets of 2.28 GB for
# the fp32 16384² transposition on an H200 (23 at 0.40), out of about 148 GB free. The
# verification regenerates one set at a time with its reference (3 × a set's inputs and
# output are kept for it inside the fraction: 6.4 GB there, isclose's temporaries
# included), the remaining 30 % (about 44 GB) is slack; the launcher allocates nothing
# big of its own (views of the judge's buffers, events).
MEM_FRACTION = 0.70
MIN_FLUSH_BYTES = 128 * 10**6
SAMPLES_PER_OUTPUT = 256
WARMUP_ROUNDS = 1
TIMED_ROUNDS = 5
FLUSH_PROBE_SETS = 3        # sets on which the judge measures a flush as a batch pays it
_POISON_INT = 0x5A5A5A5A
# The same protocol on the CPU (interpreter mode, TUILE_JUDGE_CPU_BATCHES=1): a rehearsal
# of every message, stop, poison, sample and check, on small shapes; its times mean nothing.
CPU_FLUSH_BYTES = 1 << 20
CPU_REHEARSAL_BYTES = 36 << 20   # about 24 sets of 64 × 96 at MEM_FRACTION


def _sync(torch) -> None:
    if torch.cuda.is_initialized():
        torch.cuda.synchronize()


def idle_probe_us(j, tries: int = 5) -> float:
    torch = j.torch
    buf = j.probe_buf
    vals = []
    for _ in range(tries):
        t0 = time.perf_counter_ns()
        buf.add_(1.0)
        _sync(torch)
        vals.append((time.perf_counter_ns() - t0) / 1e3)
    return statistics.median(vals)


def wait_idle(j) -> float:
    """The idle probe, a few times 20 ms apart; busy throughout → refused."""
    worst = 0.0
    for _ in range(10):
        us = idle_probe_us(j)
        if us <= IDLE_LIMIT_US:
            return us
        worst = max(worst, us)
        time.sleep(0.02)
    raise Fault("background_work", "travail GPU en arrière-plan : le GPU restait occupé "
                f"({worst:.0f} µs pour un noyau minuscule du juge, au lieu d'une vingtaine "
                "quand il est libre) alors que le processus de la soumission était arrêté ; "
                "un noyau laissé en file après la fin d'un appel est refusé.")


def event_median_us(torch, fn, reps: int = 20, flush=None) -> float:
    """CUDA events in the judge's own process, around ``fn`` (judge work only); on the CPU
    (the protocol rehearsal) the wall clock."""
    times = []
    for _ in range(reps + 3):
        if flush is not None:
            flush.zero_()
        if not torch.cuda.is_initialized():
            t0 = time.perf_counter_ns()
            fn()
            times.append((time.perf_counter_ns() - t0) / 1e3)
            continue
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(1e3 * s.elapsed_time(e))
    return statistics.median(times[3:])


def copy_ceiling_gbps(j, l2_bytes: int | None, n_elems: int = 1 << 28) -> float:
    """Bandwidth of a large device-to-device copy (torch ``copy_``, fp32), bytes read plus
    written: the practical ceiling of a kernel that moves each byte once (4.22 TB/s, 88 %
    of 4.8, on our H200 at 2^28 elements)."""
    torch = j.torch
    src = torch.randn(n_elems, device="cuda")
    dst = torch.empty_like(src)
    flush = torch.empty(max(MIN_FLUSH_BYTES, 2 * (l2_bytes or 0)) // 4, dtype=torch.int32,
                        device="cuda")
    us = event_median_us(torch, lambda: dst.copy_(src), flush=flush)
    src = dst = flush = None   # noqa: F841  (back to the allocator before the next run)
    return 2 * n_elems * 4 / (us * 1e-6) / 1e9


class _Layout:
    """N buffer sets in three judge-owned buffers (inputs, outputs, flushes)."""

    def __init__(self, j, shape, dtype: str, info):
        from sandbox.channel.buffers import itemsize

        torch, ex = j.torch, j.ex
        self.spans: list[float] = []
        self.j, self.shape, self.dtype = j, shape, dtype
        tdtype = getattr(torch, dtype)
        if ex.free:
            from sandbox.judge.checks import free_specs

            first = free_specs(j, 1000)
            in_specs, out_spec = first[:-1], first[-1]
        else:
            probe = ex.make_inputs(shape, tdtype, torch.Generator(device=j.device).manual_seed(1),
                                   j.device)
            out = ex.make_output(probe, shape, tdtype)
            in_specs = [(tuple(t.shape), dtype) for t in probe]
            out_spec = (tuple(out.shape), dtype)
            del probe, out
        self.in_specs, self.out_spec = in_specs, out_spec
        nb = lambda s: math.prod(s[0]) * itemsize(s[1])   # noqa: E731
        in_bytes = sum(nb(s) for s in in_specs)
        out_bytes = nb(out_spec)
        l2 = info.l2_bytes if info is not None else None
        self.flush_elems = (max(MIN_FLUSH_BYTES, 2 * (l2 or 0)) if not j.interpreter
                            else CPU_FLUSH_BYTES) // 4
        per_set = in_bytes + out_bytes + 4 * self.flush_elems
        if j.interpreter:
            free = CPU_REHEARSAL_BYTES
        else:
            torch.cuda.empty_cache()   # what the correctness checks left in torch's cache
            free, _ = torch.cuda.mem_get_info()
        # the verification regenerates one set and its reference beside the N sets
        n = int((MEM_FRACTION * free - 3 * (in_bytes + out_bytes)) // per_set)
        # free mode: the launcher keeps its own inputs and reference of every set too
        self.n = min(16 if ex.free else MAX_SETS, n)
        if self.n < SHORT_SETS + 2:   # the full batch must be longer than the short one
            raise Fault("runtime", "mémoire du GPU insuffisante pour chronométrer : il faut au "
                        f"moins {SHORT_SETS + 2} jeux de {per_set >> 20} Mio dans "
                        f"{100 * MEM_FRACTION:.0f} % de la mémoire libre "
                        f"({int(free) >> 20} Mio libres).")
        s = j.session
        self.inputs = s.pack([spec for _ in range(self.n) for spec in in_specs])
        self.outs = s.pack([out_spec] * self.n)
        self.flushes = s.pack([((self.flush_elems,), "int32")] * self.n)
        k_in = len(in_specs)
        self.set_inputs = [self.inputs.tensors[k * k_in:(k + 1) * k_in] for k in range(self.n)]
        self.isz = itemsize(dtype)
        self.out_flat = self.outs.shared.tensor(0, (self.outs.shared.nbytes // self.isz,), dtype)
        self.out_base = [spec["offset"] // self.isz for spec in self.outs.specs]
        self.out_numel = math.prod(out_spec[0])
        self.seeds = [0] * self.n
        self.first = first if ex.free else None
        self.free_private: dict[int, list] = {}
        self.refresh(range(self.n))
        _sync(torch)
        sets = [{"args": self.inputs.specs[k * k_in:(k + 1) * k_in] + [self.outs.specs[k]],
                 "flush": self.flushes.specs[k]} for k in range(self.n)]
        s.ask({"op": "timing", "sets": sets}, j.timeouts["call_s"])

    def refresh(self, sets) -> None:
        """New inputs in the given sets, from new seeds (the judge's; the module's in free
        mode)."""
        j, ex, torch = self.j, self.j.ex, self.j.torch
        k_in = len(self.in_specs)
        tdtype = getattr(torch, self.dtype)
        for k in sets:
            self.seeds[k] = j.draw_seed()
            if ex.free:
                from sandbox.judge.checks import free_fill, free_specs

                if free_specs(j, 1000 + k) != self.first:
                    raise Fault("contract", "mode libre : make_inputs doit rendre les mêmes "
                                "formes et types à chaque appel.")
                free_fill(j, 1000 + k, self.inputs.specs[k * k_in:(k + 1) * k_in])
            else:
                gen = torch.Generator(device=j.device).manual_seed(self.seeds[k])
                for dst, src in zip(self.set_inputs[k],
                                    ex.make_inputs(self.shape, tdtype, gen, j.device)):
                    dst.copy_(src)
            if ex.free:   # the judge keeps its own copy of what it was given, to see it unchanged
                self.free_private[k] = [t.clone() for t in self.set_inputs[k]]

    def release(self) -> None:
        self.set_inputs = self.out_flat = self.free_private = None
        self.j.session.release(self.inputs, self.outs, self.flushes)

    def private_inputs(self, k: int):
        if self.j.ex.free:
            return self.free_private[k]
        torch = self.j.torch
        gen = torch.Generator(device=self.j.device).manual_seed(self.seeds[k])
        return list(self.j.ex.make_inputs(self.shape, getattr(torch, self.dtype), gen,
                                          self.j.device))


def per_call_us(full_us: float, short_us: float, n: int, k: int, flush_us: float,
                cap_us: float) -> tuple[float, float, bool]:
    """One round: (per-call time, implied fixed cost, capped) from a full batch of n calls
    and a short one of k. A short batch slowed by d lowers the per-call time by d/(n − k)
    and raises the implied fixed cost by d·n/(n − k): past the cap, the cap is used."""
    per_call = (full_us - short_us) / (n - k) - flush_us
    fixed = short_us - k * (per_call + flush_us)
    if fixed > cap_us:
        return (full_us - cap_us) / n - flush_us, fixed, True
    return per_call, fixed, False


def _sample_index(torch, lay: _Layout, sets: list[int]):
    """Random positions in every output used, last output first, as one index tensor."""
    parts = []
    for k in reversed(sets):
        pos = [secrets.randbelow(lay.out_numel) for _ in range(SAMPLES_PER_OUTPUT)]
        parts.append(torch.tensor(pos, dtype=torch.int64) + lay.out_base[k])
    return torch.cat(parts).to(lay.j.device)


def _verify(j, lay: _Layout, label: str, sets: list[int]) -> None:
    """Untimed, launcher stopped: flushes done, inputs unchanged, every output used right."""
    from sandbox.exercises import compare

    torch = j.torch
    for i, k in enumerate(sets):
        if bool(lay.flushes.tensors[k].any().item()):
            raise Fault("protocol", f"{label}, appel n° {i + 1} : le vidage du cache L2 qui "
                        "devait le précéder n'a pas été fait (tampon du juge non remis à zéro) ; "
                        "le temps mesuré ne vaut rien.")
    for i, k in enumerate(sets):
        private = lay.private_inputs(k)
        for now, before in zip(lay.set_inputs[k], private):
            if not torch.equal(now, before):
                raise Fault("input_modified", f"une entrée a été modifiée pendant les appels "
                            f"chronométrés ({label}, appel n° {i + 1}) : les entrées sont en "
                            "lecture seule.")
        out = lay.outs.tensors[k]
        context = f"{label}, appel chronométré n° {i + 1}"
        if j.ex.free:
            if bool(torch.isnan(out).any().item()):
                raise Fault("mismatch", f"{context} : des éléments de out n'ont pas été écrits "
                            "(encore à NaN, la valeur d'empoisonnement).")
            continue
        expected = j.ex.reference(tuple(private))
        rtol, atol = j.ex.tolerance(lay.shape, lay.dtype)
        same = torch.equal(out, expected) if (rtol, atol) == (0.0, 0.0) else bool(
            torch.isclose(out.float(), expected.float(), rtol=rtol, atol=atol).all().item())
        if not same:
            bad = compare(out, expected, rtol, atol, context)
            if bad is not None:
                raise Fault("mismatch", bad.message[0].upper() + bad.message[1:] + " Les "
                            "vérifications passaient : le noyau doit calculer à chaque appel, "
                            "sur chaque jeu d'entrées (pas de résultat gardé ni d'appel sauté).",
                            mismatch=bad)
        del expected, private


def _batch(j, lay: _Layout, label: str, sets: list[int]):
    """One batch on ``sets``, in that order: (judge's time in µs, the launcher's claims,
    the idle probe)."""
    torch, s = j.torch, j.session
    s.freeze()
    lay.refresh(sets)   # fresh inputs every batch: a pointer or a content seen before is worthless
    for k in sets:
        lay.outs.tensors[k].fill_(float("nan"))
    for k in sets:   # last: the L2 holds the same dirty poison lines before every batch
        lay.flushes.tensors[k].fill_(_POISON_INT)
    idx = _sample_index(torch, lay, sets)
    _sync(torch)
    idle = wait_idle(j)
    t0 = time.perf_counter_ns()
    s.thaw()
    s.ask({"op": "batch", "order": sets}, j.timeouts["call_s"])
    unfinished = bool(torch.isnan(lay.out_flat[idx]).any().item())
    t1 = time.perf_counter_ns()
    # the claims after the clock: reading N pairs of events costs the launcher time that
    # grows with N and would otherwise land in the per-call figure
    reply = s.ask({"op": "claims"}, j.timeouts["call_s"])
    s.freeze()
    if unfinished:
        raise Fault("early_done", f"{label} : travail pas terminé quand la soumission a dit fini "
                    "(des sorties encore empoisonnées au moment de la lecture du juge) ; le "
                    "chronomètre du juge s'arrête quand il a lu les sorties, pas au « fini » "
                    "de la soumission.")
    _verify(j, lay, label, sets)
    claimed = [float(c) for c in (reply.get("claimed_us") or []) if isinstance(c, (int, float))]
    span = reply.get("claimed_span_us")
    if isinstance(span, (int, float)) and len(sets) == lay.n:
        lay.spans.append(float(span) / lay.n)
    return (t1 - t0) / 1e3, claimed, idle


def _judge_flush_us(j, lay: _Layout) -> float:
    """A flush as a batch pays it, timed by the judge alone (launcher stopped, GPU idle):
    (write one output, zero one flush buffer) − (write one output), median over a few
    sets. The flush then also writes back the dirty lines the output left in the L2, as
    after a call (39 µs in a batch vs 30.5 µs for the zeroing alone, fp32 16384², H200)."""
    torch = j.torch
    j.session.freeze()
    wait_idle(j)
    diffs = []
    for k in range(min(FLUSH_PROBE_SETS, lay.n)):
        out, flush = lay.outs.tensors[k], lay.flushes.tensors[k]

        def both():
            out.fill_(1.0)
            flush.zero_()
        both_us = event_median_us(torch, both, reps=5)
        write_us = event_median_us(torch, lambda: out.fill_(1.0), reps=5)
        diffs.append(both_us - write_us)
    return statistics.median(diffs)


def _round(j, lay: _Layout, label: str):
    """A full batch and a short one on K sets drawn at random, in a random order."""
    short = sorted(secrets.SystemRandom().sample(range(lay.n), SHORT_SETS))
    jobs = [("full", list(range(lay.n))), ("short", short)]
    if secrets.randbelow(2):
        jobs.reverse()
    times, claimed, idle = {}, [], None
    for kind, sets in jobs:
        name = label if kind == "full" else f"{label} (lot court)"
        times[kind], c, idle = _batch(j, lay, name, sets)
        claimed += c
    return times["full"], times["short"], claimed, idle


def time_gpu(j, info) -> None:
    from sandbox.channel.buffers import itemsize
    from sandbox.judge.figures import fr, quantile

    torch, ex, report = j.torch, j.ex, j.report
    shape = ex.cpu_rotation_shape if j.interpreter else ex.timing_shape
    lay = _Layout(j, shape, report.dtype, info)
    try:
        shape_seen = list(shape) or list(lay.in_specs[0][0])
        report.timing_shape = shape_seen
        if shape_seen not in report.shapes_checked:
            report.shapes_checked.append(shape_seen)
        cap = float(j.job.get("fixed_cap_us") or FIXED_CAP_US)
        for b in range(WARMUP_ROUNDS):   # compiles for this shape, warms the caches
            _round(j, lay, f"lot d'échauffement n° {b + 1}")
        flush_us = _judge_flush_us(j, lay)
        per_call, fixed, fulls, shorts, claimed_all = [], [], [], [], []
        capped = 0
        idle = None
        for b in range(TIMED_ROUNDS):
            full, short, claimed, idle = _round(j, lay, f"lot chronométré n° {b + 1}")
            c, f, was_capped = per_call_us(full, short, lay.n, SHORT_SETS, flush_us, cap)
            per_call.append(c)
            fixed.append(f)
            fulls.append(full)
            shorts.append(short)
            capped += was_capped
            claimed_all += claimed
        times = sorted(per_call)
        report.median_us = statistics.median(times)
        report.p10_us, report.p90_us = quantile(times, 0.10), quantile(times, 0.90)
        report.batches_us = [round(t, 3) for t in per_call]
        report.full_batches_us = [round(t, 3) for t in fulls]
        report.short_batches_us = [round(t, 3) for t in shorts]
        report.calls_per_batch = lay.n
        report.short_calls = SHORT_SETS
        report.repetitions = TIMED_ROUNDS * (lay.n + SHORT_SETS)
        report.batch_fixed_us = round(statistics.median(fixed), 3)
        report.fixed_cap_us = cap
        report.capped_rounds = capped
        report.flush_us = round(flush_us, 3)
        report.idle_probe_us = round(idle, 2) if idle is not None else None
        if claimed_all:
            report.claimed_median_us = statistics.median(claimed_all)
        if lay.spans:   # the launcher's own events from its first flush to its last call
            report.claimed_span_per_call_us = statistics.median(lay.spans)
        rounds = WARMUP_ROUNDS + TIMED_ROUNDS
        report.checks.append(f"{rounds * (lay.n + SHORT_SETS)} appels chronométrés "
                             f"revérifiés par le juge : {'sorties écrites (valeurs déclarées)' if ex.free else 'justes'}")
        flush_mb = lay.flush_elems * 4 // 10**6
        plural = "s" if capped > 1 else ""
        capped_text = (f" ; {capped} manche{plural} sur {TIMED_ROUNDS} au-delà du plafond, "
                       f"comptée{plural} avec le plafond") if capped else ""
        report.timing_note = (
            f"horloge du juge (hors du processus de la soumission) ; {TIMED_ROUNDS} manches, "
            f"chacune un lot de {lay.n} appels sur {lay.n} jeux d'entrées distincts et un lot "
            f"court de {SHORT_SETS} jeux tirés au hasard, après {WARMUP_ROUNDS} manche "
            f"d'échauffement (compilation comprise) ; par appel = (lot − lot court) / "
            f"{lay.n - SHORT_SETS} − vidage, ce qui annule le coût fixe d'un lot (médiane "
            f"déduite : {fr(statistics.median(fixed))} µs, plafond {fr(cap, 0)} µs{capped_text}) ; "
            f"avant chaque appel, un vidage du cache L2 ({flush_mb} Mo) vérifié par le juge, "
            f"dont le coût dans un lot, mesuré par le juge seul avec la réécriture des lignes "
            f"sales laissées par l'appel précédent ({fr(flush_us)} µs), est retiré ; sorties "
            f"empoisonnées, échantillon lu à la fin de chaque lot, puis toutes revérifiées")
        elem = itemsize(report.dtype)
        if ex.free:
            report.bytes_counted = sum(math.prod(s[0]) * itemsize(s[1])
                                       for s in (*lay.in_specs, lay.out_spec))
        else:
            report.bytes_counted = ex.bytes_moved(shape, elem)
            report.flops = ex.flops(shape) if ex.flops else None
    finally:
        try:
            lay.release()
        except Fault:
            pass
        if not j.interpreter:
            torch.cuda.empty_cache()
