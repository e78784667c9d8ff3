"""The launcher's command loop (see the package docstring for its place in a run).

Commands from the judge, one JSON object each (``sandbox.channel.wire``), answered by
``{"op": "done", …}`` or ``{"op": "fault", "kind", "message", "line"}``:
- ``map`` (with descriptors): open the judge's buffers (``sandbox.channel.buffers``);
- ``unmap``: let them go;
- ``call``: one watched call of ``custom_kernel`` on views, then synchronise;
- ``timing``: remember the views of a timing layout (N input sets, outputs, flushes);
- ``batch``: for each set k of the order given: zero flush k, call on set k (CUDA events
  around it), then synchronise once and say done;
- ``claims``: the last batch's events, read once the judge's clock has stopped (a claim);
- ``free_case`` / ``free_fill`` / ``free_check``: free mode, where inputs and reference
  are the submission's own;
- ``quit``.
"""
from __future__ import annotations

import inspect
import json
import os
import socket
import sys
import traceback

from sandbox.channel.buffers import get_backend
from sandbox.channel.wire import Wire, WireError
from sandbox.records import Fault

_WAIT_S = 900.0   # between two commands; the jail's run limit is what stops a stuck run


def _mark(phase: str) -> None:
    try:
        from sandbox.jail import mark_phase
    except ImportError:
        return
    mark_phase(phase)


