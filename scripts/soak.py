"""Stop ``nanpure run``, ``export`` and ``book`` at random moments, many times, and check
that every one ends as the README says: the races of stopping are found only so.

    python scripts/soak.py --rounds 300           # from a random first seed, printed
    python scripts/soak.py --seed 81920 --rounds 1   # round 81920 again

Each round has a seed (the first round's is ``--seed``, the next one's that plus one, and
so on), which decides all it does: which command, how many workers, which stop and the
moment it is sent (a share of ``--span`` seconds). ``--seed SEED --rounds 1`` with the
options printed beside a failure replays its round: the same stop at the same moment,
though what the process is doing at that moment may differ (that is a race).

A run round starts ``nanpure run CONFIG --store S --no-progress`` (a config with Sudoku
quotas from common to rare and a nonogram quota; ``--workers`` 1 or 2, sometimes
``--max-seconds``) and at a random moment does one of:

- ``none``: nothing;
- ``sigterm``: SIGTERM to the run's process (as ``kill`` and systemd's KillMode=mixed);
- ``sigint``: SIGINT to the run's process, whose SIGINT is at its default, so that Python
  makes it Ctrl-C;
- ``ctrl-c``: SIGINT to the run's whole process group, as a terminal sends Ctrl-C;
- ``sigterm-twice``: two SIGTERMs up to 50 ms apart (as ``timeout`` sends them);
- ``sigkill``: SIGKILL to the run's process;
- ``kill-worker``: SIGKILL to one of the pool's worker processes (``kill-forkserver``:
  to the fork server they are started from).

Sometimes a second session (a resume) is stopped too. Each session must exit within
``--timeout`` seconds (else the stacks of its processes are dumped, with py-spy when it
is found, and the round fails), with an exit status the README gives for what was done
(a stop that came after the run had ended finds the run's own status), with no
traceback on standard error, with the store's run status matching the exit status
(``running`` only after SIGKILL of the run, which leaves any status), and with none of
its processes (workers, fork server) alive a few seconds after it. The run is then
resumed to completion, and the store must hold exactly the puzzles (text, quota, task)
of an uninterrupted run of the same config and seed (made once, first).

An export round stops ``nanpure export`` (csv, jsonl, lines, parquet, sdk; with
``--steps`` sometimes, which makes it slow), and a book round ``nanpure book`` (recorded
in the store or not), with SIGTERM, SIGINT, SIGKILL or nothing, each with an old file
under the output's name or none: every file
it writes must afterwards be the old one, absent, or the whole new one (equal to an
uninterrupted export's or book's), with no ``.part`` file beside it unless the process
was killed, and a book the store records must be the new one.
Doing it again must then give the new files, and no puzzle may be in two books.

Two windows are outside nanpure's reach and counted apart, not failed: Ctrl-C while
Python still imports nanpure (Python's KeyboardInterrupt traceback, exit by SIGINT), and
a stop while the interpreter exits after the command finished (CPython restores the
signals' default actions before tearing its modules down, so the signal ends the
process instead of its exit status); see :func:`window`.

Prints a line a round, and at the end every failure with its seed; exit status 1 when a
round failed. A failed round's files (store, output, standard error, stack dumps) are
kept in its folder under ``--work``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The run every run round makes: Sudoku quotas from common to rare (``attempts = 1``
#: makes a task fail often) and a nonogram quota; a few seconds on two workers.
CONFIG = """\
[run]
name = "soak"
seed = 4242

[[quota]]
name = "easy"
tier = "easy"
count = 1200
blanks = [40, 48]
attempts = 2

[[quota]]
name = "medium"
tier = "medium"
count = 400
symmetry = "rot180"
blanks = [46, 54]
attempts = 1

[[quota]]
name = "hard"
tier = "hard"
count = 160
blanks = [50, 58]
attempts = 1

[[quota]]
name = "wing"
min_tier = "hard"
max_tier = "unfair"
require = ["XY-Wing"]
count = 80
attempts = 1

[[quota]]
name = "unfair"
tier = "unfair"
count = 30
attempts = 1

[[quota]]
name = "pictures"
kind = "nonogram"
size = [15, 15]
tier = "hard"
count = 60
symmetry = "mirror"
attempts = 3
"""

#: The book of book rounds (its store is filled in): Sudoku and nonograms of the run.
BOOK = """\
[book]
title = "Soak"
store = "{store}"
page_size = "6x9in"

