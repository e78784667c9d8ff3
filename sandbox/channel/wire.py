"""Length-prefixed JSON messages between the judge and the launcher, with deadlines.

Public entry: ``Wire(sock)`` with ``send(obj, fds=())``, ``recv(timeout_s) -> dict`` and
``recv_with_fds(timeout_s)``. A message is an 8-byte little-endian length and UTF-8 JSON
of at most ``MAX_MESSAGE`` bytes (64 KiB: the longest honest message, a launcher's fault
with its traceback tail, is under 8 KiB). A message over the cap, a non-object, a closed
peer or a missed deadline raises ``WireError``: the judge turns it into a failure of the
run, never into a result.
"""
from __future__ import annotations

import json
import select
import socket
import time

MAX_MESSAGE = 64 << 10
MAX_FDS = 64        # per message (the kernel allows 253; the launcher's RLIMIT_NOFILE is 256)


class WireError(Exception):
    """The peer broke the protocol: closed, too slow, too big, or not JSON."""


class Wire:
    def __init__(self, sock: socket.socket, max_message: int = MAX_MESSAGE):
        self.sock = sock
        self.max_message = max_message
        self._buf = bytearray()

    def send(self, obj: dict, fds=()) -> None:
        data = json.dumps(obj, ensure_ascii=True, allow_nan=True).encode()
        if len(data) > self.max_message:
            raise WireError(f"message of {len(data)} bytes over the {self.max_message}-byte cap")
        payload = len(data).to_bytes(8, "little") + data
        try:
            if fds:
                if len(fds) > MAX_FDS:
                    raise WireError(f"{len(fds)} descriptors in one message, over {MAX_FDS}")
                # One byte carries the descriptors; the rest of the message follows it.
                sent = socket.send_fds(self.sock, [payload[:1]], list(fds))
                self.sock.sendall(payload[sent:])
            else:
                self.sock.sendall(payload)
        except OSError as exc:
            raise WireError(f"send failed: {exc}") from exc

    def _fill(self, n: int, deadline: float) -> None:
        while len(self._buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WireError("deadline passed")
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                raise WireError("deadline passed")
            try:
                # exactly what is missing: never past a message boundary, where the next
                # message's descriptors may wait
                chunk = self.sock.recv(n - len(self._buf))
            except OSError as exc:
                raise WireError(f"receive failed: {exc}") from exc
            if not chunk:
                raise WireError("peer closed the connection")
            self._buf += chunk

    def recv(self, timeout_s: float) -> dict:
        deadline = time.monotonic() + timeout_s
        self._fill(8, deadline)
        size = int.from_bytes(self._buf[:8], "little")
        if size > self.max_message:
            raise WireError(f"message of {size} bytes over the {self.max_message}-byte cap")
        self._fill(8 + size, deadline)
        body = bytes(self._buf[8:8 + size])
        del self._buf[:8 + size]
        try:
            obj = json.loads(body)
        except ValueError as exc:
            raise WireError(f"not JSON: {exc}") from exc
        if not isinstance(obj, dict):
            raise WireError("message is not a JSON object")
        return obj

    def recv_with_fds(self, timeout_s: float) -> tuple[dict, list[int]]:
        """The next message and the descriptors sent with it (launcher side only: the
        judge never takes a descriptor from the launcher)."""
        deadline = time.monotonic() + timeout_s
        if self._buf:
            raise WireError("descriptors expected at a message boundary")
        ready, _, _ = select.select([self.sock], [], [], timeout_s)
        if not ready:
            raise WireError("deadline passed")
        try:
            data, fds, _flags, _addr = socket.recv_fds(self.sock, 1, MAX_FDS)
        except OSError as exc:
            raise WireError(f"receive failed: {exc}") from exc
        if not data:
            raise WireError("peer closed the connection")
        self._buf += data
        return self.recv(max(deadline - time.monotonic(), 0.001)), fds


def check_fields(msg: dict, schema: dict[str, type]) -> dict:
    """Raise ``WireError`` unless every field of ``schema`` is in ``msg`` with its type."""
    for name, kind in schema.items():
        value = msg.get(name)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise WireError(f"field {name!r} missing or not {kind.__name__}")
    return msg
