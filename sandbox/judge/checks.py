"""The judge's correctness checks: its own inputs, its own reference, its own reading.

Public entries: ``Case`` (one set of inputs and an output in a shared buffer, with the
judge's private copy of the inputs and its expected output), ``make_case``,
``call_checked`` (poison, one call by the launcher, then inputs and output read back by
the judge), ``correctness`` (every shape and dtype of the plan) and
``repeat_interpreter`` (rotating sets, every output rechecked). Free mode
(``free_case``, ``free_specs``, ``free_fill``): the inputs and the reference come from the submission, so the judge
checks only what it can see itself (inputs unchanged, every output element written) and
reports the module's own verdict on the values as declared, not judged.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sandbox.channel.wire import WireError, check_fields
from sandbox.records import Fault

_FREE_MAX_BYTES_CPU = 256 << 20
_FREE_MAX_BYTES_GPU = 8 << 30
_FREE_DTYPES = ("float32", "float16", "bfloat16")


@dataclass
class Case:
    packed: object            # session.Packed: shared inputs + output
    private: list             # the judge's copies of the inputs (the launcher cannot reach them)
    expected: object          # the judge's reference output (None in free mode)
    tol: tuple[float, float]
    free_id: int | None = None
    tail: object = None       # the bytes after out in its buffer, poisoned: writes past out

    @property
    def inputs(self):
        return self.packed.tensors[:-1]

    @property
    def out(self):
        return self.packed.tensors[-1]

    @property
    def specs(self):
        return self.packed.specs


# Bytes watched after each output: a store one row or one block past the end lands there
# (a 32 × 32 fp32 tile past the end is 4 KiB) instead of in memory nobody reads.
_GUARD_BYTES = 4096
_GUARD_VALUE = 0xA5


def dtype_name(t) -> str:
    return str(t.dtype).replace("torch.", "")


def poison(out) -> None:
    out.fill_(float("nan")) if out.is_floating_point() else out.fill_(-0x5A5A5A5A)


def make_case(j, shape, dtype: str, gen) -> Case:
    """Inputs drawn by the judge from its generator, copied into a fresh shared buffer."""
    torch, ex = j.torch, j.ex
    tdtype = getattr(torch, dtype)
    private = list(ex.make_inputs(shape, tdtype, gen, j.device))
    expected = ex.reference(tuple(private))
    out = ex.make_output(tuple(private), shape, tdtype)
    packed = j.session.pack([(tuple(t.shape), dtype_name(t)) for t in (*private, out)]
                            + [((_GUARD_BYTES,), "uint8")])
    packed.tensors.pop()
    packed.specs.pop()   # the guard is the judge's alone: the launcher is never told of it
    for dst, src in zip(packed.tensors, private):
        dst.copy_(src)
    last = packed.specs[-1]
    out_end = last["offset"] + packed.tensors[-1].numel() * packed.tensors[-1].element_size()
    tail = packed.shared.tensor(out_end, (packed.shared.nbytes - out_end,), "uint8")
    return Case(packed, private, expected, ex.tolerance(shape, dtype), tail=tail)


def _arg_names(signature: str, n_inputs: int) -> list[str]:
    m = re.search(r"\((.*)\)", signature)
    names = [s.strip() for s in m.group(1).split(",")] if m else []
    if len(names) != n_inputs + 1:
        names = [f"entrée n° {i + 1}" for i in range(n_inputs)] + ["out"]
    return names


def check_inputs(j, case: Case, during: str = "") -> None:
    torch = j.torch
    for name, now, before in zip(_arg_names(j.ex.signature, len(case.private)), case.inputs,
                                 case.private):
        if not torch.equal(now, before):
            changed = int((now != before).sum())
            s = "s" if changed > 1 else ""
            raise Fault("input_modified", f"custom_kernel a modifié l'entrée « {name} » "
                        f"({changed} élément{s} changé{s}{during}) : les entrées sont en "
                        "lecture seule.")


def check_output(j, case: Case, context: str, repeated: bool = False) -> None:
    from sandbox.exercises import compare

    torch = j.torch
    if case.expected is None:   # free mode: the judge sees only what was left unwritten
        unwritten = int(torch.isnan(case.out.float()).sum()) if case.out.is_floating_point() else 0
        if unwritten:
            raise Fault("mismatch", f"{context} : {unwritten} élément(s) de out jamais écrits "
                        "(encore à NaN, la valeur d'empoisonnement).")
        reply = j.session.ask({"op": "free_check", "case": case.free_id, "out": case.specs[-1],
                               "label": context}, j.timeouts["call_s"])
        try:
            check_fields(reply, {"ok": bool, "message": str})
        except WireError as exc:
            raise Fault("protocol", f"réponse mal formée du processus de la soumission ({exc})")
        if not reply["ok"]:
            raise Fault("mismatch", "selon la référence de votre module : "
                        + str(reply.get("message") or "résultat faux")[:2000])
        j.report.checks.append(f"{context} : juste selon le module (non jugé)")
        return
    rtol, atol = case.tol
    bad = compare(case.out, case.expected, rtol, atol, context)
    if bad is not None:
        msg = bad.message[0].upper() + bad.message[1:]
        if repeated:
            msg += (" Les appels précédents étaient justes : le noyau doit recalculer à chaque "
                    "appel, un résultat gardé d'un appel précédent ne vaut rien pour de "
                    "nouvelles entrées.")
        raise Fault("mismatch", msg, mismatch=bad)
    j.report.checks.append(f"{context} : juste")


def call_checked(j, case: Case, context: str, repeated: bool = False) -> None:
    """Poison, one call by the launcher, then the judge reads inputs and output back."""
    poison(case.out)
    if case.tail is not None:
        case.tail.fill_(_GUARD_VALUE)
    j.sync()
    j.session.ask({"op": "call", "args": case.specs}, j.timeouts["call_s"])
    j.sync()
    check_inputs(j, case)
    if case.tail is not None and bool((case.tail != _GUARD_VALUE).any()):
        changed = int((case.tail != _GUARD_VALUE).sum())
        raise Fault("mismatch", f"{context} : custom_kernel a écrit après la fin de out "
                    f"({changed} octet(s) hors du tenseur) : un accès hors limites, le plus "
                    "souvent un masque manquant ou faux (par exemple `cols <= N` au lieu de "
                    "`cols < N`) ; vérifiez le masque de chaque `tl.store`.")
    check_output(j, case, context, repeated)


def free_specs(j, k: int) -> list[tuple[tuple, str]]:
    """Free mode: the launcher makes case ``k`` with its module and says its shapes; the
    judge checks them (dtypes, at most 8 inputs, 1 to 4 dimensions, a size cap)."""
    reply = j.session.ask({"op": "free_case", "case": k, "seed": j.draw_seed()},
                          j.timeouts["call_s"])
    specs = [*(reply.get("inputs") or []), reply.get("out")]
    limit = _FREE_MAX_BYTES_CPU if j.interpreter else _FREE_MAX_BYTES_GPU
    total = 0
    clean = []
    for spec in specs:
        ok = (isinstance(spec, dict) and spec.get("dtype") in _FREE_DTYPES
              and isinstance(spec.get("shape"), list) and 1 <= len(spec["shape"]) <= 4
              and all(isinstance(d, int) and not isinstance(d, bool) and 0 < d < 1 << 31
                      for d in spec["shape"]))
        if not ok or len(specs) > 9 or len(specs) < 2:
            raise Fault("contract", "mode libre : make_inputs doit rendre de 1 à 8 tenseurs "
                        f"({', '.join(_FREE_DTYPES)}, 1 à 4 dimensions) et reference un tenseur.")
        n = 1
        for d in spec["shape"]:
            n *= d
        total += n * (4 if spec["dtype"] == "float32" else 2)
        clean.append((tuple(spec["shape"]), spec["dtype"]))
    if total > limit:
        raise Fault("contract", f"mode libre : entrées et sortie trop grandes ({total >> 20} Mio, "
                    f"limite {limit >> 20} Mio).")
    return clean


def free_fill(j, k: int, input_specs: list[dict]) -> None:
    """The launcher copies case ``k``'s inputs into the judge's shared views."""
    j.session.ask({"op": "free_fill", "case": k, "args": input_specs}, j.timeouts["call_s"])
    j.sync()


def free_case(j, k: int) -> Case:
    """Free mode: one case made by the module, copied into a judge buffer; the judge keeps
    a private copy of what it was given."""
    packed = j.session.pack(free_specs(j, k))
    free_fill(j, k, packed.specs[:-1])
    private = [t.clone() for t in packed.tensors[:-1]]
    return Case(packed, private, None, (0.0, 0.0), free_id=k)


def plan(j) -> list[tuple[str, tuple]]:
    ex, report = j.ex, j.report
    shapes = ex.cpu_shapes if j.interpreter else ex.gpu_shapes
    if ex.free:
        return [(report.dtype, ())] * 3
    out = [(report.dtype, s) for s in shapes]
    if j.job.get("all_dtypes") and not j.job.get("dtype_explicit") and len(shapes) > 1:
        for d in ex.dtypes:
            if d != report.dtype and _dtype_usable(j, d):
                out.append((d, shapes[0]))
    return out


def _dtype_usable(j, dtype: str) -> bool:
    # The interpreter computes bfloat16 arithmetic wrongly (triton 3.9: x + x on bf16
    # returns values like 1e37); moves of bf16 are exact. Arithmetic exercises skip it.
    if j.interpreter and dtype == "bfloat16":
        return j.ex.tolerance is not None and j.ex.tolerance((1, 1, 1), "float32") == (0.0, 0.0)
    return True


def correctness(j) -> None:
    from sandbox.exercises import fmt_shape

    for i, (dtype, shape) in enumerate(plan(j)):
        case = free_case(j, i) if j.ex.free else make_case(j, shape, dtype, j.gen)
        if j.ex.free:   # the submission's own inputs: name their dtype, not the default
            dtype = j.report.dtype = dtype_name(case.out)
        shape_seen = list(shape) or list(case.private[0].shape)
        call_checked(j, case, f"vérification {fmt_shape(shape_seen)} {dtype}")
        if shape_seen not in j.report.shapes_checked:
            j.report.shapes_checked.append(shape_seen)
        if dtype not in j.report.dtypes_checked:
            j.report.dtypes_checked.append(dtype)
        j.session.release(case.packed)


def refill(j, case: Case, shape, dtype: str) -> None:
    """New inputs in the same buffers (same pointers, new content) and a new reference."""
    torch = j.torch
    case.private = list(j.ex.make_inputs(shape, getattr(torch, dtype), j.gen, j.device))
    for dst, src in zip(case.inputs, case.private):
        dst.copy_(src)
    case.expected = j.ex.reference(tuple(case.private))


def repeat_interpreter(j) -> None:
    """Repeated calls on two rotating input sets, each output rechecked (what timing
    does on the GPU, without a clock); from the third call on, each set gets new inputs
    in its old buffers: outputs cached by call, by pointer or by content are all caught."""
    base = 100
    shape, dtype = j.ex.cpu_rotation_shape, j.report.dtype
    sets = [free_case(j, base + k) if j.ex.free else make_case(j, shape, dtype, j.gen)
            for k in range(2)]
    for i in range(5):
        if i >= 2 and not j.ex.free:
            refill(j, sets[i % 2], shape, dtype)
        call_checked(j, sets[i % 2], f"appel répété n° {i + 1}", repeated=i > 0)
    j.session.release(*(c.packed for c in sets))