[[book.section]]
title = "Sudoku"
kind = "sudoku"
run = "{run}"
count = 40

[[book.section]]
title = "Pictures"
kind = "nonogram"
run = "{run}"
count = 6
"""

RUN_EVENTS = {"none": 2, "sigterm": 3, "sigint": 2, "ctrl-c": 2, "sigterm-twice": 3,
              "sigkill": 3, "kill-worker": 3, "kill-forkserver": 1}
FILE_EVENTS = {"none": 1, "sigterm": 2, "sigint": 2, "sigkill": 2}
EXPORTS = [("csv",), ("jsonl",), ("lines",), ("parquet",), ("sdk",), ("csv", "--steps"),
           ("jsonl", "--steps")]

#: Exit statuses of a process ended by a signal, as subprocess gives them.
KILLED = {signal.SIGTERM: -signal.SIGTERM, signal.SIGINT: -signal.SIGINT,
          signal.SIGKILL: -signal.SIGKILL}
RUN_STATUS = {0: "complete", 1: "failed", 3: "out-of-time", 130: "interrupted"}

#: How long a process's workers and fork server may outlive it.
LINGER_SECONDS = 15.0
#: How long a Ctrl-C or SIGTERM may take to end a process (a run holds a stop while it
#: commits a batch or starts a worker, which waits for the fork server's imports); a
#: process that goes on longer and exits as if nothing came lost it.
LOST_SECONDS = 3.0


class Failed(Exception):
    """A check of a round failed; the message says which."""


# --- processes --------------------------------------------------------------------------------


def nanpure(*args: str) -> list[str]:
    return [sys.executable, "-m", "nanpure.cli", *args]


def environment() -> dict[str, str]:
    """This checkout's nanpure first on the path."""
    path = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def _ctrl_c_as_at_a_terminal() -> None:
    """For the child: SIGINT at its default (a harness started in the background has it
    ignored, and children inherit that), so that Python makes it KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _proc_stat(pid: int) -> tuple[int, int, str] | None:
    """``(parent, session, state)`` of process ``pid``, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), int(fields[3]), fields[0]


def _processes() -> dict[int, tuple[int, int, str]]:
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _proc_stat(int(entry.name))) is not None:
            found[int(entry.name)] = stat
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def session_members(session: int) -> list[int]:
    """The live processes (not zombies) of a session: a process started by
    :class:`Session` and whatever it started."""
    return sorted(pid for pid, (_, sid, state) in _processes().items()
                  if sid == session and state != "Z")


def pool_processes(pid: int) -> tuple[list[int], list[int]]:
    """``(fork servers, workers)`` of the run process ``pid``: its children that serve
    forks, and theirs."""
    table = _processes()
    children = [p for p, (parent, _, _) in table.items() if parent == pid]
    servers = [p for p in children if "forkserver" in _cmdline(p)]
    workers = [p for p, (parent, _, state) in table.items()
               if parent in servers and state != "Z"]
    return servers, workers


def find_py_spy(given: str | None) -> str | None:
    if given:
        return given
    return shutil.which("py-spy") or next(
        (str(p) for p in [Path("/tmp/pyspy/bin/py-spy")] if p.is_file()), None)


def dump_stacks(pids: list[int], py_spy: str | None) -> str:
    """The Python stacks of ``pids`` (py-spy), or what /proc tells of where their threads
    wait."""
    parts = []
    for pid in pids:
        parts.append(f"=== process {pid}: {_cmdline(pid)}")
        if py_spy:
            done = subprocess.run([py_spy, "dump", "--pid", str(pid)], capture_output=True,
                                  text=True, timeout=60)
            parts.append(done.stdout + done.stderr)
            continue
        for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
            lines = [f"thread {task.name}"]
            for name in ("wchan", "stat", "stack"):
                try:
                    lines.append(f"  {name}: {(task / name).read_text().strip()}")
                except OSError as exc:
                    lines.append(f"  {name}: ({exc.strerror})")
            parts.append("\n".join(lines))
    return "\n".join(parts)


@dataclass
class Outcome:
    """How a process started by :class:`Session` ended."""

    status: int
    stdout: str
    stderr: str
    seconds: float
    sent: list[str] = field(default_factory=list)  # the signals sent, and when
    first_sent: float | None = None  # seconds after the start the first was sent

    def lost_stop(self) -> float | None:
        """How long the process went on after the first stop, when that is longer than a
        stop takes to land (:data:`LOST_SECONDS`): the stop was lost."""
        if self.first_sent is None or self.seconds - self.first_sent <= LOST_SECONDS:
            return None
        return self.seconds - self.first_sent


