"""Scoring shards of a corpus in forked worker processes (results identical to one process)."""

from __future__ import annotations

import contextlib
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple, TypeVar

__all__ = ["MAX_DEFAULT_JOBS", "MIN_SHARD", "batches", "can_fork", "default_jobs", "map_shards", "map_blocks"]

T = TypeVar("T")

#: Fewest segments per shard (smaller corpora are scored in one process).
MIN_SHARD = 64

#: Most processes ``jobs=0`` starts.
MAX_DEFAULT_JOBS = 4


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def default_jobs() -> int:
    """Processes for ``jobs=0``: the CPUs this process may use that are idle, at most :data:`MAX_DEFAULT_JOBS`.

    Idle CPUs are the usable CPUs less the 1-minute load average, rounded (at least 1).
    Workers pay off only on idle CPUs: on a 2-core machine already running 4 other
    processes, system1 with 2 workers took 1.17x the wall time of one process
    (docs/performance.md); on an idle one, 0.65x.
    """
    import os

    cpus = usable_cpus()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here (Windows)
        load = 0.0
    return max(1, min(MAX_DEFAULT_JOBS, int(cpus - load + 0.5)))


# What the forked workers run: (score_range(start, end) or score_block(block), reopen()); set only during
# map_shards and map_blocks.
_WORK: Optional[Tuple[Callable[..., List[Any]], Callable[[], None]]] = None


def batches(items: Iterable[T], size: int) -> Iterator[List[T]]:
    """Consecutive lists of ``size`` items (the last may be shorter), read from ``items`` as they are needed."""
    it = iter(items)
    while True:
        block = list(islice(it, size))
        if not block:
            return
        yield block


def can_fork() -> bool:
    """True when this platform can start worker processes by forking."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def map_shards(
    score_range: Callable[[int, int], List[T]], reopen: Callable[[], None], n: int, jobs: int
) -> List[T]:
    """Run ``score_range(start, end)`` over shards of ``range(n)`` in ``jobs`` forked processes.

    One contiguous shard per worker: each worker then looks up its shard's resources in one
    sorted pass (with four smaller shards per worker, system1 took 25% longer on two cores);
    the price is that a shard much slower than the others is not shared out.  Each worker
    first calls ``reopen()`` (e.g. to get its own database connection); an exception it raises is
    raised here, in the parent (not a pool broken with no word of why).  The results are concatenated in
    shard order.  A worker that ends before its shard is scored (killed, or crashed) raises
    :class:`~meteor_lite.errors.WorkerError`.
    """
    global _WORK
    shards = max(jobs, 1)
    size = max(MIN_SHARD, -(-n // shards))
    bounds = [(b, min(b + size, n)) for b in range(0, n, size)]
    _WORK = (score_range, reopen)
    try:
        with _worker_pool(jobs) as pool:
            futures = [pool.submit(_worker_score, b) for b in bounds]
            parts = [f.result() for f in futures]
    finally:
        _WORK = None
    return [s for part in parts for s in part]


def map_blocks(
    score_block: Callable[[Any], List[T]], reopen: Callable[[], None], blocks: Iterable[Any], jobs: int
) -> Iterator[List[T]]:
    """``score_block(block)`` for each of ``blocks`` in ``jobs`` forked processes; results in block order.

    The streaming twin of :func:`map_shards`: one pool for the whole run (each worker calls
    ``reopen()`` once), the blocks handed to the workers as they are read (pickled), and at
    most two blocks per worker read ahead, so that memory stays bounded whatever the
    length of ``blocks``.  A worker's exception is raised here, in the parent; a worker that ends
    before its block is scored raises :class:`~meteor_lite.errors.WorkerError`.
    """
    import collections

    global _WORK
    _WORK = (score_block, reopen)
    try:
        with _worker_pool(jobs) as pool:
            pending: "collections.deque[Any]" = collections.deque()
            for block in blocks:
                pending.append(pool.submit(_worker_block, block))
                if len(pending) >= 2 * jobs:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
    finally:
        _WORK = None


@contextlib.contextmanager
def _worker_pool(jobs: int) -> Iterator[Any]:
    """A pool of ``jobs`` forked workers (each first runs ``_worker_init``) that ends them all when left by an
    exception: a worker's error, SIGTERM (see _terminate_pool_on_sigterm), Ctrl-C, or a consumer that stops early.

    A process pool, not ``multiprocessing.Pool``: a Pool replaces a worker that dies (killed, e.g. by the
    out-of-memory killer, or crashed) but never runs its task again, so the parent waited for that result forever;
    a process pool fails every pending task instead (BrokenProcessPool, raised here as WorkerError).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from .errors import WorkerError

    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init)
    try:
        with _terminate_pool_on_sigterm():
            yield pool
    except BaseException as exc:
        _end_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)
        if isinstance(exc, BrokenProcessPool):  # from a task's result, or from submitting one
            raise WorkerError(
                "a worker process ended before its part was scored: killed (out of memory?) or crashed; "
                "the part is lost, so the run stops (jobs=1 scores in one process)"
            ) from exc
        raise
    pool.shutdown(wait=True)


def _end_workers(pool: Any) -> None:
    """Kill the pool's workers (SIGKILL: a worker has nothing to clean up, and SIGKILL cannot be caught, nor lost as
    a signal can be that reaches a worker just forked, before its interpreter resets its pending signals).

    All of them, not some: a worker killed while it waits for a task holds the task queue's lock for good, and a
    worker left alive would wait for that lock, and the pool's shutdown for the worker, forever."""
    kill = getattr(pool, "kill_workers", None)  # Python 3.14 and later
    if kill is not None:
        kill()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        if process.exitcode is None:
            process.kill()


@contextlib.contextmanager
def _terminate_pool_on_sigterm() -> Iterator[None]:
    """While the workers run, SIGTERM ends this process with exit code 143 *through* the pool's cleanup.

    By default SIGTERM would kill the parent at once and leave its workers computing, orphaned;
    here it raises ``SystemExit(143)`` so that the pool's block (_worker_pool) kills them first.
    Only in the main thread (where signal handlers can be set); the previous handler is restored.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _die_with_parent() -> None:
    """A worker: SIGTERM (what the pool sends its other workers when one dies) kills it quietly, Ctrl-C is the
    parent's to handle, and on Linux it is sent SIGTERM when the parent dies (even by SIGKILL): never an orphan
    still computing."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: no such call
        pass


# Why this worker's reopen() failed (raised by its first task, as the task's own error: a pool whose initializer
# raises is broken for every task, with no word of why).
_INIT_ERROR: Optional[BaseException] = None


def _worker_init() -> None:
    global _INIT_ERROR
    assert _WORK is not None
    _die_with_parent()
    try:
        _WORK[1]()
    except Exception as exc:  # noqa: BLE001 - handed to the parent by the first task (see _worker_score)
        _INIT_ERROR = exc


def _worker_score(bounds: Tuple[int, int]) -> List[Any]:
    assert _WORK is not None
    if _INIT_ERROR is not None:
        raise _INIT_ERROR
    return _WORK[0](bounds[0], bounds[1])


def _worker_block(block: Any) -> List[Any]:
    assert _WORK is not None
    if _INIT_ERROR is not None:
        raise _INIT_ERROR
    return _WORK[0](block)
