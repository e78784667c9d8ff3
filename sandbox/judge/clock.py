"""The judge's clock on the GPU: batches of calls timed from outside the launcher.

Public entries: ``time_gpu(j, info)`` fills the report's timing fields (median, p10,
p90 per call over the timed batches, the batches themselves, the fixed cost removed,
the flush cost removed, the launcher's claim); ``copy_ceiling_gbps(j, l2_bytes)``
measures a large device copy by the judge alone. The bounds an attacker with full
control of the launcher has on these figures are in ``sandbox.judge``'s docstring.

One batch (``_batch``): the launcher is stopped (SIGSTOP through the parent); the judge
poisons every output (NaN) and every flush buffer, then runs its idle probe (a tiny
kernel and a synchronise: 21.6 µs median on an idle H200, 725 µs and more with another
context's work queued, so above 200 µs the GPU is busy and the run is refused); it
takes t0, resumes the launcher and sends "batch"; the launcher, for each of the N sets,
zeroes that set's flush buffer (2 × L2, at least 128 MB) and calls ``custom_kernel``,
then synchronises and answers; the judge reads a random sample of every output in one
gather (last output first) and stops its clock when that read completes. A poisoned
element in the sample fails the run ("early_done"). Untimed, the launcher stopped
again, the judge checks every flush buffer is zero, regenerates every input from its
seed, checks the inputs unchanged and every output against its own reference.

Per call = (batch − fixed − N × flush) / N, where fixed is the median of null batches
(same protocol, the launcher writes one value the judge draws into a judge buffer)
clamped to ``FIXED_CAP_US``, and flush is the judge's own timing of the same flushes,
the launcher stopped.
"""
from __future__ import annotations

import math
import secrets
import statistics
import time

from sandbox.records import Fault