class Session:
    """One nanpure process, in a session of its own (so that its process group is its
    own, for Ctrl-C, and the processes it starts can be found), its output in files."""

    def __init__(self, args: list[str], folder: Path, name: str, timeout: float,
                 py_spy: str | None):
        self.folder, self.name, self.timeout, self.py_spy = folder, name, timeout, py_spy
        self.out, self.err = folder / f"{name}.out", folder / f"{name}.err"
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.proc = subprocess.Popen(args, cwd=folder, stdout=out, stderr=err,
                                         env=environment(), start_new_session=True,
                                         preexec_fn=_ctrl_c_as_at_a_terminal)
        self.started = time.monotonic()
        self.sent: list[str] = []
        self.first_sent: float | None = None

    def at(self, moment: float) -> bool:
        """Wait until ``moment`` seconds after the start; False when the process ended
        first."""
        try:
            self.proc.wait(max(0.0, self.started + moment - time.monotonic()))
            return False
        except subprocess.TimeoutExpired:
            return True

    def send(self, signum: int, pid: int | None = None, group: bool = False) -> None:
        """Send ``signum`` to the process (or ``pid``, or the whole group), noting when."""
        target = pid or self.proc.pid
        try:
            if group:
                os.killpg(self.proc.pid, signum)
            else:
                os.kill(target, signum)
        except ProcessLookupError:
            return
        who = "group" if group else ("run" if target == self.proc.pid else f"pid {target}")
        at = time.monotonic() - self.started
        self.sent.append(f"{signal.Signals(signum).name} to {who} at {at:.2f} s")
        if self.first_sent is None and target == self.proc.pid:  # a stop, not a kill
            self.first_sent = at

    def finish(self) -> Outcome:
        """Wait for the process to exit, then for the processes it started to go; a hang
        dumps their stacks, ends them and fails."""
        try:
            self.proc.wait(max(0.0, self.started + self.timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            members = session_members(self.proc.pid)
            dump = self.folder / f"{self.name}.stacks.txt"
            dump.write_text(dump_stacks(members, self.py_spy))
            self._end_session()
            raise Failed(f"{self.name}: still running after {self.timeout:.0f} s "
                         f"({'; '.join(self.sent) or 'no signal sent'}); stacks in {dump}"
                         ) from None
        seconds = time.monotonic() - self.started
        deadline = time.monotonic() + LINGER_SECONDS
        while (left := session_members(self.proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        if left:
            described = "; ".join(f"{p} {_cmdline(p)[:80]}" for p in left)
            dump = self.folder / f"{self.name}.stacks.txt"
            dump.write_text(dump_stacks(left, self.py_spy))
            self._end_session()
            raise Failed(f"{self.name}: processes outlived it by {LINGER_SECONDS:.0f} s: "
                         f"{described}; stacks in {dump}")
        return Outcome(self.proc.returncode, self.out.read_text(errors="replace"),
                       self.err.read_text(errors="replace"), seconds, self.sent,
                       self.first_sent)

    def _end_session(self) -> None:
        for pid in session_members(self.proc.pid):  # this process and what it started
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(30)


# --- the store ----------------------------------------------------------------------------------


def _read(store: Path, query: str, *args: object) -> list[tuple]:
    if not store.exists():
        return []
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(query, args).fetchall()
    except sqlite3.OperationalError as exc:  # no tables yet: the process died making them
        if "no such table" in str(exc):
            return []
        raise
    finally:
        db.close()


def run_status(store: Path, run: str) -> str | None:
    rows = _read(store, "SELECT status FROM runs WHERE name = ?", run)
    return rows[0][0] if rows else None


def run_puzzles(store: Path, run: str) -> set[tuple[str, str, int]]:
    return set(_read(store, "SELECT p.puzzle, p.quota, p.task FROM puzzles p JOIN runs r "
                            "ON r.id = p.run_id WHERE r.name = ?", run))


def books(store: Path) -> int:
    return len(_read(store, "SELECT id FROM books"))


def twice_printed(store: Path) -> int:
    return len(_read(store, "SELECT puzzle_id FROM book_puzzles GROUP BY puzzle_id "
                            "HAVING count(*) > 1"))


# --- checks -------------------------------------------------------------------------------------


def check_stderr(outcome: Outcome, name: str) -> list[str]:
    """Fail on a traceback, and on leaked semaphores unless the process was killed by a
    signal (its resource tracker then removes them, and says so); return the lines nobody
    expects."""
    if "Traceback (most recent call last)" in outcome.stderr:
        raise Failed(f"{name}: a traceback on stderr:\n{outcome.stderr[-3000:]}")
    if "leaked" in outcome.stderr and outcome.status >= 0:
        raise Failed(f"{name}: leaked resources reported:\n{outcome.stderr[-2000:]}")
    known = ("a worker process died", "nanpure: interrupted", "leaked", "resource_tracker",
             "warnings.warn(")
    return [line for line in outcome.stderr.splitlines()
            if line.strip() and not any(k in line for k in known)]


def expected_run_exits(event: str, bounded: bool) -> set[int]:
    """The exit statuses the README gives ``nanpure run`` for ``event``; a stop that came
    after the run ended finds the run's own (0, or 3 with a time budget)."""
    ended = {0, 3} if bounded else {0}
    return ended | {
        "none": set(),
        "sigterm": {130, KILLED[signal.SIGTERM]},  # killed: before nanpure handles it
        "sigterm-twice": {130, KILLED[signal.SIGTERM]},
        "sigint": {130},
        "ctrl-c": {130},
        "sigkill": {KILLED[signal.SIGKILL]},
        "kill-worker": set(),
        "kill-forkserver": set(),
    }[event]


def check_run_session(outcome: Outcome, event: str, bounded: bool, before: str | None,
                      after: str | None, name: str, run: str) -> tuple[list[str], str | None]:
    """The checks of one stopped session of a run; returns the unexpected stderr lines,
    and the window the stop came in, if one (see :func:`window`)."""
    summary = re.match(rf"run {re.escape(run)}: (\S+) in ", outcome.stdout)
    stopped_in = window(outcome, summary is not None) if event != "sigkill" else None
    if stopped_in == "start":
        if after != before:
            raise Failed(f"{name}: stopped while Python started, yet the run's status went "
                         f"from {before} to {after}")
        return [], stopped_in
    odd = check_stderr(outcome, name)
    if stopped_in == "exit":
        if summary is None or after != summary.group(1):
            raise Failed(f"{name}: the summary says {summary and summary.group(1)}, the "
                         f"store {after}")
        return odd, stopped_in
    allowed = expected_run_exits(event, bounded)
    if outcome.status not in allowed:
        raise Failed(f"{name}: exit status {outcome.status}, expected one of "
                     f"{sorted(allowed)} after {event}\n{outcome.stderr[-2000:]}")
    if outcome.status in (0, 3) and (went_on := outcome.lost_stop()) is not None:
        raise Failed(f"{name}: the stop was lost: the run went on {went_on:.1f} s after it "
                     f"and exited {outcome.status}")
    if outcome.status < 0:  # killed: before nanpure took the signal, or by SIGKILL
        if event != "sigkill" and after != before:
            raise Failed(f"{name}: killed by a signal, yet the run's status went from "
                         f"{before} to {after}")
        return odd, None
    wanted = RUN_STATUS[outcome.status]
    if outcome.status == 130 and summary is None:
        # stopped before the run's row was made: nothing to record, nothing changed
        if after != before or "nanpure: interrupted" not in outcome.stderr:
            raise Failed(f"{name}: exit 130 without a summary, status {before} -> {after}")
        return odd, None
    if summary is None or summary.group(1) != wanted:
        raise Failed(f"{name}: exit {outcome.status} but the summary says "
                     f"{outcome.stdout.splitlines()[:1]}")
    if after != wanted:
        raise Failed(f"{name}: exit {outcome.status}, the store says {after}, not {wanted}")
    return odd, None


def window(outcome: Outcome, finished: bool) -> str | None:
    """``start`` or ``exit`` when the process was ended by the Ctrl-C or SIGTERM it was
    sent while Python started or exited, outside nanpure's reach; else None.

    - ``start``: Ctrl-C before Python took SIGINT over (its first hundredth of a second)
      ends the process silently by SIGINT; while Python imported nanpure (its first
      tenth of a second) it is Python's KeyboardInterrupt, a traceback of imports only,
      and the exit by SIGINT.
      Ctrl-C while a command imports what it needs (a few tenths of a second) is
      ``nanpure: interrupted``, but when it came while the module imported compiled text
      (a dataclass's methods), CPython 3.11 remembers it as not handled and, at exit,
      ends the process by SIGINT (the shell's status is 130 all the same).
    - ``exit``: CPython puts the default action of every signal with a handler back before
      it tears the modules down (a tenth of a second or more with numba and reportlab
      loaded), so a stop then ends the process by the signal, not with the command's
      status; ``finished``: it had printed all it prints.
    """
    names = {signal.SIGTERM.name: signal.SIGTERM, signal.SIGINT.name: signal.SIGINT}
    sent = {names[word] for line in outcome.sent for word in line.split()[:1]
            if word in names}
    if not any(outcome.status == -signum for signum in sent):
        return None
    if finished:
        return "exit"
    if outcome.status != -signal.SIGINT or outcome.stdout:
        return None
    frames = re.findall(r'File "([^"]*)", line \d+, in (\S+)', outcome.stderr)
    if (outcome.stderr.rstrip().endswith("\nKeyboardInterrupt")
            and all(function == "<module>" for path, function in frames
                    if "nanpure" in Path(path).parts)):
        return "start"
    if outcome.stderr in ("", "nanpure: interrupted\n"):
        return "start"
    return None


# --- rounds -------------------------------------------------------------------------------------


@dataclass
class Soak:
    """What all rounds share: the work folder, the config, the references."""

    work: Path
    config: Path
    run: str
    timeout: float
    py_spy: str | None
    keep: bool = False
    reference: set[tuple[str, str, int]] = field(default_factory=set)
    ref_store: Path = Path()
    span: float | None = None  # run rounds' moments are in [0, span) s (None: measured)
    run_events: dict[str, float] = field(default_factory=lambda: dict(RUN_EVENTS))
    file_events: dict[str, float] = field(default_factory=lambda: dict(FILE_EVENTS))
    files: dict[tuple[str, ...], tuple[dict[str, bytes], float]] = field(default_factory=dict)
    events: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    # stops in Python's start and exit windows (see :func:`window`), per window
    windows: dict[str, list[str]] = field(default_factory=lambda: {"start": [], "exit": []})
    seed: int = 0  # the round's

    def start(self, args: list[str], folder: Path, name: str) -> Session:
        return Session(args, folder, name, self.timeout, self.py_spy)

    def make_reference(self) -> None:
        """The uninterrupted run every run round must end up equal to."""
        folder = self.work / "reference"
        folder.mkdir()
        self.ref_store = folder / "soak.db"
        session = self.start(nanpure("run", str(self.config), "--store", str(self.ref_store),
                                     "--no-progress", "--workers", "2"), folder, "run")
        try:
            outcome = session.finish()
        except Failed as exc:
            raise SystemExit(f"the reference run failed: {exc}") from None
        if outcome.status != 0 or run_status(self.ref_store, self.run) != "complete":
            raise SystemExit(f"the reference run failed ({outcome.status}):\n{outcome.stderr}")
        self.reference = run_puzzles(self.ref_store, self.run)
        if self.span is None:
            self.span = round(1.1 * outcome.seconds, 2)
        print(f"reference: {len(self.reference)} puzzles in {outcome.seconds:.1f} s "
              f"({self.ref_store}); run rounds stop at moments up to --span {self.span}",
              flush=True)

    # --- run rounds

    def run_round(self, rng: random.Random, folder: Path) -> str:
        store = folder / "soak.db"
        said = []
        odd: list[str] = []
        sessions = 1 if rng.random() < 0.8 else 2  # a stopped resume too, sometimes
        for k in range(sessions):
            if k and run_status(store, self.run) == "complete":
                break
            workers = rng.choice([1, 2])
            bounded = rng.random() < 0.25
            options = ["--workers", str(workers)]
            span = self.span or 0.0
            if bounded:
                options += ["--max-seconds", f"{rng.uniform(0.5, 0.9 * span):.2f}"]
            event = _pick(rng, self.run_events)
            moment = rng.uniform(0.0, span)
            before = run_status(store, self.run)
            session = self.start(nanpure("run", str(self.config), "--store", str(store),
                                         "--no-progress", *options), folder, f"session{k}")
            self._stop(session, event, moment, rng)
            outcome = session.finish()
            after = run_status(store, self.run)
            self.events["run " + event] += 1
            sent = ("" if event == "none" else f" ({', '.join(outcome.sent)})"
                    if outcome.sent else " (it had ended)")
            said.append(f"w{workers}{' max ' + options[-1] if bounded else ''} {event}"
                        f"@{moment:.2f}s{sent} -> {outcome.status} {after}")
            lines, stopped_in = check_run_session(outcome, event, bounded, before, after,
                                                 f"session {k} ({event})", self.run)
            odd += lines
            if stopped_in:
                self.windows[stopped_in].append(f"{self.seed} run {event}")
                said[-1] += f" (in the {stopped_in} window)"
        workers = rng.choice([1, 2])
        session = self.start(nanpure("run", str(self.config), "--store", str(store),
                                     "--no-progress", "--workers", str(workers)),
                             folder, "resume")
        outcome = session.finish()
        status = run_status(store, self.run)
        odd += check_stderr(outcome, "resume")
        if outcome.status != 0 or status != "complete":
            raise Failed(f"resume: exit {outcome.status}, status {status}\n"
                         f"{outcome.stderr[-2000:]}")
        got = run_puzzles(store, self.run)
        if got != self.reference:
            raise Failed(f"resume: {len(got - self.reference)} puzzles not in the reference, "
                         f"{len(self.reference - got)} of it missing")
        said.append(f"resumed w{workers}: {len(got)} puzzles as the reference")
        if odd:
            said.append(f"stderr: {odd[:3]}")
        return "; ".join(said)

    def _stop(self, session: Session, event: str, moment: float, rng: random.Random) -> None:
        """Do ``event`` to the session's process ``moment`` seconds after its start."""
        if event == "none" or not session.at(moment):
            return
        if event == "sigterm":
            session.send(signal.SIGTERM)
        elif event == "sigint":
            session.send(signal.SIGINT)
        elif event == "ctrl-c":
            session.send(signal.SIGINT, group=True)
        elif event == "sigterm-twice":
            session.send(signal.SIGTERM)
            time.sleep(rng.uniform(0.0, 0.05))
            session.send(signal.SIGTERM)
        elif event == "sigkill":
            session.send(signal.SIGKILL)
        elif event in ("kill-worker", "kill-forkserver"):
            # the pool may not have started yet: the first of its processes to appear
            while session.proc.poll() is None:
                servers, workers = pool_processes(session.proc.pid)
                chosen = servers if event == "kill-forkserver" else workers
                if chosen:
                    session.send(signal.SIGKILL, pid=rng.choice(sorted(chosen)))
                    return
                time.sleep(0.01)

    # --- export and book rounds

    def _made(self, key: tuple[str, ...], args: list[str]) -> tuple[dict[str, bytes], float]:
        """The files an uninterrupted ``args`` writes (in a folder of its own, from a copy
        of the reference store), and how long it took; made once per ``key``."""
        if key not in self.files:
            folder = self.work / ("reference-" + "-".join(k.strip("-") for k in key))
            folder.mkdir()
            store = self._store_copy(folder)
            try:
                outcome = self.start(args, folder, "made").finish()
            except Failed as exc:
                raise SystemExit(f"the reference {' '.join(key)} failed: {exc}") from None
            if outcome.status != 0:
                raise SystemExit(f"{' '.join(args)} failed ({outcome.status}):\n"
                                 f"{outcome.stderr}")
            self.files[key] = (_outputs(folder, store), outcome.seconds)
        return self.files[key]

    def _store_copy(self, folder: Path) -> Path:
        """A copy of the reference store in ``folder``, with the book config beside it (the
        same words in every folder, so that every book's manifest is the same)."""
        store = folder / "soak.db"
        shutil.copyfile(self.ref_store, store)
        (folder / "book.toml").write_text(BOOK.format(store=store.name, run=self.run))
        return store

    def export_round(self, rng: random.Random, folder: Path) -> str:
        variant = rng.choice(EXPORTS)
        fmt = variant[0]
        args = nanpure("export", "--store", "soak.db", "--kind", "sudoku", "--format", fmt,
                       "--out", f"out.{fmt}", *variant[1:])
        new, seconds = self._made(("export", *variant), args)
        return self._file_round(rng, folder, args, new, seconds, " ".join(variant),
                                "export", book=False)

    def book_round(self, rng: random.Random, folder: Path) -> str:
        record = rng.random() < 0.5
        args = nanpure("book", "book.toml", "--out", "book.pdf",
                       *([] if record else ["--no-record"]))
        new, seconds = self._made(("book", str(record)), args)
        return self._file_round(rng, folder, args, new, seconds,
                                "recorded" if record else "--no-record", "book", book=record)

    def _file_round(self, rng: random.Random, folder: Path, args: list[str],
                    new: dict[str, bytes], seconds: float, what: str, command: str,
                    book: bool) -> str:
        store = self._store_copy(folder)
        old = rng.random() < 0.5
        if old:
            for name in new:
                (folder / name).write_bytes(f"old {name}\n".encode())
        event = _pick(rng, self.file_events)
        moment = rng.uniform(0.0, 1.1 * seconds)
        session = self.start(args, folder, "stopped")
        if event != "none" and session.at(moment):
            session.send({"sigterm": signal.SIGTERM, "sigint": signal.SIGINT,
                          "sigkill": signal.SIGKILL}[event])
        outcome = session.finish()
        self.events[f"{command} {event}"] += 1
        # SIGTERM stops as Ctrl-C does; killed only before nanpure handles it
        allowed = {0} | {"none": set(), "sigterm": {130, KILLED[signal.SIGTERM]},
                         "sigint": {130}, "sigkill": {KILLED[signal.SIGKILL]}}[event]
        done = "preflight book.pdf: passed" if command == "book" else "wrote "
        stopped_in = window(outcome, done in outcome.stdout + outcome.stderr)  # --out: stderr
        if stopped_in:
            self.windows[stopped_in].append(f"{self.seed} {command} {event}")
        elif outcome.status not in allowed:
            raise Failed(f"{command}: exit {outcome.status} after {event}, expected one of "
                         f"{sorted(allowed)}\n{outcome.stderr[-2000:]}")
        elif outcome.status == 0 and (went_on := outcome.lost_stop()) is not None:
            raise Failed(f"{command}: the stop was lost: it went on {went_on:.1f} s after it "
                         "and exited 0")
        odd = [] if stopped_in == "start" else check_stderr(outcome, command)
        found = _outputs(folder, store)
        parts = sorted(name for name in found if name.endswith(".part"))
        states = []
        for name, content in new.items():
            have = found.get(name)
            state = ("new" if have == content else "old" if old and have == f"old {name}\n"
                     .encode() else "absent" if have is None and not old else None)
            if state is None:
                raise Failed(f"{command}: {name} is neither the old file, nor absent, nor "
                             f"the whole new one ({len(have or b'')} bytes; "
                             f"{'an old one was there' if old else 'none was there'})")
            if ((outcome.status == 0 or stopped_in == "exit" or (book and books(store)))
                    and state != "new"):
                raise Failed(f"{command}: exit {outcome.status}"
                             f"{', the book recorded' if books(store) else ''}, yet {name} "
                             f"is {state}")
            states.append(f"{name} {state}")
        unexpected = set(found) - set(new) - set(parts)
        if unexpected:
            raise Failed(f"{command}: files nobody asked for: {sorted(unexpected)}")
        if parts and outcome.status >= 0 and not stopped_in:
            raise Failed(f"{command}: exit {outcome.status} after {event}, yet it left "
                         f"{', '.join(parts)}")
        if parts:  # killed: nothing could remove them
            self.notes.append(f"{command} {event} left {', '.join(parts)} (exit "
                              f"{outcome.status})")
        recorded = books(store)
        again = self.start(args, folder, "again").finish()
        check_stderr(again, f"{command} again")
        if again.status != 0:
            raise Failed(f"{command} again: exit {again.status}\n{again.stderr[-2000:]}")
        found = _outputs(folder, store)
        if not recorded and any(found.get(name) != content for name, content in new.items()):
            raise Failed(f"{command} again: its files differ from the reference's")
        if any(name.endswith(".part") for name in found):
            raise Failed(f"{command} again: left {sorted(found)}")
        if twice_printed(store):
            raise Failed(f"{command}: {twice_printed(store)} puzzles are in two books")
        said = (f"{command} {what} {'over old' if old else 'new'} {event}@{moment:.2f}s -> "
                f"{outcome.status}: {', '.join(states)}{'; recorded' if recorded else ''}"
                f"{'; left ' + ', '.join(parts) if parts else ''}"
                f"{f' (in the {stopped_in} window)' if stopped_in else ''}")
        return said + (f"; stderr: {odd[:3]}" if odd else "")

    def round(self, seed: int, only: str | None) -> str | None:
        """Play round ``seed``; None when it passed, else why it failed."""
        rng = random.Random(seed)
        self.seed = seed
        kind = _pick(rng, {"run": 8, "export": 1, "book": 1})
        kind = only or kind  # drawn all the same: the rest of the round is as without it
        if not (self.run_events if kind == "run" else self.file_events):  # --events
            kind = "export" if kind == "run" else "run"
        folder = self.work / f"round-{seed}"
        folder.mkdir()
        try:
            said = {"run": self.run_round, "export": self.export_round,
                    "book": self.book_round}[kind](rng, folder)
        except Failed as exc:
            print(f"round {seed} {kind}: FAILED: {exc}\n  files: {folder}", flush=True)
            return f"{kind}: {str(exc).splitlines()[0]}"
        print(f"round {seed} {kind}: ok: {said}", flush=True)
        if not self.keep:
            shutil.rmtree(folder)
        return None


def _outputs(folder: Path, store: Path) -> dict[str, bytes]:
    """The files in ``folder`` but the store's, the processes' output and the config."""
    skip = (store.name, ".out", ".err", ".txt", ".toml")
    return {p.name: p.read_bytes() for p in folder.iterdir()
            if p.is_file() and not p.name.startswith(store.name) and not p.name.endswith(skip)}


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20, help="how many rounds (default 20)")
    parser.add_argument("--seed", type=int, default=None,
                        help="the first round's seed (default: a random one, printed); "
                             "--seed S --rounds 1 replays round S")
    parser.add_argument("--only", choices=["run", "export", "book"],
                        help="play only rounds of this command")
    parser.add_argument("--events", help="play only these stops, comma-separated (run "
                                         f"rounds: {', '.join(RUN_EVENTS)}; export and "
                                         f"book rounds: {', '.join(FILE_EVENTS)})")
    parser.add_argument("--span", type=float, help="run rounds' stops come 0 to SPAN "
                                                   "seconds after the start (default: 1.1 "
                                                   "times the reference run's time, printed)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds a process may take before it counts as hung "
                             "(default 120)")
    parser.add_argument("--config", help="the run config of run rounds (default: a built-in "
                                         "one of a few seconds)")
    parser.add_argument("--work", help="the folder for stores and outputs (default: a new "
                                       "temporary one; kept when a round fails)")
    parser.add_argument("--keep", action="store_true", help="keep every round's files")
    parser.add_argument("--py-spy", help="py-spy to dump a hung process's stacks with "
                                         "(default: found on PATH or in /tmp/pyspy/bin)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="nanpure-soak-"))
    work.mkdir(parents=True, exist_ok=True)
    config = work / "soak.toml"
    config.write_text(Path(args.config).read_text() if args.config else CONFIG)
    run = tomllib.loads(config.read_text()).get("run", {}).get("name") or config.stem
    soak = Soak(work, config, run, args.timeout, find_py_spy(args.py_spy), keep=args.keep,
                span=args.span)
    if args.events:
        chosen = set(args.events.split(","))
        unknown = chosen - set(RUN_EVENTS) - set(FILE_EVENTS)
        if unknown:
            parser.error(f"--events: no such stop {', '.join(sorted(unknown))}")
        soak.run_events = {e: w for e, w in RUN_EVENTS.items() if e in chosen}
        soak.file_events = {e: w for e, w in FILE_EVENTS.items() if e in chosen}
    print(f"soak: rounds {seed}..{seed + args.rounds - 1} in {work}; stacks of hung "
          f"processes by {soak.py_spy or '/proc'}", flush=True)
    soak.make_reference()
    failures = []
    started = time.monotonic()
    for k in range(args.rounds):
        why = soak.round(seed + k, args.only)
        if why is not None:
            failures.append((seed + k, why))
    minutes = (time.monotonic() - started) / 60
    print(f"\n{args.rounds} rounds in {minutes:.1f} min: {args.rounds - len(failures)} "
          f"passed, {len(failures)} failed")
    print("events: " + ", ".join(f"{e} {n}" for e, n in sorted(soak.events.items())))
    for name, rounds in soak.windows.items():
        if rounds:
            print(f"stops in Python's {name} window, which end the process by the signal: "
                  f"{len(rounds)}: {'; '.join(rounds)}")
    for note in Counter(soak.notes).most_common():
        print(f"note: {note[0]} ({note[1]}x)")
    replay = "".join(f" --{name} {value}" for name, value in
                     [("only", args.only), ("events", args.events), ("span", soak.span)]
                     if value)
    for s, why in failures:
        print(f"FAILED round {s} (replay: --seed {s} --rounds 1{replay}): {why}")
    if not failures and not args.keep and not args.work:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