def _short(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + " […]"


class _Launcher:
    def __init__(self, cfg: dict, wire: Wire):
        import torch

        self.cfg, self.wire, self.torch = cfg, wire, torch
        self.interpreter = cfg["mode"] == "interpreter"
        self.device = torch.device("cpu" if self.interpreter else "cuda")
        self.backend = get_backend(cfg["backend"])
        self.path = os.path.realpath(cfg["submission"])
        self.source = open(self.path, encoding="utf-8").read()
        self.maps: dict[int, object] = {}
        self.guard = None
        self.module = None
        self.layout = None
        self.free_cases: dict[int, tuple] = {}
        self.called = False
        self.last_events = None   # (first event, [(start, end)]) of the last GPU batch

    # ------------------------------------------------------------ helpers
    def fault(self, exc: BaseException) -> Fault:
        from sandbox.launcher.guard import fault_from_exception

        return fault_from_exception(exc, self.guard, self.path, self.source, self.interpreter)

    def view(self, spec: dict):
        return self.maps[int(spec["buf"])].tensor(int(spec["offset"]), spec["shape"],
                                                  spec["dtype"])

    def sync(self) -> None:
        if not self.interpreter:
            self.torch.cuda.synchronize()

    # ------------------------------------------------------------ load
    def load(self) -> None:
        from sandbox.launcher.load import load_submission

        # "run" is marked once the first kernel is compiled, before its first launch (the
        # compile takes 1.2-3.7 s on the H200, a launch microseconds): a kernel that never
        # ends is stopped by the run limit, not after the whole compile limit.
        loaded = load_submission(self.path, self.cfg["signature"], interpreter=self.interpreter,
                                 free=bool(self.cfg.get("free")), on_first_compile=lambda: _mark("run"))
        self.module, self.guard = loaded.module, loaded.guard

    # ------------------------------------------------------------ commands
    def op_map(self, msg: dict, fds: list[int]) -> dict:
        items = msg.get("buffers") or []
        if len(items) != len(fds):
            for fd in fds:
                os.close(fd)
            raise WireError("descriptor count differs from the buffers announced")
        for item, fd in zip(items, fds):
            self.maps[int(item["id"])] = self.backend.open(fd, int(item["nbytes"]))
        return {}

    def op_unmap(self, msg: dict, fds) -> dict:
        self.layout = None
        self.last_events = None
        for i in msg.get("ids") or []:
            shared = self.maps.pop(int(i), None)
            if shared is not None:   # views still held by the submission die with it
                shared.close()
        return {}

    def _checked_call(self, args: list) -> None:
        torch = self.torch
        fn = self.module.custom_kernel
        try:
            inspect.signature(fn).bind(*args)
        except TypeError:
            raise Fault("contract", f"custom_kernel doit accepter {self.cfg['signature']} ; la "
                        f"vôtre est custom_kernel{inspect.signature(fn)}.")
        except ValueError:
            pass
        out = args[-1]
        self.guard.reset()
        try:
            returned = self.guard.call(fn, tuple(args))
            self.sync()
        except BaseException as exc:
            raise self.fault(exc)
        problem = self.guard.verdict()
        if problem:
            raise problem
        if isinstance(returned, torch.Tensor) and returned is not out:
            if returned.dtype != out.dtype:
                raise Fault("contract", f"type incorrect : custom_kernel renvoie un tenseur "
                            f"{str(returned.dtype).replace('torch.', '')} alors que le résultat "
                            f"attendu est {str(out.dtype).replace('torch.', '')} ; écrivez-le "
                            "dans out.")
            if returned.data_ptr() != out.data_ptr():
                raise Fault("contract", "custom_kernel renvoie un autre tenseur que out : le "
                            "résultat doit être écrit dans out (alloué par Tuile), pas dans un "
                            "tenseur à vous.")

    def op_call(self, msg: dict, fds) -> dict:
        if not self.called:
            # a phase of its own, so that a Python loop that never launches a kernel is
            # named as such in the time-out, not as a compile (the compile limit applies)
            self.called = True
            if self.guard.on_first_compile is not None:
                _mark("call")
        args = [self.view(s) for s in msg["args"]]
        self._checked_call(args)
        return {}

    def op_timing(self, msg: dict, fds) -> dict:
        self.layout = [([self.view(s) for s in c["args"]], self.view(c["flush"]))
                       for c in msg["sets"]]
        return {}

    def op_batch(self, msg: dict, fds) -> dict:
        torch = self.torch
        fn = self.module.custom_kernel
        order = [int(k) for k in msg["order"]]
        if self.interpreter:   # the CPU rehearsal of the protocol: no events
            self.guard.reset()
            try:
                for k in order:
                    args, flush = self.layout[k]
                    flush.zero_()
                    self.guard.call(fn, tuple(args))
            except BaseException as exc:
                raise self.fault(exc)
            problem = self.guard.verdict()
            if problem:
                raise problem
            return {}
        # events made as the calls go, and read only on "claims" (after the judge's clock):
        # host work that grows with N kept out of the time between the GPU's first and last
        # call, where it would count per call
        event = lambda: torch.cuda.Event(enable_timing=True)   # noqa: E731
        pairs = []
        self.guard.reset()
        try:
            first = event()
            first.record()
            for k in order:
                args, flush = self.layout[k]
                flush.zero_()
                start, end = event(), event()
                start.record()
                self.guard.call(fn, tuple(args))
                end.record()
                pairs.append((start, end))
            torch.cuda.synchronize()
        except BaseException as exc:
            raise self.fault(exc)
        problem = self.guard.verdict()
        if problem:
            raise problem
        self.last_events = (first, pairs)
        return {}

    def op_claims(self, msg: dict, fds) -> dict:
        """The last batch's own events: a claim the judge records, never its figure."""
        if self.last_events is None:
            return {"claimed_us": []}
        first, pairs = self.last_events
        self.last_events = None
        return {"claimed_us": [1e3 * s.elapsed_time(e) for s, e in pairs],
                "claimed_span_us": 1e3 * first.elapsed_time(pairs[-1][1]) if pairs else None}

    # free mode: the submission's own inputs and reference (declared, not judged)
    def op_free_case(self, msg: dict, fds) -> dict:
        torch = self.torch
        gen = torch.Generator(device=self.device).manual_seed(int(msg["seed"]))
        try:
            inputs = self.module.make_inputs(gen, self.device)
            if isinstance(inputs, torch.Tensor):
                inputs = (inputs,)
            inputs = tuple(inputs)
            expected = self.module.reference(*[t.clone() for t in inputs])
        except BaseException as exc:
            f = self.fault(exc)
            raise Fault("contract", f"mode libre : make_inputs ou reference a échoué : "
                        f"{f.message}", f.line)
        if not all(isinstance(t, torch.Tensor) for t in (*inputs, expected)):
            raise Fault("contract", "mode libre : make_inputs doit rendre des tenseurs et "
                        "reference un tenseur.")
        tol = getattr(self.module, "TOLERANCE", None)
        self.free_cases[int(msg["case"])] = (inputs, expected, tol)
        spec = lambda t: {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}  # noqa: E731
        return {"inputs": [spec(t) for t in inputs], "out": spec(expected)}

    def op_free_fill(self, msg: dict, fds) -> dict:
        inputs, _, _ = self.free_cases[int(msg["case"])]
        for spec, t in zip(msg["args"], inputs):
            self.view(spec).copy_(t)
        self.sync()
        return {}

    def op_free_check(self, msg: dict, fds) -> dict:
        from sandbox.exercises import compare

        torch = self.torch
        _, expected, tol = self.free_cases[int(msg["case"])]
        if tol is None:
            tol = {torch.float32: (1e-5, 1e-6), torch.float16: (2e-3, 1e-3),
                   torch.bfloat16: (1.6e-2, 1e-2)}.get(expected.dtype, (0.0, 0.0))
        bad = compare(self.view(msg["out"]), expected, float(tol[0]), float(tol[1]),
                      str(msg.get("label", ""))[:200])
        return {"ok": bad is None, "message": bad.message if bad else "",
                "tolerance": [float(tol[0]), float(tol[1])]}

    def serve(self) -> None:
        ops = {"map": self.op_map, "unmap": self.op_unmap, "call": self.op_call,
               "timing": self.op_timing, "batch": self.op_batch, "claims": self.op_claims,
               "free_case": self.op_free_case, "free_fill": self.op_free_fill,
               "free_check": self.op_free_check}
        while True:
            msg, fds = self.wire.recv_with_fds(_WAIT_S)
            op = msg.get("op")
            if op == "quit":
                return
            handler = ops.get(op)
            if handler is None:
                raise WireError(f"unknown command {op!r}")
            try:
                reply = handler(msg, fds)
                self.wire.send({"op": "done", **reply})
            except Fault as f:
                self.wire.send(_fault_msg(f))


def _fault_msg(f: Fault) -> dict:
    return {"op": "fault", "kind": f.kind, "message": _short(f.message), "line": f.line}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    cfg = json.loads(argv[0])
    if cfg["mode"] == "interpreter":
        os.environ["TRITON_INTERPRET"] = "1"
    _mark("compile")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    code = 0
    try:
        sock.connect(cfg["socket"])
        wire = Wire(sock)
        wire.send({"op": "hello", "pid": os.getpid()})
        import torch  # noqa: F401  (after the connection: the judge counts the start)
        import triton  # noqa: F401

        launcher = _Launcher(cfg, wire)
        try:
            launcher.load()
            wire.send({"op": "loaded"})
        except Fault as f:
            wire.send(_fault_msg(f))
            launcher = None
        if launcher is not None:
            launcher.serve()
    except WireError as exc:
        sys.stderr.write(f"tuile-launcher: {exc}\n")
        code = 4
    except BaseException as exc:   # report what can be reported, then go
        try:
            from sandbox import resource_errors

            msg = resource_errors.translate(exc)
            Wire(sock).send({"op": "fault", "kind": "runtime" if msg else "internal",
                             "message": msg or f"erreur du lanceur : {type(exc).__name__} : "
                                               f"{_short(str(exc), 600)}", "line": None})
        except BaseException:
            pass
        traceback.print_exc()
        code = 3
    _mark("done")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)   # skip interpreter teardown: a submission's atexit hooks do not run
