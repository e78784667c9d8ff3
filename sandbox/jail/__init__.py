"""The jail: run one untrusted submission in a fresh, contained process.

Public entry: ``run_isolated(argv, scratch=..., limits=..., env=...)`` runs ``argv`` and
returns an ``IsolatedResult`` (never raises for what the child does). Inside the child,
``mark_phase(name)`` tells the parent which phase is under way, so that the compile limit
applies until "run" and the run limit after. ``isolation_layers()`` says which layers
this host grants; ``python -m sandbox.jail`` prints it; ``namespace_flags()`` and
``can_drop_uid()`` answer the two host questions the layers depend on.

Modules: ``spec`` (``Limits``, ``IsolatedResult``, ``mark_phase``: the parent/child
contract), ``run`` (the parent: start, supervise, sweep), ``child.py`` (the child script,
run as ``python -I -S child.py``: builds the jail, then execs the submission; imports
nothing), ``namespaces`` (namespaces, filesystem view, uid, environment), ``resources``
(rlimits, cgroup, disk checks), ``reasons`` (French exit reasons), ``procs`` (/proc scan).
Tests: ``tests/sandbox/test_isolation.py`` (each layer alone) and
``tests/sandbox/test_attacks.py`` (hostile submissions).

What IS isolated (each layer applied when the host allows it, and tested):
- a fresh process (no state inherited from the server) in its own session and process
  group, in its own PID namespace when ``unshare`` works: at the time limit the group is
  killed, the namespace dies with its first process (so a child that called ``setsid``
  dies too), and every process left under the run's own uid is killed;
- rlimits: CPU time, open files, file size, no core dumps, and processes (RLIMIT_NPROC,
  which binds only a non-root uid: hence the unprivileged uid below);
- host memory: RLIMIT_DATA at ``memory_bytes`` (heap and private mappings: a hog gets
  MemoryError at once; RLIMIT_AS would break CUDA, which reserves far more address space
  than it uses), under a cgroup (v2, else v1: ``memory.max`` 1 GiB higher, ``pids.max``)
  when /sys/fs/cgroup is writable, else a parent-side RSS watchdog; the environment
  variable TUILE_SANDBOX_MAX_MEMORY (bytes) lowers ``memory_bytes`` for a whole host;
- stdout/stderr: kept up to ``max_output_bytes`` each, the rest read and dropped;
- disk: RLIMIT_FSIZE bounds each file; the parent also caps scratch as a whole
  (16 × ``max_file_bytes``, at least 1 GiB, and 20 000 entries), checked twice a second;
- network: a fresh network namespace (only a loopback that is down): no address,
  127.0.0.1 included, is reachable;
- filesystem (done with unshare and pivot_root, as bubblewrap would: bubblewrap is not
  installed on our hosts): a new root built from a tmpfs with read-only binds of only what Python,
  torch, triton and CUDA need (/usr, /lib*, /bin, /sbin, the interpreter's prefixes, the
  ``sandbox`` package, /sys, a few files of /etc with a fake passwd), a fresh /proc,
  a minimal /dev (null, zero, urandom… and the /dev/nvidia* nodes), a small /tmp, and the
  scratch directory as the only writable place (it holds TRITON_CACHE_DIR);
- user: when run as root, the child drops to a uid of its own (no file on the host
  belongs to it) with no groups and no_new_privs; unprivileged hosts use a user
  namespace instead;
- environment: scrubbed to a short allow-list; HOME, TMPDIR and every cache point into
  scratch.

What is NOT isolated:
- the GPU itself: the child can use all of the card's memory and time while it runs
  (the queue in ``gpuqueue`` serialises measurements; the run limit bounds the time);
  what an earlier submission left in GPU memory is not cleared by us;
- the worker process itself: the submission runs inside it, so it could patch the
  worker's timer or checker at run time; the pre-check refuses the code that does,
  and the worker's impossible-time check is the backstop;
- the kernel is the host's: a kernel exploit escapes every layer above (no seccomp),
  and so could a flaw in the GPU driver, which the child reaches through /dev/nvidia*;
- /sys is readable (CUDA needs it), so is the installed software: the child can read
  the sandbox's own code, reference solutions included;
- without ``unshare`` (or when namespaces are refused) only the process group, rlimits,
  uid and environment layers remain: ``isolation_layers()`` says which apply, and the
  static pre-check (``sandbox.precheck``) is then the main barrier, which it is not meant to be.
"""
from sandbox.jail.namespaces import can_drop_uid, namespace_flags
from sandbox.jail.run import isolation_layers, run_isolated
from sandbox.jail.spec import PHASE_FD_ENV, IsolatedResult, Limits, mark_phase

__all__ = ["Limits", "IsolatedResult", "run_isolated", "mark_phase", "isolation_layers",
           "PHASE_FD_ENV", "namespace_flags", "can_drop_uid"]
