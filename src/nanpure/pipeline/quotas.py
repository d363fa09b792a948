"""Quotas: which task makes which puzzle, and which finished task fills which quota.

Every task is numbered within its quota and gets its own seed from the run seed, so a
task's candidate depends only on (run seed, quota, task number). Finished tasks are
judged strictly in task order: a result that arrives early waits until every earlier task
of its quota has been judged. Which puzzles a run keeps therefore never depends on the
number of workers or on which worker was fastest.

>>> state = QuotaState(0, "easy", count=1)
>>> state.next_batch(7, spec=None, size=2).numbers
range(0, 2)
>>> list(state.finished(TaskResult(0, 1, "B", 0.1)))  # waits for task 0
[]
>>> for due in state.finished(TaskResult(0, 0, "A", 0.1)):
...     print(due.made)
...     state.record("accepted")  # quota full: task 1's result is dropped
A
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..record import PuzzleRecord

if TYPE_CHECKING:
    from .store import Store

_SEED_MASK = 2**63 - 1

#: A quota that has accepted none of this many of its tasks is *stalled*: its puzzles may
#: be too rare to find. The run warns about it and gives it only tasks no other quota needs
#: (until then it has its share of the workers, as every open quota, :func:`pick_quota`).
STALL_TASKS = 20_000


def task_seed(run_seed: int, *key: int) -> int:
    """The seed of the task at spawn ``key`` under the run seed: a child of the run seed's
    ``SeedSequence``, cut to 63 bits so SQLite stores it as a plain INTEGER. A run's task
    ``n`` of quota ``q`` has the key ``(q, n)``; ``nanpure generate``'s task ``n``, of
    its one quota, the key ``(n,)``.

    >>> task_seed(1, 0, 0) == task_seed(1, 0, 0) != task_seed(1, 0, 1)
    True
    >>> 0 <= task_seed(2**63 - 1, 5, 10**9) < 2**63
    True
    """
    sequence = np.random.SeedSequence(run_seed, spawn_key=key)
    return int(sequence.generate_state(1, np.uint64)[0]) & _SEED_MASK


@dataclass(frozen=True)
class Batch:
    """Consecutive tasks of one quota (its index), sent to a worker together: task ``n``
    is one call of ``kind_of(kind).make_candidate(spec, task_seed(run_seed, *key, n))``
    (:mod:`nanpure.generator.kinds`). Batching keeps the cost of sending work to a process
    small beside the work itself."""

    quota: int
    key: tuple[int, ...]  # the quota's spawn key, before the task number
    spec: Any
    run_seed: int
    first: int
    size: int
    kind: str = "sudoku"  # the puzzle kind whose generator takes ``spec``

    @property
    def numbers(self) -> range:
        return range(self.first, self.first + self.size)

    def seed(self, number: int) -> int:
        """The seed of task ``number``."""
        return task_seed(self.run_seed, *self.key, number)


class TaskResult(NamedTuple):
    """One finished task: what it made (None when every attempt failed) and the worker
    seconds it took. Plain tuples keep the results cheap to send between processes."""

    quota: int
    number: int
    made: PuzzleRecord | None
    seconds: float


def fits(made: PuzzleRecord, spec: Any, kind: str = "sudoku") -> bool:
    """Whether a candidate really satisfies its spec, a spec of ``kind`` (a guard against
    generator bugs; each kind says what fitting means)."""
    from ..generator.kinds import kind_of

    return kind_of(kind).fits(made, spec)


@dataclass
class QuotaState:
    """The progress of one quota during a run.

    ``stored`` counts puzzles in the store for this quota (including earlier sessions of a
    resumed run); ``next_number`` is the next task to hand out and ``next_judged`` the next
    one whose result is due.
    """

    index: int
    name: str
    count: int
    stored: int = 0
    next_number: int = 0
    next_judged: int = 0
    in_flight: int = 0
    # this session's tally
    tasks_done: int = 0
    judged: int = 0
    accepted: int = 0
    duplicates: int = 0
    rejected: int = 0  # tasks whose attempts all failed (or, never, a misfit)
    given_up: int = 0  # stored puzzles given up to a quota before this one (give_up)
    worker_seconds: float = 0.0
    filled_at: float | None = None  # seconds into the run when the quota filled
    waiting: dict[int, TaskResult] = field(default_factory=dict)
    seed_key: tuple[int, ...] | None = None
    kind: str = "sudoku"  # the puzzle kind this quota makes

    @classmethod
    def resume(cls, index: int, name: str, count: int, stored: int, last_task: int,
               kind: str = "sudoku") -> QuotaState:
        """The state of a quota whose stored puzzles end at task ``last_task``."""
        start = last_task + 1
        return cls(index, name, count, stored=stored, next_number=start, next_judged=start,
                   kind=kind)

    @property
    def key(self) -> tuple[int, ...]:
        """The spawn key its tasks' seeds start with: ``(index,)``, unless ``seed_key``
        says otherwise (``nanpure generate``, a run of one quota, gives ``()``)."""
        return (self.index,) if self.seed_key is None else self.seed_key

    @property
    def full(self) -> bool:
        return self.stored >= self.count

    @property
    def remaining(self) -> int:
        return max(0, self.count - self.stored)

    def acceptance(self) -> float:
        """Accepted per judged task this session (0 when nothing was judged)."""
        return self.accepted / self.judged if self.judged else 0.0

    @property
    def stalled(self) -> bool:
        """Whether this unfilled quota has accepted none of :data:`STALL_TASKS` tasks this
        session: its puzzles may be too rare to find at all."""
        return not self.full and self.accepted == 0 and self.judged >= STALL_TASKS

    def demand(self) -> float:
        """How many more tasks this quota probably needs beyond those in flight: the
        puzzles still missing over the acceptance rate seen so far (optimistic at first)."""
        rate = (self.accepted + 1) / (self.judged + 1)
        return self.remaining / rate - self.in_flight

    def next_batch(self, run_seed: int, spec: Any, size: int = 1) -> Batch:
        """Hand out the next ``size`` tasks of this quota."""
        batch = Batch(self.index, self.key, spec, run_seed, self.next_number, size, self.kind)
        self.next_number += size
        self.in_flight += size
        return batch

    def mean_task_seconds(self) -> float | None:
        """Worker seconds per finished task so far (None before any finished)."""
        return self.worker_seconds / self.tasks_done if self.tasks_done else None

    def worker_time(self, typical: float) -> float:
        """The worker seconds this quota has had this session: its finished tasks' and,
        at their mean (``typical`` before any finished), its tasks in flight, so that the
        slots handed out at once are shared too.

        >>> q = QuotaState(0, "easy", count=9, worker_seconds=1.5, tasks_done=3, in_flight=2)
        >>> q.worker_time(typical=7.0)
        2.5
        """
        mean = self.mean_task_seconds()
        return self.worker_seconds + self.in_flight * (typical if mean is None else mean)

    def finished(self, result: TaskResult) -> Iterator[TaskResult]:
        """Take a finished task and yield the results now due, in task order.

        The caller judges each yielded result (``record``) before asking for the next;
        once the quota is full, later results are dropped.
        """
        self.in_flight -= 1
        self.tasks_done += 1
        self.worker_seconds += result.seconds
        if self.full or result.number < self.next_judged:
            return
        self.waiting[result.number] = result
        while not self.full and self.next_judged in self.waiting:
            due = self.waiting.pop(self.next_judged)
            self.next_judged += 1
            yield due
        if self.full:
            self.waiting.clear()

    def give_up(self) -> None:
        """Give up one stored puzzle to a quota before this one in the run that made it
        too (:class:`~.run._Keeper`). A quota that was full opens again and goes on from
        its next task due: those it had handed out were cancelled when it filled.

        >>> q = QuotaState(0, "easy", count=1, stored=1, next_number=5, next_judged=3,
        ...                in_flight=2, filled_at=1.5)
        >>> q.give_up()
        >>> q.full, q.next_number, q.in_flight, q.filled_at, q.made
        (False, 3, 0, None, -1)
        """
        if self.full:
            self.next_number, self.in_flight, self.filled_at = self.next_judged, 0, None
            self.waiting.clear()
        self.stored -= 1
        self.given_up += 1

    @property
    def made(self) -> int:
        """The puzzles this session added to the quota: those it accepted, less those it
        gave up (which an earlier session may have made)."""
        return self.accepted - self.given_up

    def snapshot(self) -> QuotaState:
        """A copy of this state to go back to with :meth:`restore`."""
        return dataclasses.replace(self, waiting=dict(self.waiting))

    def restore(self, snapshot: QuotaState) -> None:
        """Go back to ``snapshot``: what was judged since is undone (the store rolled
        back the puzzles it stored), so the counts say only what the store holds.

        >>> state = QuotaState(0, "easy", count=2)
        >>> before = state.snapshot()
        >>> state.record("accepted")
        >>> state.restore(before)
        >>> state.stored, state.accepted, state.judged
        (0, 0, 0)
        """
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(snapshot, f.name))

    def record(self, outcome: str) -> None:
        """Count a judged result: ``accepted``, ``duplicate`` or ``rejected``."""
        self.judged += 1
        if outcome == "accepted":
            self.accepted += 1
            self.stored += 1
        elif outcome == "duplicate":
            self.duplicates += 1
        else:
            self.rejected += 1


def pick_quota(states: list[QuotaState]) -> QuotaState | None:
    """The unfilled quota whose turn it is for a free worker, or None when all are full:
    of the quotas that need a task, the one that has had the least worker time this
    session (:meth:`QuotaState.worker_time`; then the fewest tasks, then the first). A
    :attr:`~QuotaState.stalled` quota, and one with tasks enough in flight to fill, gets a
    task only when no other needs one, and then the one that needs the most (the largest
    :meth:`~QuotaState.demand`).

    Why an equal share of the workers' time for every open quota: the tasks a quota needs
    are fixed by their seeds, so the order they run in changes neither which puzzles are
    stored nor, while the workers are kept busy, when the whole run ends, only what each
    quota holds before then, as at a deadline (``max_seconds``).

    - The largest need first (missing puzzles over the acceptance rate) gives a rare
      quota, whose need grows with each task it fails, almost every task: at a deadline
      quotas that needed seconds hold nothing.
    - An equal fraction done, so that the quotas finish together, leaves each at a
      deadline the deadline's share of the whole run, which a rare quota makes long, so
      a quota that needed seconds holds hardly more; nor can the fraction be measured. By
      puzzles stored over count, a quota with none stored is always the furthest behind
      and takes every task; by tasks over tasks plus need, a quota that has accepted
      nothing has a need that grows as fast as its tasks, so its fraction stays put, and
      the others stop when they reach it.
    - An equal share of time needs no estimate: with k quotas open, a quota that would
      take the workers t seconds alone fills within about k·t, and at a deadline every
      open quota has had at least a k-th of the workers; the time a quota no longer
      needs once full goes to the others.

    >>> a, b = QuotaState(0, "a", count=2), QuotaState(1, "b", count=5)
    >>> pick_quota([a, b]).name, pick_quota([a, b]).name  # tied: the first
    ('a', 'a')
    >>> a.worker_seconds, a.tasks_done = 2.0, 4
    >>> pick_quota([a, b]).name
    'b'
    >>> b.worker_seconds, b.tasks_done, b.judged = 3.0, 3000, 3000  # b finds nothing
    >>> pick_quota([a, b]).name  # and has had more time
    'a'
    >>> b.judged = STALL_TASKS
    >>> a.worker_seconds = 9.0
    >>> pick_quota([a, b]).name  # a stalled quota waits
    'a'
    """
    open_ = [s for s in states if not s.full]
    if not open_:
        return None
    needy = [s for s in open_ if not s.stalled and s.demand() > 0]
    if not needy:
        return max(open_, key=lambda s: (s.demand(), -s.index))
    done = sum(s.tasks_done for s in states)
    typical = sum(s.worker_seconds for s in states) / done if done else 1.0
    return min(needy, key=lambda s: (s.worker_time(typical), s.tasks_done + s.in_flight,
                                     s.index))


# --- inventory quotas ---------------------------------------------------------------------


@dataclass(frozen=True)
class Stock:
    """An inventory quota (``keep_unused``) as a session of its run starts: the unused
    puzzles it keeps in stock and how many the store held then.

    >>> Stock("easy", keep=40, unused=33).shortfall, Stock("easy", 40, 45).shortfall
    (7, 0)
    """

    quota: str
    keep: int
    unused: int

    @property
    def shortfall(self) -> int:
        """How many puzzles this session makes to fill the stock again."""
        return max(0, self.keep - self.unused)


def in_stock(store: Store, family: str, quota: Any) -> Iterator[PuzzleRecord]:
    """The puzzles in the stock of the inventory ``quota`` (a Sudoku or nonogram quota of a
    run config) of runs of ``family``: those they stored for a quota of its name that no
    book has printed and that fit it, read a batch at a time as they are taken (a stock
    of any size is counted in the same little memory). A quota whose spec changed keeps
    counting only what fits it now."""
    spec = quota.spec()
    return (r for r in store.unused_in_family(family, quota.name, quota.kind)
            if fits(r, spec, quota.kind))
