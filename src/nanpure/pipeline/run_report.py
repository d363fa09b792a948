"""The run report: one JSON file per run session, for monitors and for people.

``[run] report = "output/reports/{name}.json"`` asks for it. It says how the session
ended (``status`` and the ``exit_status`` ``nanpure run`` gave), when (the run's first
session began, this one began and ended), on which version of nanpure and ladder (the
same provenance the exports record), each quota's tally for the session (tasks judged,
acceptance and duplicate rates, worker seconds, when it filled, and for inventory
quotas the stock before and after), and under ``stats``
exactly what ``nanpure stats --json --run NAME`` prints for the run afterwards: the
blank-count distribution per tier, technique usage and the store's per-quota totals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..files import write_text_atomic
from ..output.datasets import provenance
from .config import RunConfig
from .reports import store_summary
from .run import RunSummary, unused_stock
from .store import Store, StoreError, literal_glob


def _rate(n: int, d: int) -> float | None:
    return n / d if d else None


def run_report(config: RunConfig, summary: RunSummary, store: Store | None
               ) -> dict[str, Any]:
    """The report of the session ``summary`` describes, from the store it ran on (None:
    one that cannot be read, after a fault of its disk: what the session knows, with no
    ``stats``, run times or stock after it)."""
    record = store.find_run(config.name) if store is not None else None
    stock = {s.quota: s for s in summary.stock}
    by_name = {q.name: q for q in config.quotas}
    quotas = []
    for q in summary.quotas:
        entry = {
            "quota": q.name, "kind": q.kind, "count": q.count, "stored": q.stored,
            "made": q.made, "tasks": q.judged, "accepted": q.accepted,
            "given_up": q.given_up, "duplicates": q.duplicates, "rejected": q.rejected,
            "acceptance": _rate(q.accepted, q.judged),
            "duplicate_rate": _rate(q.duplicates, q.judged),
            "worker_seconds": round(q.worker_seconds, 3),
            "filled_at_seconds": None if q.filled_at is None else round(q.filled_at, 3),
        }
        if q.name in stock:
            entry.update(keep_unused=stock[q.name].keep, unused_before=stock[q.name].unused,
                         unused_after=None if store is None
                         else unused_stock(store, config, by_name[q.name]))
        quotas.append(entry)
    return {
        "run": config.name,
        "family": config.family,
        "date": config.date,
        "seed": config.seed,
        "store": config.store,
        "status": summary.status,
        "exit_status": summary.exit_status,
        # with what the session could not write besides (its log)
        "error": "; ".join(filter(None, [summary.error, *summary.unwritten])) or None,
        "resumed": summary.resumed,
        "started_at": record.started_at if record else None,
        "session_started_at": summary.began_at or None,
        "finished_at": record.finished_at if record else None,
        "seconds": round(summary.seconds, 3),
        "workers": summary.workers,
        "executor": summary.executor,
        "made": summary.made,
        # as the summary says it, and stats for a run of one session
        "puzzles_per_second": _rate(summary.made, summary.timed_seconds),
        **provenance(),
        "quotas": quotas,
        "stats": None if store is None else store_summary(store, literal_glob(config.name)),
    }


def write_run_report(config: RunConfig, summary: RunSummary) -> Path:
    """Write the report of ``summary`` to ``config.report`` (directories made as needed),
    whole or not at all; returns its path."""
    path = Path(config.report or "")
    try:
        with Store(config.store, create=False) as store:
            report = run_report(config, summary, store)
    except StoreError:
        if not summary.fault:
            raise
        report = run_report(config, summary, None)  # the store failed the run: as it can
    text = json.dumps(report, indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)
    return path