# Fixed cost of one batch on the H200 (two GPU context switches, messages, the sample
# read): about 450 µs in bench/results/2026-12-01-trust-probe-h200.md (1028 µs for one
# 521 µs call, 587 µs per call for 20). A null batch is clamped to this cap, so a
# launcher that slows its null batch gains at most (cap − true) / N per call.
FIXED_CAP_US = 550.0
IDLE_LIMIT_US = 200.0       # idle probe: 21.6 µs idle, ≥ 725 µs busy (H200, same record)
MAX_SETS = 64
MEM_FRACTION = 0.40         # of the free GPU memory, for the N buffer sets
MIN_FLUSH_BYTES = 128 * 10**6
SAMPLES_PER_OUTPUT = 256
WARMUP_BATCHES = 1
TIMED_BATCHES = 5
NULL_BATCHES = 5
_POISON_INT = 0x5A5A5A5A
# The same protocol on the CPU (interpreter mode, TUILE_JUDGE_CPU_BATCHES=1): a rehearsal
# of every message, stop, poison, sample and check, on small shapes; its times mean nothing.
CPU_FLUSH_BYTES = 1 << 20
CPU_REHEARSAL_BYTES = 64 << 20


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
    """N buffer sets in three judge-owned buffers (inputs, outputs, flushes) + a null slot."""

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
        if self.n < 2:
            raise Fault("runtime", "mémoire du GPU insuffisante pour chronométrer : il faut au "
                        f"moins deux jeux de {per_set >> 20} Mio dans 40 % de la mémoire libre "
                        f"({int(free) >> 20} Mio libres).")
        s = j.session
        self.inputs = s.pack([spec for _ in range(self.n) for spec in in_specs])
        self.outs = s.pack([out_spec] * self.n)
        self.flushes = s.pack([((self.flush_elems,), "int32")] * self.n)
        self.null = s.pack([((1,), "float32")])
        k_in = len(in_specs)
        self.set_inputs = [self.inputs.tensors[k * k_in:(k + 1) * k_in] for k in range(self.n)]
        self.isz = itemsize(dtype)
        self.out_flat = self.outs.shared.tensor(0, (self.outs.shared.nbytes // self.isz,), dtype)
        self.flush_flat = self.flushes.shared.tensor(0, (self.flushes.shared.nbytes // 4,), "int32")
        self.out_base = [spec["offset"] // self.isz for spec in self.outs.specs]
        self.out_numel = math.prod(out_spec[0])
        self.seeds = [0] * self.n
        self.first = first if ex.free else None
        self.refresh()
        _sync(torch)
        sets = [{"args": self.inputs.specs[k * k_in:(k + 1) * k_in] + [self.outs.specs[k]],
                 "flush": self.flushes.specs[k]} for k in range(self.n)]
        s.ask({"op": "timing", "sets": sets}, j.timeouts["call_s"])

    def refresh(self) -> None:
        """New inputs in every set, from new seeds (the judge's; the module's in free mode)."""
        j, ex, torch = self.j, self.j.ex, self.j.torch
        k_in = len(self.in_specs)
        tdtype = getattr(torch, self.dtype)
        self.seeds = [j.draw_seed() for _ in range(self.n)]
        for k in range(self.n):
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
        # free mode: the judge keeps its own copy of what it was given, to see it unchanged
        self.free_private = [[t.clone() for t in self.set_inputs[k]] for k in range(self.n)] \
            if ex.free else None

    def release(self) -> None:
        self.set_inputs = self.out_flat = self.flush_flat = self.free_private = None
        self.j.session.release(self.inputs, self.outs, self.flushes, self.null)

    def private_inputs(self, k: int):
        if self.free_private is not None:
            return self.free_private[k]
        torch = self.j.torch
        gen = torch.Generator(device=self.j.device).manual_seed(self.seeds[k])
        return list(self.j.ex.make_inputs(self.shape, getattr(torch, self.dtype), gen,
                                          self.j.device))


def _sample_index(torch, lay: _Layout):
    """Random positions in every output, last output first, as one index tensor."""
    parts = []
    for k in reversed(range(lay.n)):
        pos = [secrets.randbelow(lay.out_numel) for _ in range(SAMPLES_PER_OUTPUT)]
        parts.append(torch.tensor(pos, dtype=torch.int64) + lay.out_base[k])
    return torch.cat(parts).to(lay.j.device)


def _verify(j, lay: _Layout, label: str) -> None:
    """Untimed, launcher stopped: flushes done, inputs unchanged, every output right."""
    from sandbox.exercises import compare

    torch = j.torch
    for k, flush in enumerate(lay.flushes.tensors):
        if bool(flush.any().item()):
            raise Fault("protocol", f"{label}, appel n° {k + 1} : le vidage du cache L2 qui "
                        "devait le précéder n'a pas été fait (tampon du juge non remis à zéro) ; "
                        "le temps mesuré ne vaut rien.")
    for k in range(lay.n):
        private = lay.private_inputs(k)
        for now, before in zip(lay.set_inputs[k], private):
            if not torch.equal(now, before):
                raise Fault("input_modified", f"une entrée a été modifiée pendant les appels "
                            f"chronométrés ({label}, appel n° {k + 1}) : les entrées sont en "
                            "lecture seule.")
        out = lay.outs.tensors[k]
        context = f"{label}, appel chronométré n° {k + 1}"
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


def _batch(j, lay: _Layout, label: str, null: bool = False):
    torch, s = j.torch, j.session
    if not null:
        lay.refresh()   # fresh inputs every batch: a pointer or a content seen before is worthless
    s.freeze()
    if null:
        lay.null.tensors[0].fill_(float("nan"))
        value = float(secrets.randbelow(1 << 20) + 1)
    else:
        lay.out_flat.fill_(float("nan"))
        lay.flush_flat.fill_(_POISON_INT)
        idx = _sample_index(torch, lay)
    _sync(torch)
    idle = wait_idle(j)
    t0 = time.perf_counter_ns()
    s.thaw()
    if null:
        s.ask({"op": "null", "target": lay.null.specs[0], "value": value}, j.timeouts["call_s"])
        ok = lay.null.tensors[0].item() == value
        t1 = time.perf_counter_ns()
        s.freeze()
        if not ok:
            raise Fault("early_done", "lot nul : la valeur demandée par le juge n'était pas "
                        "écrite quand le processus de la soumission a dit fini.")
        return (t1 - t0) / 1e3, [], idle
    reply = s.ask({"op": "batch", "order": list(range(lay.n))}, j.timeouts["call_s"])
    unfinished = bool(torch.isnan(lay.out_flat[idx]).any().item())
    t1 = time.perf_counter_ns()
    s.freeze()
    if unfinished:
        raise Fault("early_done", f"{label} : travail pas terminé quand la soumission a dit fini "
                    "(des sorties encore empoisonnées au moment de la lecture du juge) ; le "
                    "chronomètre du juge s'arrête quand il a lu les sorties, pas au « fini » "
                    "de la soumission.")
    _verify(j, lay, label)
    claimed = [float(c) for c in (reply.get("claimed_us") or []) if isinstance(c, (int, float))]
    span = reply.get("claimed_span_us")
    if isinstance(span, (int, float)) and lay.n:
        lay.spans.append(float(span) / lay.n)
    return (t1 - t0) / 1e3, claimed, idle


def _judge_flush_us(j, lay: _Layout) -> float:
    """One flush as the judge times it alone (launcher stopped): same buffers, same op."""
    torch = j.torch
    j.session.freeze()

    def all_flushes():
        for f in lay.flushes.tensors:
            f.zero_()
    return event_median_us(torch, all_flushes, reps=3) / lay.n


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
        flush_us = _judge_flush_us(j, lay)
        nulls = [_batch(j, lay, "lot nul", null=True)[0] for _ in range(NULL_BATCHES)]
        cap = float(j.job.get("fixed_cap_us") or FIXED_CAP_US)
        fixed = min(statistics.median(nulls), cap)
        report.null_batch_us = round(statistics.median(nulls), 3)
        claimed_all: list[float] = []
        for b in range(WARMUP_BATCHES):   # compiles for this shape, warms the caches
            _batch(j, lay, f"lot d'échauffement n° {b + 1}")
        per_call = []
        idle = None
        for b in range(TIMED_BATCHES):
            total, claimed, idle = _batch(j, lay, f"lot chronométré n° {b + 1}")
            per_call.append((total - fixed - lay.n * flush_us) / lay.n)
            claimed_all += claimed
        times = sorted(per_call)
        report.median_us = statistics.median(times)
        report.p10_us, report.p90_us = quantile(times, 0.10), quantile(times, 0.90)
        report.batches_us = [round(t, 3) for t in per_call]
        report.calls_per_batch = lay.n
        report.repetitions = TIMED_BATCHES * lay.n
        report.batch_fixed_us = round(fixed, 3)
        report.flush_us = round(flush_us, 3)
        report.idle_probe_us = round(idle, 2) if idle is not None else None
        if claimed_all:
            report.claimed_median_us = statistics.median(claimed_all)
        if lay.spans:   # the launcher's own events from its first flush to its last call
            report.claimed_span_per_call_us = statistics.median(lay.spans)
        report.checks.append(f"{(WARMUP_BATCHES + TIMED_BATCHES) * lay.n} appels chronométrés "
                             f"revérifiés par le juge : {'sorties écrites (valeurs déclarées)' if ex.free else 'justes'}")
        flush_mb = lay.flush_elems * 4 // 10**6
        report.timing_note = (
            f"horloge du juge (hors du processus de la soumission) autour de {TIMED_BATCHES} lots "
            f"de {lay.n} appels sur {lay.n} jeux d'entrées distincts, après {WARMUP_BATCHES} lot "
            f"d'échauffement (compilation comprise) ; avant chaque appel, un vidage du cache L2 "
            f"({flush_mb} Mo) vérifié par le juge, dont le coût mesuré par le juge seul "
            f"({fr(flush_us)} µs) est retiré ; coût fixe d'un lot retiré ({fr(fixed)} µs, lot "
            f"nul plafonné à {fr(cap, 0)} µs) ; sorties empoisonnées, échantillon lu "
            f"à la fin de chaque lot, puis toutes revérifiées")
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
