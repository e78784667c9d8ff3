"""Where kernel runs go: this host's GPUs, or a pool of GPU hosts on Dask distributed.

Public entry: ``get_backend(name=None, **settings) -> KernelBackend``; its
``run(source, exercise, options, learner=..., on_event=...)`` returns a ``PoolRun``
(the sandbox's ``KernelReport`` plus where it ran, how many attempts, and what the user
must be told). Backends, in the registry of ``gpupool.backends``: ``local`` (default:
``sandbox.run_submission`` in this process's host, one slot per GPU) and ``dask``
(``gpupool.dask_backend``: a Dask scheduler, ``tuile worker`` on each GPU host). The
UI and the CLI call a backend, never Dask; without a scheduler, Dask is not imported.

``tuile scheduler`` and ``tuile worker --scheduler tcp://HOST:8786`` start the pool
(``gpupool.cli``). This package imports the sandbox's public entry and records, the
standard library, and ``distributed`` only in the Dask backend and the worker.
"""
from gpupool.backends import KernelBackend, get_backend, list_backends, register_backend
from gpupool.records import PoolRun

__all__ = ["KernelBackend", "PoolRun", "get_backend", "list_backends", "register_backend"]
