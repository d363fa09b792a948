"""How many cores this process may use: those it may run on (``os.sched_getaffinity``),
no more than the CPU quota of its control group allows, the quota's cores rounded down
and at least one.

A container limited to one core by a quota (``docker run --cpus 1``, Kubernetes'
``limits.cpu``) still shows the host's cores to ``os.cpu_count`` and to the affinity
mask, so a pool of a worker per core would share the one core's time, only slower than
one process. The quota is read from cgroup v2's ``cpu.max`` (``"100000 100000"``: one
core; ``"max 100000"``: none) or cgroup v1's ``cpu.cfs_quota_us`` over
``cpu.cfs_period_us`` (``-1``: none), in the control group ``/proc/self/cgroup`` names
and every one above it (the tightest counts), under ``/sys/fs/cgroup``; inside a
container whose view of the tree starts at its own group, that group is the mount's top
and the path named is not found below it, so the top is read. A file missing, unreadable
or not as expected sets no quota: the affinity's count, as before quotas were read.

It lives at the top of the package, beside the layers, so that every pool whose size
nobody gave asks the same question: the workers of runs, ``rate``, ``canon`` and
``verify``, and ``nanpure compile``'s processes. A size somebody gave is held to
:data:`PROCESSES_PER_CORE` times those cores here too (:func:`worker_processes`).

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     root = Path(d)
...     _ = (root / "cgroup").write_text("0::/\\n")
...     _ = (root / "cpu.max").write_text("150000 100000\\n")
...     cpu_quota(root, root / "cgroup"), usable_cores(root, root / "cgroup")
(1.5, 1)
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

#: Where the control groups are mounted (cgroup v2's tree, or v1's controller directories).
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: Which control groups this process is in, a line a hierarchy: ``ID:CONTROLLERS:PATH``.
PROC_CGROUP = Path("/proc/self/cgroup")


def usable_cores(root: Path | None = None, proc_cgroup: Path | None = None) -> int:
    """The cores this process may use: those it may run on, capped at the CPU quota's
    (:func:`cpu_quota`, rounded down, at least 1). ``root`` and ``proc_cgroup`` stand for
    :data:`CGROUP_ROOT` and :data:`PROC_CGROUP` (tests give others)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cpu_quota(root, proc_cgroup)
    if quota is not None:
        cores = min(cores, max(1, math.floor(quota)))
    return cores


#: Worker processes a pool started on this machine may have for each core this process may
#: use. The work is CPU-bound: a worker beyond one a core only shares a core's time, while
#: each costs its memory (some 100-200 MB with the kernels loaded) and a second or more to
#: start. A few a core still leave room for a config or command line that asks for some
#: more than there are cores (and for cores the quota or affinity read here hides), and
#: keep what a count meant for a large machine within what a small one holds.
PROCESSES_PER_CORE = 4


def worker_processes(requested: int, named: str, say: Callable[[str], None]) -> int:
    """The worker processes a pool started here gets for the ``requested`` count given by
    ``named`` (an option, ``--workers``, or a config key, ``run.workers``): at most
    :data:`PROCESSES_PER_CORE` for each of :func:`usable_cores`. Where that lowers the
    count, ``say`` is told so, once, a notice and not an error: a config written for a
    large machine still runs on a small one, and the puzzles are the same with any number
    of workers.

    >>> said = []
    >>> worker_processes(3, "--workers", said.append), said
    (3, [])
    """
    most = PROCESSES_PER_CORE * usable_cores()
    if requested <= most:
        return requested
    given = f"{named} {requested}" if named.startswith("-") else f"{named} = {requested}"
    say(f"{given}: using {most} worker processes, {PROCESSES_PER_CORE} per core this "
        "process may use")
    return most


def cpu_quota(root: Path | None = None, proc_cgroup: Path | None = None) -> float | None:
    """The CPU time, in cores, that the control groups of this process allow it (the
    tightest quota of its group and those above it, cgroup v2 or v1); None when no quota
    is set or none can be read."""
    root = CGROUP_ROOT if root is None else root
    try:
        lines = (PROC_CGROUP if proc_cgroup is None else proc_cgroup).read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    quotas = []
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if not path.startswith("/"):
            continue
        if controllers == "":  # cgroup v2: one tree, under the root itself
            quotas += _along(root, path, _v2_quota)
        elif "cpu" in controllers.split(","):  # cgroup v1: the cpu controller's tree
            for top in dict.fromkeys((root / controllers, root / "cpu")):
                quotas += _along(top, path, _v1_quota)
    return min(quotas, default=None)


def _along(top: Path, path: str, quota: Callable[[Path], float | None]) -> list[float]:
    """The quotas ``quota(directory)`` finds in the control group ``path`` under ``top``
    and in each group above it up to ``top`` itself (those that exist)."""
    if ".." in path.split("/"):  # not a control group's path: nothing above top is read
        return []
    found = []
    place = top / path.strip("/")
    while True:
        if place.is_dir() and (cores := quota(place)) is not None:
            found.append(cores)
        if place == top:
            return found
        place = place.parent


def _v2_quota(group: Path) -> float | None:
    """cgroup v2's ``cpu.max`` of ``group`` in cores: ``QUOTA PERIOD``, or ``max``."""
    fields = _read(group / "cpu.max")
    if fields is None or len(fields) != 2 or fields[0] == "max":
        return None
    return _ratio(fields[0], fields[1])


def _v1_quota(group: Path) -> float | None:
    """cgroup v1's ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us`` of ``group`` in cores
    (a quota of -1: none)."""
    quota, period = _read(group / "cpu.cfs_quota_us"), _read(group / "cpu.cfs_period_us")
    if quota is None or period is None or len(quota) != 1 or len(period) != 1:
        return None
    return _ratio(quota[0], period[0])


def _ratio(quota: str, period: str) -> float | None:
    """``quota / period`` when both are positive integers, else None (-1: no quota)."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def _read(path: Path) -> list[str] | None:
    """The whitespace-separated words of the small file ``path``; None when it cannot be
    read."""
    try:
        return path.read_text().split()
    except (OSError, UnicodeDecodeError):
        return None
