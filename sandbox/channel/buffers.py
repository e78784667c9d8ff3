"""Memory the judge owns and the launcher maps: one tiny interface, two backends.

Public entry: ``get_backend(name) -> Backend``; ``BACKENDS`` lists the names. A backend
has ``create(nbytes) -> Shared`` (judge side: allocate, keep, export a descriptor) and
``open(fd, nbytes) -> Shared`` (launcher side: map what the judge sent; the descriptor is
closed once mapped). ``Shared.tensor(offset, shape, dtype)`` is a torch view over the
bytes (float32, float16, bfloat16, int32, uint8); ``Shared.close()`` lets the mapping go.

- ``cpu-memfd`` (interpreter mode): ``os.memfd_create`` + ``mmap`` + ``torch.frombuffer``;
  the judge seals the size (``F_SEAL_SHRINK | F_SEAL_GROW``) so the launcher cannot
  truncate it under the judge's feet.
- ``cuda-vmm`` (GPU): judge ``cuMemCreate`` with the POSIX-fd handle type and
  ``cuMemExportToShareableHandle``; launcher ``cuMemImportFromShareableHandle``,
  ``cuMemAddressReserve``, ``cuMemMap``, ``cuMemSetAccess``; tensors through
  ``__cuda_array_interface__``. Measured on the H200 (2026-12-01,
  bench/results/2026-12-01-trust-probe-h200.md): 40 buffers of 1 GiB shared into a
  launcher in new PID, network and mount namespaces; legacy CUDA IPC
  (``cuIpcOpenMemHandle``) fails there.
"""
from __future__ import annotations

import ctypes
import fcntl
import mmap
import os

_TYPESTR = {"float32": "<f4", "float16": "<f2", "bfloat16": "<i2", "int32": "<i4",
            "uint8": "|u1", "int16": "<i2"}
_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "int32": 4, "uint8": 1, "int16": 2}


def itemsize(dtype: str) -> int:
    return _ITEMSIZE[dtype]


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


class Shared:
    """A mapping of judge-owned memory (interface; see the backends below)."""
    nbytes: int
    fd: int | None

    def tensor(self, offset: int, shape, dtype: str):
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


# ---------------------------------------------------------------- cpu-memfd

