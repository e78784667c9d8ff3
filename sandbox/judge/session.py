"""The judge's side of the wire: shared buffers, commands to the launcher, the parent's help.

Public entry: ``Session(launcher_wire, parent_wire, backend, timeouts)``. ``pack(specs)``
allocates one judge-owned buffer holding several tensors and maps it in the launcher;
``ask(msg, timeout_s)`` sends one command and returns the launcher's ``done`` reply, or
raises the ``Fault`` it reported (a claim of failure is accepted as it is: it can only
fail the run), or a ``Fault("protocol")`` when it breaks the protocol or goes silent.
``freeze()`` / ``thaw()`` ask the parent (root, which the judge is not) to SIGSTOP /
SIGCONT every process of the launcher.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from sandbox.channel.wire import Wire, WireError
from sandbox.records import ERROR_KINDS, Fault

_ALIGN = 512          # bytes between packed tensors (DRAM transactions and Triton's 16-B loads)
_KINDS = set(ERROR_KINDS) - {"", "unknown_exercise", "options", "syntax", "precheck",
                               "internal", "timeout", "crashed"}


@dataclass
class Packed:
    """One shared buffer: the judge's tensors over it and the launcher's view specs."""
    buf_id: int
    shared: object
    tensors: list
    specs: list[dict]


def _view_spec(buf_id: int, offset: int, shape, dtype: str) -> dict:
    return {"buf": buf_id, "offset": offset, "shape": [int(d) for d in shape], "dtype": dtype}


class Session:
    def __init__(self, launcher: Wire, parent: Wire, backend, timeouts: dict):
        self.launcher, self.parent, self.backend = launcher, parent, backend
        self.timeouts = timeouts
        self._next = 0
        self.frozen = False

    # ------------------------------------------------------------ buffers
    def pack(self, specs: list[tuple[tuple, str]]) -> Packed:
        """specs: (shape, dtype name) per tensor; one buffer, mapped in the launcher."""
        from sandbox.channel.buffers import itemsize

        offsets, total = [], 0
        for shape, dtype in specs:
            n = 1
            for d in shape:
                n *= int(d)
            offsets.append(total)
            total += -(-(n * itemsize(dtype)) // _ALIGN) * _ALIGN
        shared = self.backend.create(max(total, _ALIGN))
        buf_id = self._next
        self._next += 1
        tensors = [shared.tensor(o, shape, dtype) for o, (shape, dtype) in zip(offsets, specs)]
        views = [_view_spec(buf_id, o, shape, dtype) for o, (shape, dtype) in zip(offsets, specs)]
        self.ask({"op": "map", "buffers": [{"id": buf_id, "nbytes": shared.nbytes}]},
                 self.timeouts["call_s"], fds=[shared.fd])
        os.close(shared.fd)   # the launcher holds its own copy now; ours is not needed
        shared.fd = None
        return Packed(buf_id, shared, tensors, views)

    def release(self, *packs: Packed) -> None:
        self.ask({"op": "unmap", "ids": [p.buf_id for p in packs]}, self.timeouts["call_s"])
        for p in packs:
            p.tensors.clear()
            p.shared.close()

    # ------------------------------------------------------------ commands
    def ask(self, msg: dict, timeout_s: float, fds=()) -> dict:
        self.thaw()   # a stopped launcher cannot answer
        try:
            self.launcher.send(msg, fds=fds)
            reply = self.launcher.recv(timeout_s)
        except WireError as exc:
            raise Fault("protocol", f"le processus de la soumission ne répond plus ({exc})")
        return self.expect_done(reply)

    def expect_done(self, reply: dict) -> dict:
        op = reply.get("op")
        if op == "done":
            return reply
        if op == "fault":
            kind = reply.get("kind") if reply.get("kind") in _KINDS else "runtime"
            line = reply.get("line") if isinstance(reply.get("line"), int) else None
            message = str(reply.get("message") or "faute sans message")[:3000]
            raise Fault(kind, message, line)
        raise Fault("protocol", f"réponse inattendue du processus de la soumission : {op!r}")

    def recv(self, timeout_s: float) -> dict:
        try:
            return self.launcher.recv(timeout_s)
        except WireError as exc:
            raise Fault("protocol", f"le processus de la soumission ne répond plus ({exc})")

    # ------------------------------------------------------------ the parent's help
    def _parent(self, op: str) -> None:
        try:
            self.parent.send({"op": op})
            reply = self.parent.recv(30.0)
        except WireError as exc:
            raise Fault("internal", f"erreur interne du bac à sable : parent muet ({exc})")
        if reply.get("op") != "ok":
            raise Fault("internal", f"erreur interne du bac à sable : {op} refusé "
                        f"({reply.get('why', '')})")

    def freeze(self) -> None:
        if not self.frozen:
            self._parent("freeze")
            self.frozen = True

    def thaw(self) -> None:
        if self.frozen:
            self._parent("thaw")
            self.frozen = False

    def quit(self) -> None:
        try:
            self.thaw()
            self.launcher.send({"op": "quit"})
        except (WireError, Fault):
            pass
