"""How Ctrl-C and SIGTERM stop a command: a run, whose stop the store records, or a file
command, whose last steps a stop must not cut short.

:func:`stops_spared` wraps a command: inside it, :func:`run_stops` marks a run (the first
stop stops it, later ones are let go so that its clean-up, summary and report finish),
and :func:`finishing` marks what a stop must not cut short (a book recorded, an export
renamed into place; after it the command has done its work and a stop is let go).
SIGTERM raises :class:`Stop`, which is handled as Ctrl-C's KeyboardInterrupt; so does
SIGHUP (the terminal of a run started by hand gone: an ssh session dropped) where it is not
ignored (``nohup``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from .executors import handler_beneath


class Stop(BaseException):
    """Raised by the SIGTERM (and SIGHUP) handler: stop like Ctrl-C (a BaseException, as
    KeyboardInterrupt is, so that no ``except Exception`` on the way swallows it)."""


class Stops:
    """Ctrl-C and SIGTERM from the moment a run's row says ``running`` to the end of its
    clean-up (see :func:`stops_spared`): the first one while the run goes on (its
    executor starting, its task loop) stops it, SIGTERM by raising :class:`Stop`,
    Ctrl-C as its handler does (KeyboardInterrupt); any after that, or after the run
    ended otherwise, is let go. A second SIGTERM (``timeout`` sends two, supervisors
    repeat theirs) or Ctrl-C would otherwise cut short the ending of the workers, the
    store's status, the summary and the report. One that comes while the row is being
    made is held back until it is (:meth:`go_live`), so that a stopped run has its row."""

    def __init__(self) -> None:
        self.previous: dict[int, Any] = {}  # the handlers replaced, once installed
        self.live = False  # the run goes on and nothing has stopped it yet
        #: the stops held back while the run's row is made; None when none would be
        self.held: list[int] | None = None
        self.exit_status: int | None = None  # the command's, once it is known

    def exit_at_once(self, signum: int, frame: Any) -> None:
        """After the command's end: the process exits, with the command's status (its
        summary, report and store are done), not after whatever would still hold it."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(self.exit_status if self.exit_status is not None else 128 + signum)

    def install(self) -> None:
        # SIGTERM's default ends the process; Ctrl-C is taken over only where Python
        # handles it (not where it is ignored, as in a shell's background job), SIGHUP
        # where it is not ignored (nohup: the run is to outlive its terminal)
        # the handlers beneath a stops_held block's, which the stops replace for good
        self.previous = {
            signum: handler for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
            if (handler := handler_beneath(signum)) is not None
            and (signum == signal.SIGTERM or callable(handler)
                 or (signum == signal.SIGHUP and handler is not signal.SIG_IGN))}
        for signum in self.previous:
            signal.signal(signum, self._on_signal)

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)

    def go_live(self) -> None:
        """The run's row is made: a stop stops the run from now on, and the first one
        held back meanwhile does so now."""
        held = self.held
        self.live = True  # before no longer holding, so that no stop falls between
        self.held = None
        if held:
            signal.raise_signal(held[0])  # the others would have been let go

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self.held is not None:
            self.held.append(signum)  # the run's row is being made: it comes first
            return
        if not self.live:
            return  # the run is stopping or ending already: let its clean-up finish
        self.live = False
        if signum != signal.SIGINT:  # SIGTERM, SIGHUP
            raise Stop
        self.previous[signum](signum, frame)  # KeyboardInterrupt, from Python's handler
        self.live = True  # a handler of the caller's that did not stop the run


#: The stops of the run going on in this process, from :func:`stops_spared`.
_stops: Stops | None = None


@contextlib.contextmanager
def stops_spared(for_good: bool = False) -> Iterator[Stops | None]:
    """Until the block ends, Ctrl-C and SIGTERM stop only a run going on in
    :func:`run_stops`, once, and are let go once it has started (:class:`Stops`);
    before that they do what they did. Inside another such block it leaves the handlers
    to that one (and gives None): :func:`run_command` spares its summary, report and plot
    too. ``for_good``: the process is about to exit; once the run has started, Ctrl-C and
    SIGTERM after the block exit it at once with the ``exit_status`` the block set on
    what it was given (:meth:`Stops.exit_at_once`)."""
    global _stops
    if _stops is not None or threading.current_thread() is not threading.main_thread():
        yield None
        return
    _stops = stops = Stops()
    try:
        yield stops
    finally:
        if for_good:
            for signum in stops.previous:
                signal.signal(signum, stops.exit_at_once)
        else:
            stops.restore()
        _stops = None


@contextlib.contextmanager
def finishing() -> Iterator[None]:
    """The block does what a stop must not cut short, and after which the command has
    done its work (a book recorded in the store, an export renamed into place): inside
    :func:`stops_spared`, a Ctrl-C or SIGTERM in the block is held back until it ends,
    and once it has ended that one and any later one are let go until the
    :func:`stops_spared` block ends, so that the command says what it did and exits
    with its status. A block that raises puts the handlers back: the command fails, or
    stops, as it would have. One that raises with a stop held back lets that stop go as
    well, and the command says why it failed and exits with that failure's status, never
    0: given back then, SIGTERM killed the command before it said that its book was
    written but not recorded."""
    stops = _stops
    if stops is None:  # not the main thread, whose signals these are
        yield
        return
    installed = not stops.previous
    stops.held = []  # before the handlers are these, so that none is let go
    if installed:
        stops.install()
    try:
        yield
    except BaseException:
        held, stops.held = stops.held, None
        if installed and not held:
            stops.restore()
            stops.previous = {}  # nothing to spare any more
        raise
    stops.held = None  # not live: every stop from now on is let go


@contextlib.contextmanager
def run_stops() -> Iterator[Callable[[], None]]:
    """The first Ctrl-C or SIGTERM in the block stops it (inside :func:`stops_spared`):
    the block is a run, whose stop the store must record. It begins by making the run's
    row, then calls the function it is given; a stop before that is held back until
    then, so that none stops the run before it has a row, nor is let go."""
    stops = _stops
    if stops is None:  # not the main thread, whose signals these are
        yield lambda: None
        return
    stops.held = []  # before the handlers are the run's, so that none is let go
    if not stops.previous:
        stops.install()
    try:
        yield stops.go_live
    finally:
        stops.live = False
        stops.held = None
