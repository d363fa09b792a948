"""Compile time of the numba kernels, group by group, in CPU seconds.

The groups are those ``nanpure compile`` compiles in parallel
(:data:`nanpure.generator.kernels.GROUPS`). Each is compiled in a subprocess of its own
with an empty temporary ``NUMBA_CACHE_DIR``, so nothing comes from a cache and one
group's callees are not compiled by another (a callee two groups share is counted in
both). Inside the subprocess, numba's ``numba:compile`` events give every kernel's own
share: the CPU time between the start and end of its compile, less that of the kernels
it called and compiled meanwhile. That share holds the kernel's typing and lowering and
also the optimisation and machine code of everything linked into it: numba links a copy
of each callee's code into its caller and optimises the whole again, so a kernel deep in
a chain of calls is paid for once per level of the chain.

    python benchmarks/compile.py                   # every group, with their kernels
    python benchmarks/compile.py --groups rater    # only some (see --help)
    python benchmarks/compile.py --top 0           # totals only
    python benchmarks/compile.py --tasks           # per task, as nanpure compile runs them
    python benchmarks/compile.py --changed generator/techniques/wings.py

``--tasks`` compiles the tasks of the groups (:data:`nanpure.generator.kernels.TASKS`) one
after another in one process, in the order ``nanpure compile`` starts them (a task finds
the kernels of those before it compiled), and gives each one's CPU seconds: the figures
that order is planned from. ``--changed`` lists the modules whose kernels a change to that
file recompiles (each module's kernels are cached for its source and all it imports,
:mod:`nanpure.kernel_cache`), and compiles nothing.

CPU time (``time.process_time``), not wall time: the machine may be shared. A group's
time is that of its warm-up (:func:`nanpure.pipeline.compiling.compile_group`), which runs
each kernel once on a small input; the run itself takes milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from nanpure.generator.kernels import GROUPS
from nanpure.pipeline.compiling import ORDER, compile_group, run_task

from _common import argument_parser


def measure(group: str) -> dict:
    """Compile ``group`` here (the caller sees to an empty cache): its CPU seconds and
    each kernel's own share, ``{"group", "cpu", "kernels": {name: seconds}}``."""
    from numba.core import event

    import nanpure.generator.ladder  # noqa: F401  (numba and the modules, untimed)

    own: dict[str, float] = {}
    stack: list[list] = []  # [name, start, seconds of nested compiles]

    class Shares(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            dispatcher = ev.data["dispatcher"]
            py = dispatcher.py_func
            stack.append([f"{py.__module__.removeprefix('nanpure.generator.')}."
                          f"{py.__qualname__}", time.process_time(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            name, start, nested = stack.pop()
            spent = time.process_time() - start
            own[name] = own.get(name, 0.0) + spent - nested
            if stack:
                stack[-1][2] += spent

    with event.install_listener("numba:compile", Shares()):
        cpu = compile_group(group)
    return {"group": group, "cpu": cpu, "kernels": own}


def measure_tasks(groups: list[str]) -> dict[str, float]:
    """Run the tasks of ``groups`` here, in :data:`ORDER`: task -> its CPU seconds."""
    import nanpure.generator.ladder  # noqa: F401  (numba and the modules, untimed)

    names = {task.name for group in groups for task in GROUPS[group]}
    return {name: run_task(name)[0] for name in ORDER if name in names}


def run_child(*args: str) -> dict:
    """This script with ``args`` in a fresh process with an empty kernel cache: the JSON
    it prints last."""
    with tempfile.TemporaryDirectory(prefix="nanpure-compile-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        done = subprocess.run([sys.executable, __file__, *args], env=env,
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"compiling {args[-1]} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def _changed(name: str) -> int:
    """Print the modules with kernels whose directories a change to ``name`` moves."""
    from nanpure.kernel_cache import PACKAGE, dependencies, modules

    changed = (PACKAGE / name).resolve()
    if not changed.is_file():
        raise SystemExit(f"no file {name} under {PACKAGE}")
    for module, path in sorted(modules().items()):
        if "@njit" in path.read_text() and changed in dependencies(path):
            print(module)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser(__doc__)
    parser.add_argument("--groups", default=",".join(GROUPS),
                        help=f"comma-separated, some of: {', '.join(GROUPS)} (default: all)")
    parser.add_argument("--top", type=int, default=12,
                        help="kernels listed per group, largest share first")
    parser.add_argument("--json", action="store_true", help="one JSON line per group")
    parser.add_argument("--changed", metavar="FILE",
                        help="list the modules a change to FILE (under src/nanpure/) recompiles")
    parser.add_argument("--tasks", action="store_true",
                        help="CPU seconds per task, compiled one after another in one "
                        "process in the order nanpure compile starts them")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-tasks", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.changed:
        return _changed(args.changed)
    if args.child:
        print(json.dumps(measure(args.child)))
        return 0
    if args.child_tasks:
        print(json.dumps(measure_tasks(args.child_tasks.split(","))))
        return 0
    groups = [g for g in args.groups.split(",") if g]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        parser.error(f"unknown group {unknown[0]!r}; expected some of {', '.join(GROUPS)}")
    if args.tasks:
        seconds = run_child("--child-tasks", ",".join(groups))
        for name, spent in seconds.items():
            print(f"{name:<13} {spent:7.1f} s CPU", flush=True)
        print(f"{'total':<13} {sum(seconds.values()):7.1f} s CPU")
        return 0
    total = 0.0
    for group in groups:
        result = run_child("--child", group)
        total += result["cpu"]
        if args.json:
            print(json.dumps(result), flush=True)
            continue
        kernels = sorted(result["kernels"].items(), key=lambda kv: -kv[1])
        print(f"{group:<10} {result['cpu']:7.1f} s CPU  ({len(kernels)} kernels)", flush=True)
        for name, seconds in kernels[: args.top]:
            print(f"    {seconds:7.2f}  {name}")
    if not args.json:
        print(f"{'total':<10} {total:7.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