class _MemfdShared(Shared):
    def __init__(self, fd: int, nbytes: int, owner: bool):
        self.nbytes, self.fd = nbytes, (fd if owner else None)
        size = max(nbytes, mmap.PAGESIZE)
        self._map = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        if not owner:
            os.close(fd)

    def tensor(self, offset: int, shape, dtype: str):
        import torch

        n = _numel(shape)
        if offset < 0 or offset + n * _ITEMSIZE[dtype] > self.nbytes:
            raise ValueError("view outside the shared buffer")
        return torch.frombuffer(self._map, dtype=getattr(torch, dtype), count=n,
                                offset=offset).view(*shape)

    def close(self) -> None:
        try:
            self._map.close()
        except BufferError:   # a tensor still holds it: the mapping goes with the tensor
            pass
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class MemfdBackend:
    name = "cpu-memfd"

    def create(self, nbytes: int) -> Shared:
        fd = os.memfd_create("tuile-judge", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.ftruncate(fd, max(nbytes, mmap.PAGESIZE))
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                    fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        return _MemfdShared(fd, nbytes, owner=True)

    def open(self, fd: int, nbytes: int) -> Shared:
        if os.fstat(fd).st_size < nbytes:
            os.close(fd)
            raise ValueError("shared buffer smaller than announced")
        return _MemfdShared(fd, nbytes, owner=False)


# ---------------------------------------------------------------- cuda-vmm

class _Loc(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _Prop(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", _Loc), ("win32HandleMetaData", ctypes.c_void_p),
                ("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _Access(ctypes.Structure):
    _fields_ = [("location", _Loc), ("flags", ctypes.c_int)]


_POSIX_FD = 1            # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
_PINNED, _DEVICE = 1, 1  # CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE
_RW = 3                  # CU_MEM_ACCESS_FLAGS_PROT_READWRITE


class VmmError(RuntimeError):
    pass


def _cu():
    lib = ctypes.CDLL("libcuda.so.1")
    return lib


def _ok(rc: int, what: str) -> None:
    if rc != 0:
        raise VmmError(f"{what}: CUresult {rc}")


def _device() -> int:
    import torch

    torch.zeros(1, device="cuda")   # the primary context, current on this thread
    return torch.cuda.current_device()


class _VmmShared(Shared):
    def __init__(self, cu, handle: int, size: int, nbytes: int, fd: int | None, dev: int):
        self._cu, self._handle, self._size, self.nbytes, self.fd = cu, handle, size, nbytes, fd
        ptr = ctypes.c_uint64()
        _ok(cu.cuMemAddressReserve(ctypes.byref(ptr), ctypes.c_size_t(size), ctypes.c_size_t(0),
                                   ctypes.c_uint64(0), ctypes.c_ulonglong(0)), "cuMemAddressReserve")
        self.ptr = ptr.value
        _ok(cu.cuMemMap(ctypes.c_uint64(self.ptr), ctypes.c_size_t(size), ctypes.c_size_t(0),
                        ctypes.c_ulonglong(handle), ctypes.c_ulonglong(0)), "cuMemMap")
        acc = _Access(_Loc(_DEVICE, dev), _RW)
        _ok(cu.cuMemSetAccess(ctypes.c_uint64(self.ptr), ctypes.c_size_t(size), ctypes.byref(acc),
                              ctypes.c_size_t(1)), "cuMemSetAccess")

    def tensor(self, offset: int, shape, dtype: str):
        import torch

        n = _numel(shape)
        if offset < 0 or offset + n * _ITEMSIZE[dtype] > self.nbytes:
            raise ValueError("view outside the shared buffer")

        class _View:
            __cuda_array_interface__ = {"shape": tuple(int(d) for d in shape),
                                        "typestr": _TYPESTR[dtype],
                                        "data": (self.ptr + offset, False), "version": 3,
                                        "strides": None}
        t = torch.as_tensor(_View(), device="cuda")
        if dtype == "bfloat16":
            t = t.view(torch.bfloat16)
        return t

    def close(self) -> None:
        import torch

        torch.cuda.synchronize()
        cu = self._cu
        cu.cuMemUnmap(ctypes.c_uint64(self.ptr), ctypes.c_size_t(self._size))
        cu.cuMemAddressFree(ctypes.c_uint64(self.ptr), ctypes.c_size_t(self._size))
        cu.cuMemRelease(ctypes.c_ulonglong(self._handle))
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class VmmBackend:
    name = "cuda-vmm"

    def _prop(self, dev: int) -> _Prop:
        prop = _Prop()
        prop.type, prop.requestedHandleTypes = _PINNED, _POSIX_FD
        prop.location = _Loc(_DEVICE, dev)
        return prop

    def _granularity(self, cu, prop) -> int:
        gran = ctypes.c_size_t()
        _ok(cu.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(prop), 0),
            "cuMemGetAllocationGranularity")
        return gran.value

    def create(self, nbytes: int) -> Shared:
        cu, dev = _cu(), _device()
        prop = self._prop(dev)
        gran = self._granularity(cu, prop)
        size = max(-(-nbytes // gran) * gran, gran)
        handle = ctypes.c_ulonglong()
        _ok(cu.cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(prop),
                           ctypes.c_ulonglong(0)), "cuMemCreate")
        fd = ctypes.c_int(-1)
        _ok(cu.cuMemExportToShareableHandle(ctypes.byref(fd), handle, _POSIX_FD,
                                            ctypes.c_ulonglong(0)), "cuMemExportToShareableHandle")
        return _VmmShared(cu, handle.value, size, nbytes, fd.value, dev)

    def open(self, fd: int, nbytes: int) -> Shared:
        cu, dev = _cu(), _device()
        prop = self._prop(dev)
        gran = self._granularity(cu, prop)
        size = max(-(-nbytes // gran) * gran, gran)
        handle = ctypes.c_ulonglong()
        try:
            _ok(cu.cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fd),
                                                  _POSIX_FD), "cuMemImportFromShareableHandle")
        finally:
            os.close(fd)
        return _VmmShared(cu, handle.value, size, nbytes, None, dev)


BACKENDS = {"cpu-memfd": MemfdBackend, "cuda-vmm": VmmBackend}


def get_backend(name: str):
    try:
        return BACKENDS[name]()
    except KeyError:
        raise KeyError(f"unknown buffer backend {name!r}; known: {', '.join(BACKENDS)}") from None
