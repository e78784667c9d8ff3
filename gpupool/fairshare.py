"""Fair share of the GPUs between learners: one submission at a time per learner, arrival
order otherwise.

Public entry: ``FairShare(capacity)``; ``with fair.turn(learner, on_wait):`` blocks until
this submission may go to a GPU: the learner has nothing else in flight, every earlier
submission that may go is gone, and fewer than ``capacity()`` are in flight. A learner
who sends ten submissions does not hold back the class: their second waits for their
first, while other learners' submissions pass it: waiting submissions go round robin
between learners (a learner's second waiting one after every other learner's first),
in arrival order within a round. ``on_wait(n)`` is told the number of
submissions that go before this one (those eligible ahead, plus one when the pool is
full), ``on_wait(None)`` while it waits for its own learner's previous one, and ``0``
when it goes. ``capacity`` may change (hosts join or leave); a capacity of 0 lasting
``give_up_s`` raises ``NoCapacity``.
"""
from __future__ import annotations

import itertools
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator


class NoCapacity(Exception):
    """No GPU in the pool for ``give_up_s``: nothing can run the submission."""


class FairShare:
    def __init__(self, capacity: Callable[[], int] | int, *, poll_s: float = 0.5):
        self._capacity = capacity if callable(capacity) else (lambda: int(capacity))
        self._cond = threading.Condition()
        self._waiting: list[tuple[int, str]] = []      # (arrival number, learner)
        self._running: dict[str, int] = {}              # learner -> submissions in flight
        self._served: dict[str, int] = {}               # started since the learner's queue was last empty
        self._seq = itertools.count()
        self._poll_s = poll_s

    def in_flight(self) -> int:
        with self._cond:
            return sum(self._running.values())

    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)

    def _priorities(self) -> dict[tuple[int, str], tuple[int, int]]:
        """(submissions of its learner started since that learner's queue was last empty
        + its rank among its learner's waiting ones, arrival): round robin between
        learners, arrival order within a round."""
        seen: dict[str, int] = dict(self._served)
        out = {}
        for entry in self._waiting:
            rank = seen.get(entry[1], 0)
            seen[entry[1]] = rank + 1
            out[entry] = (rank, entry[0])
        return out

    @contextmanager
    def turn(self, learner: str, on_wait: Callable[[int | None], None] | None = None,
             give_up_s: float | None = None) -> Iterator[int]:
        me = (next(self._seq), learner)
        first_pos, last, empty_since = None, object(), None
        with self._cond:
            self._waiting.append(me)
            try:
                while True:
                    cap = self._capacity()
                    busy = sum(self._running.values())
                    own = self._running.get(learner, 0) > 0
                    prio = self._priorities()
                    ahead = [w for w in self._waiting if prio[w] < prio[me]
                             and self._running.get(w[1], 0) == 0]
                    go = not own and len(ahead) < cap - busy
                    pos = 0 if go else (None if own else len(ahead) + (1 if busy >= cap else 0))
                    if first_pos is None:
                        first_pos = pos if pos is not None else 1
                    if pos != last and on_wait is not None:
                        on_wait(pos)
                    last = pos
                    if go:
                        break
                    if cap <= 0 and give_up_s is not None:
                        empty_since = empty_since or time.monotonic()
                        if time.monotonic() - empty_since > give_up_s:
                            raise NoCapacity()
                    else:
                        empty_since = None
                    self._cond.wait(self._poll_s)
            finally:
                self._waiting.remove(me)
                self._cond.notify_all()
            self._running[learner] = self._running.get(learner, 0) + 1
            self._served[learner] = self._served.get(learner, 0) + 1
        try:
            yield first_pos
        finally:
            with self._cond:
                self._running[learner] -= 1
                if not self._running[learner]:
                    del self._running[learner]
                    if not any(w[1] == learner for w in self._waiting):
                        self._served.pop(learner, None)
                self._cond.notify_all()
