"""Probe, on a GPU host, the facts the sandbox's judge/launcher split rests on.

Run as root on the GPU host: ``python3 bench/trust_probe.py OUT_DIR``. Standard library,
torch and triton only. Writes ``OUT_DIR/trust-probe.json`` and prints a summary.

What it measures (each in fresh processes, judge and launcher as in the sandbox):
1. CUDA IPC: the judge (unprivileged uid U, non-dumpable, no namespaces) allocates and
   exports buffers with torch's ``reduce_tensor``; the launcher (same uid U, in new PID,
   network and mount namespaces, no user namespace) opens them, writes, and the judge
   reads back what it wrote.
2. The judge's own clock around a batch of N calls run by the launcher (go/done over a
   socket, distinct input and output buffers per call, no L2 flush) against the
   launcher's ``triton.testing.do_bench`` of the same kernel and its per-call CUDA events.
3. The judge's idle probe: the completion latency of a tiny kernel of the judge's while
   the launcher is idle, and while the launcher has queued work.
4. An early "done" (the launcher answers before its queued work ends): whether a random
   sample of the outputs, read by the judge at once, still holds poison.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

UID = 61234
M = N = 16384
CALLS = 20


def _send(sock, obj):
    data = json.dumps(obj).encode()
    sock.sendall(len(data).to_bytes(8, "little") + data)


def _recv(sock):
    head = b""
    while len(head) < 8:
        chunk = sock.recv(8 - len(head))
        if not chunk:
            raise EOFError
        head += chunk
    size = int.from_bytes(head, "little")
    body = b""
    while len(body) < size:
        chunk = sock.recv(min(1 << 20, size - len(body)))
        if not chunk:
            raise EOFError
        body += chunk
    return json.loads(body)


def _drop(uid: int) -> None:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


class _Loc(__import__("ctypes").Structure):
    import ctypes as _c
    _fields_ = [("type", _c.c_int), ("id", _c.c_int)]


class _Prop(__import__("ctypes").Structure):
    import ctypes as _c
    _fields_ = [("type", _c.c_int), ("requestedHandleTypes", _c.c_int), ("location", _Loc),
                ("win32HandleMetaData", _c.c_void_p), ("compressionType", _c.c_ubyte),
                ("gpuDirectRDMACapable", _c.c_ubyte), ("usage", _c.c_ushort),
                ("reserved", _c.c_ubyte * 4)]


class _Access(__import__("ctypes").Structure):
    import ctypes as _c
    _fields_ = [("location", _Loc), ("flags", _c.c_int)]


def _cu():
    import ctypes
    return ctypes.CDLL("libcuda.so.1")


def _check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what} rc={rc}")


def _map(cu, handle, size):
    import ctypes
    ptr = ctypes.c_uint64()
    _check(cu.cuMemAddressReserve(ctypes.byref(ptr), ctypes.c_size_t(size), ctypes.c_size_t(0),
                                  ctypes.c_uint64(0), ctypes.c_ulonglong(0)), "reserve")
    _check(cu.cuMemMap(ptr, ctypes.c_size_t(size), ctypes.c_size_t(0), ctypes.c_ulonglong(handle),
                       ctypes.c_ulonglong(0)), "map")
    acc = _Access(_Loc(1, 0), 3)
    _check(cu.cuMemSetAccess(ptr, ctypes.c_size_t(size), ctypes.byref(acc), ctypes.c_size_t(1)),
           "access")
    return ptr.value


def _wrap(ptr, shape):
    import torch

    class View:
        __cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f4", "data": (ptr, False),
                                    "version": 3, "strides": None}
    return torch.as_tensor(View(), device="cuda")


def vmm_alloc(shape):
    """Judge side: a VMM allocation exportable as a POSIX fd; returns (tensor, fd, size)."""
    import ctypes
    cu = _cu()
    prop = _Prop()
    prop.type, prop.requestedHandleTypes = 1, 1
    prop.location = _Loc(1, 0)
    gran = ctypes.c_size_t()
    _check(cu.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(prop), 0), "gran")
    nbytes = 4
    for d in shape:
        nbytes *= d
    size = -(-nbytes // gran.value) * gran.value
    handle = ctypes.c_ulonglong()
    _check(cu.cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(prop),
                          ctypes.c_ulonglong(0)), "create")
    fd = ctypes.c_int(-1)
    _check(cu.cuMemExportToShareableHandle(ctypes.byref(fd), handle, 1, ctypes.c_ulonglong(0)),
           "export")
    return _wrap(_map(cu, handle.value, size), shape), fd.value, size


def vmm_import(fd, size, shape):
    import ctypes
    cu = _cu()
    handle = ctypes.c_ulonglong()
    _check(cu.cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fd), 1),
           "import")
    return _wrap(_map(cu, handle.value, size), shape)


def judge(fd: int) -> None:
    import ctypes
    _drop(UID)
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    import torch
    sock = socket.socket(fileno=fd)
    out = {"dumpable": open("/proc/self/status").read().count("Uid")}
    dev = torch.device("cuda")
    g = torch.Generator(device=dev)
    g.manual_seed(1234)
    torch.zeros(1, device=dev)
    xa = [vmm_alloc((M, N)) for _ in range(CALLS)]
    ya = [vmm_alloc((N, M)) for _ in range(CALLS)]
    xs = [a[0] for a in xa]
    ys = [a[0] for a in ya]
    for x in xs:
        x.normal_(generator=g)
    torch.cuda.synchronize()

    fds = [a[1] for a in xa] + [a[1] for a in ya]
    _send(sock, {"sizes": [a[2] for a in xa] + [a[2] for a in ya], "calls": CALLS})
    socket.send_fds(sock, [b"fds"], fds)
    reply = _recv(sock)
    out["ipc_open"] = reply
    if not reply.get("ok"):
        _send(sock, {"cmd": "quit"})
        print("JUDGE " + json.dumps(out))
        return
    torch.cuda.synchronize()
    # The launcher wrote 7.0 into ys[0][0, :8] through its mapping.
    out["ipc_readback"] = ys[0][0, :8].tolist()

    probe_buf = torch.zeros(1, device=dev)

    def probe_us():
        t0 = time.perf_counter_ns()
        probe_buf.add_(1.0)
        torch.cuda.synchronize()
        return (time.perf_counter_ns() - t0) / 1e3

    for _ in range(20):
        probe_us()
    out["probe_idle_us"] = sorted(probe_us() for _ in range(50))

    nan = float("nan")
    idx = torch.randint(0, M * N, (64,), device=dev)

    def sample_poisoned():
        return sum(int(torch.isnan(y.view(-1)[idx]).any().item()) for y in ys)

    batches = []
    for b in range(12):
        for y in ys:
            y.fill_(nan)
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        _send(sock, {"cmd": "batch"})
        _recv(sock)
        t1 = time.perf_counter_ns()
        poisoned = sample_poisoned()
        t2 = time.perf_counter_ns()
        ok = all(torch.equal(ys[i], xs[i].t()) for i in range(CALLS))
        batches.append({"per_call_us": (t1 - t0) / 1e3 / CALLS,
                        "per_call_with_sample_us": (t2 - t0) / 1e3 / CALLS,
                        "sample_poisoned": poisoned, "correct": ok})
    out["batches"] = batches
    _send(sock, {"cmd": "bench"})
    out["launcher_bench"] = _recv(sock)

    # Batches of K calls on K distinct buffer pairs, the clock stopped after one gather
    # kernel of the judge's reads a random sample of every output (last output first).
    flat = torch.stack([y.view(-1)[:1] for y in ys])  # warm the ops
    by_k = {}
    for k in (1, 2, 4, 8, 20):
        times = []
        bad = 0
        for rep in range(15):
            for y in ys[:k]:
                y.fill_(nan)
            torch.cuda.synchronize()
            t0 = time.perf_counter_ns()
            _send(sock, {"cmd": "batchk", "k": k})
            _recv(sock)
            pois = torch.stack([torch.isnan(y.view(-1)[idx]).any() for y in reversed(ys[:k])])
            bad += int(pois.any().item())
            t1 = time.perf_counter_ns()
            times.append((t1 - t0) / 1e3 / k)
        times.sort()
        by_k[str(k)] = {"median_per_call_us": times[len(times) // 2], "min": times[0],
                        "max": times[-1], "poisoned_batches": bad}
    out["judge_batch_by_k"] = by_k
    _send(sock, {"cmd": "events_k"})
    out["launcher_events_by_k"] = _recv(sock)

    # Idle probe while the launcher has ~100 ms of queued work.
    busy = []
    for _ in range(5):
        _send(sock, {"cmd": "busy"})
        _recv(sock)   # the launcher has queued the work, not synchronised
        busy.append(probe_us())
        _send(sock, {"cmd": "sync"})
        _recv(sock)
    out["probe_busy_us"] = busy

    early = []
    for _ in range(8):
        for y in ys:
            y.fill_(nan)
        torch.cuda.synchronize()
        _send(sock, {"cmd": "early"})
        _recv(sock)
        early.append(sample_poisoned())
        _send(sock, {"cmd": "sync"})
        _recv(sock)
    out["early_done_sample_poisoned"] = early
    _send(sock, {"cmd": "quit"})
    print("JUDGE " + json.dumps(out))


def repr_arg(a):
    import torch
    if isinstance(a, bytes):
        return {"b": a.hex()}
    if isinstance(a, torch.Size):
        return {"size": list(a)}
    if isinstance(a, torch.dtype):
        return {"dtype": str(a)}
    if isinstance(a, type):
        return {"cls": a.__name__}
    if isinstance(a, tuple):
        return {"v": list(a)}
    return {"v": a}


def unrepr_arg(item):
    import torch
    if "b" in item:
        return bytes.fromhex(item["b"])
    if "size" in item:
        return torch.Size(item["size"])
    if "dtype" in item:
        return getattr(torch, item["dtype"].split(".")[-1])
    if "cls" in item:
        name = item["cls"]
        return {"Tensor": torch.Tensor, "Parameter": torch.nn.Parameter}.get(
            name, getattr(torch.storage, name, getattr(torch, name, None)))
    v = item["v"]
    return tuple(v) if isinstance(v, list) else v


def launcher(fd: int) -> None:
    os.unshare(os.CLONE_NEWPID | os.CLONE_NEWNET | os.CLONE_NEWNS)
    pid = os.fork()
    if pid:
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status))
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    # Private mounts, and a /dev/shm the judge's shared files are not in (as in the jail).
    libc.mount(b"none", b"/", None, ctypes.c_ulong((1 << 14) | (1 << 18)), None)
    shm_hidden = libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", ctypes.c_ulong(0), b"mode=1777") == 0
    fresh_proc = libc.mount(b"proc", b"/proc", b"proc", ctypes.c_ulong(0), None) == 0
    _drop(UID)
    sock = socket.socket(fileno=fd)
    msg = _recv(sock)
    import torch
    import triton
    import triton.language as tl
    info = {"pid_in_ns": os.getpid(), "uid": os.getuid(), "shm_hidden": shm_hidden,
            "fresh_proc": fresh_proc}
    torch.zeros(1, device="cuda")
    xs = None
    try:
        _, fds, _, _ = socket.recv_fds(sock, 16, 2 * CALLS)
        sizes = msg["sizes"]
        xs = [vmm_import(fds[i], sizes[i], (M, N)) for i in range(CALLS)]
        ys = [vmm_import(fds[CALLS + i], sizes[CALLS + i], (N, M)) for i in range(CALLS)]
        for f in fds:
            os.close(f)
        info["vmm_import"] = "ok"
    except Exception as exc:  # noqa: BLE001 - the probe reports any failure
        info["vmm_import"] = f"{type(exc).__name__}: {exc}"
        xs = None
    if xs is None:
        _send(sock, dict(info, ok=False))
        return
    ys[0][0, :8] = 7.0
    torch.cuda.synchronize()
    _send(sock, dict(info, ok=True))

    @triton.jit
    def tkernel(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        tile = tl.load(x + rm[:, None] * N + rn[None, :], mask=mask)
        tl.store(y + rn[None, :] * M + rm[:, None], tile, mask=mask)

    def run(x, y):
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        tkernel[grid](x, y, M, N, BM=64, BN=64, num_warps=8)

    run(xs[0], ys[0])
    torch.cuda.synchronize()
    while True:
        msg = _recv(sock)
        cmd = msg["cmd"]
        if cmd == "quit":
            return
        if cmd == "batch":
            for i in range(CALLS):
                run(xs[i], ys[i])
            torch.cuda.synchronize()
            _send(sock, {})
        elif cmd == "early":
            for i in range(CALLS):
                run(xs[i], ys[i])
            _send(sock, {})
        elif cmd == "busy":
            for _ in range(10):
                for i in range(CALLS):
                    run(xs[i], ys[i])
            _send(sock, {})
        elif cmd == "batchk":
            for i in range(msg["k"]):
                run(xs[i], ys[i])
            torch.cuda.synchronize()
            _send(sock, {})
        elif cmd == "events_k":
            res = {}
            flush = torch.empty(256 * 1024 * 1024 // 4, device="cuda")
            for k in (1, 2, 4, 8, 20):
                for use_flush in (False, True):
                    ev = []
                    for rep in range(80):
                        i = rep % k
                        if use_flush:
                            flush.zero_()
                        s_, e_ = (torch.cuda.Event(enable_timing=True),
                                  torch.cuda.Event(enable_timing=True))
                        s_.record()
                        run(xs[i], ys[i])
                        e_.record()
                        e_.synchronize()
                        ev.append(s_.elapsed_time(e_) * 1e3)
                    ev = sorted(ev[10:])
                    res[f"k{k}_flush{int(use_flush)}"] = ev[len(ev) // 2]
            _send(sock, res)
        elif cmd == "sync":
            torch.cuda.synchronize()
            _send(sock, {})
        elif cmd == "bench":
            from triton.testing import do_bench
            ms = [do_bench(lambda: run(xs[0], ys[0]), warmup=50, rep=300, return_mode="median")
                  for _ in range(3)]
            ev = []
            for rep in range(60):
                i = rep % CALLS
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                run(xs[i], ys[i])
                e.record()
                e.synchronize()
                ev.append(s.elapsed_time(e) * 1e3)
            ev.sort()
            _send(sock, {"do_bench_median_us": [m * 1e3 for m in ms],
                         "event_median_us_no_flush": ev[len(ev) // 2]})


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] in ("judge", "launcher"):
        (judge if sys.argv[1] == "judge" else launcher)(int(sys.argv[2]))
        return
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    variants = {}
    code = ("import os; os.setgroups([]); os.setgid(%d); os.setuid(%d); import torch; "
            "torch.zeros(1, device='cuda'); print('cuda-ok')" % (UID, UID))
    for name, flags in (("plain", []), ("net", ["--net"]), ("mount", ["--mount"]),
                        ("pid", ["--pid", "--fork"]),
                        ("pid+proc", ["--pid", "--fork", "--mount-proc"]),
                        ("all+proc", ["--net", "--mount", "--pid", "--fork", "--mount-proc"])):
        r = subprocess.run(["unshare", *flags, sys.executable, "-c", code], capture_output=True,
                           text=True, timeout=120)
        variants[name] = "ok" if "cuda-ok" in r.stdout else r.stderr.strip().splitlines()[-1:]
    print("VARIANTS", json.dumps(variants))
    a, b = socket.socketpair()
    me = os.path.abspath(__file__)
    env = dict(os.environ, PYTHONUNBUFFERED="1", TRITON_CACHE_DIR="/tmp/probe-triton",
               HOME="/tmp")
    os.makedirs("/tmp/probe-triton", exist_ok=True)
    os.chown("/tmp/probe-triton", UID, UID)
    os.chmod(os.path.dirname(me), 0o755)
    t0 = time.time()
    pj = subprocess.Popen([sys.executable, me, "judge", str(a.fileno())], pass_fds=[a.fileno()],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pl = subprocess.Popen([sys.executable, me, "launcher", str(b.fileno())],
                          pass_fds=[b.fileno()], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    a.close()
    b.close()
    try:
        jo, je = pj.communicate(timeout=400)
        lo, le = pl.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        pj.kill()
        pl.kill()
        jo, je = pj.communicate()
        lo, le = pl.communicate()
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "wall_s": time.time() - t0, "cuda_init_variants": variants, "judge_rc": pj.returncode,
              "launcher_rc": pl.returncode, "judge_stderr": je[-3000:],
              "launcher_stderr": le[-3000:], "launcher_stdout": lo[-2000:]}
    for line in jo.splitlines():
        if line.startswith("JUDGE "):
            result["judge"] = json.loads(line[6:])
    with open(os.path.join(outdir, "trust-probe.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1)[:6000])


if __name__ == "__main__":
    main()
