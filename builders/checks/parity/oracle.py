"""Run the official Meteor 1.5 jar as a black-box oracle and parse what it prints.

Hypotheses and reference streams are written to temporary files (several
references per hypothesis are interleaved and passed with ``-r N``), the jar
is run once for the scores (segment scores, the system-level statistics block,
the final score) and once with ``-ssOut`` for the per-segment sufficient
statistics, and the parsed result is cached on disk under
``bench-out/oracle-cache`` keyed by a hash of the jar, the options and the
inputs, so a rerun is instant.

Jar runs are serialised through a lock file so that concurrent callers on this
small shared machine never run two JVMs at once.

Library use::

    from meteor_lite_builders.checks.parity.oracle import OracleConfig, run_oracle
    res = run_oracle(hyps, [refs_a, refs_b], OracleConfig(lang="en", norm=True))
    res.segment_scores, res.final_score, res.ss_lines, res.stats

Command line: ``meteor-build check oracle HYP REF [REF ...] [--lang en --norm ...]``.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from meteor_lite.atomicfile import atomic_path

from ... import jar as jarmod
from ...jar import JarError
from ..paths import JAR_LOCK_PATH, ORACLE_CACHE_DIR
from ..shared_data import LINE_BREAKS
from .jar_output import parse_score_output, parse_ss_output

log = logging.getLogger(__name__)

#: Default location of the on-disk cache (``bench-out`` is gitignored).
DEFAULT_CACHE_DIR = ORACLE_CACHE_DIR
#: Bump when the cached record layout changes.
CACHE_FORMAT = 3


class OracleError(JarError):
    """The jar printed results that do not fit its inputs."""


@dataclass(frozen=True)
class OracleConfig:
    """The jar options that change a score, mirroring the meteor-lite ``Meteor`` arguments.

    ``None`` for ``task``, ``params``, ``modules`` or ``weights`` means "the
    language default" (the option is not passed to the jar).  ``char_based`` is
    the jar's ``-ch`` (character-based precision and recall; ``-t util`` does
    not imply it).
    """

    lang: str = "en"
    task: Optional[str] = None
    params: Optional[Sequence[float]] = None
    modules: Optional[Sequence[str]] = None
    weights: Optional[Sequence[float]] = None
    beam: int = 40
    norm: bool = False
    lower: bool = False
    no_punct: bool = False
    char_based: bool = False

    def __post_init__(self) -> None:
        # Normalise sequences to tuples so that the config is hashable and
        # serialises identically whatever the caller passed.
        for name in ("params", "modules", "weights"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, tuple(v))
        if self.params is not None and len(self.params) != 4:
            raise ValueError("params must be 4 numbers: alpha beta gamma delta")

    def jar_args(self) -> List[str]:
        """Command-line options for the jar (without the file names and ``-r``)."""
        args = ["-l", self.lang]
        if self.task is not None:
            args += ["-t", self.task]
        if self.params is not None:
            args += ["-p", " ".join(_num(x) for x in self.params)]
        if self.modules is not None:
            args += ["-m", " ".join(self.modules)]
        if self.weights is not None:
            args += ["-w", " ".join(_num(x) for x in self.weights)]
        if self.beam != 40:
            args += ["-x", str(self.beam)]
        if self.norm:
            args.append("-norm")
        if self.lower:
            args.append("-lower")
        if self.no_punct:
            args.append("-noPunct")
        if self.char_based:
            args.append("-ch")
        return args

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready form (lists, not tuples), the ``config`` of a fixture record.

        ``char_based`` appears only when set, so that the records written before
        it existed keep their exact bytes.
        """
        d = dataclasses.asdict(self)
        for name in ("params", "modules", "weights"):
            if d[name] is not None:
                d[name] = list(d[name])
        if not d["char_based"]:
            del d["char_based"]
        return d

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "OracleConfig":
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        return cls(**d)

    def meteor_kwargs(self) -> Dict[str, Any]:
        """Keyword arguments for ``meteor_lite.Meteor`` with the same meaning."""
        kwargs: Dict[str, Any] = {
            "lang": self.lang,
            "task": self.task,
            "params": None if self.params is None else tuple(self.params),
            "modules": None if self.modules is None else list(self.modules),
            "weights": None if self.weights is None else list(self.weights),
            "beam": self.beam,
            "norm": self.norm,
            "lower": self.lower,
            "no_punct": self.no_punct,
        }
        if self.char_based:
            kwargs["char_based"] = True
        return kwargs


def _num(x: float) -> str:
    """Format a parameter the way a person types it (``0.85``, ``1``)."""
    return repr(float(x)).rstrip("0").rstrip(".") if float(x) != int(x) else str(int(x))


@dataclass
class OracleResult:
    """Everything the jar printed for one run, parsed.

    ``segment_scores`` are the floats printed on the ``Segment N score:`` lines
    (``segment_score_text`` keeps the exact text; the score run uses ``-vOut``,
    so ``segment_prf`` holds the precision, recall and fragmentation penalty
    texts printed before each score, ``NaN`` where undefined); ``ss_lines`` are the
    ``-ssOut`` lines as printed (23 numbers each); ``stats`` is the
    "System level statistics" block; ``final_score`` the last line.
    """

    args: List[str]
    n_refs: int
    segment_scores: List[float]
    segment_score_text: List[str]
    final_score: float
    final_text: str
    stats: Dict[str, Any]
    header: Dict[str, str]
    ss_lines: Optional[List[str]] = None
    segment_prf: List[List[str]] = field(default_factory=list)
    seconds: Dict[str, float] = field(default_factory=dict)
    cached: bool = False

    def to_json(self) -> Dict[str, Any]:
        """JSON-ready dict (the cache record)."""
        d = dataclasses.asdict(self)
        d.pop("cached")
        return d


# --------------------------------------------------------------------------- the jar, locked

_JAR_HASH: Dict[Path, str] = {}


def jar_digest(jar: Path) -> str:
    """SHA-256 of the jar file (memoised per process)."""
    if jar not in _JAR_HASH:
        h = hashlib.sha256()
        with open(jar, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _JAR_HASH[jar] = h.hexdigest()
    return _JAR_HASH[jar]


class JarLock:
    """Process-wide exclusive lock so that only one JVM of ours runs at a time."""

    def __init__(self, path: Path = JAR_LOCK_PATH) -> None:
        self.path = path
        self.fd: Optional[int] = None

    def __enter__(self) -> "JarLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def scorer_args(hyp_file: Path, ref_file: Path, args: Sequence[str], n_refs: int = 1) -> List[str]:
    """The scorer's arguments: the two files, ``args``, and ``-r N`` for several references."""
    out = [str(hyp_file), str(ref_file), *args]
    if n_refs > 1:
        out += ["-r", str(n_refs)]
    return out


def run_scorer_locked(args: Sequence[str], lock_path: Path = JAR_LOCK_PATH, heap: str = "2G") -> Tuple[str, float]:
    """Run the jar's scorer with ``args`` under the lock; its standard output and wall seconds.

    Raises :class:`~meteor_lite_builders.jar.JarRunError` on a non-zero exit.
    """
    with JarLock(lock_path):
        t0 = time.perf_counter()
        proc = jarmod.run_jar(args, heap=heap, check=True)
        dt = time.perf_counter() - t0
    return proc.stdout, dt


# --------------------------------------------------------------------------- running


def _check_segments(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
    if not refs:
        raise ValueError("at least one reference stream is needed")
    for k, stream in enumerate(refs):
        if len(stream) != len(hyps):
            raise ValueError(f"reference stream {k} has {len(stream)} segments, hypotheses {len(hyps)}")
    for i, h in enumerate(hyps):
        if any(c in h for c in LINE_BREAKS):
            raise ValueError(f"hypothesis {i} contains a line break: {h!r}")
    for k, stream in enumerate(refs):
        for i, r in enumerate(stream):
            if any(c in r for c in LINE_BREAKS):
                raise ValueError(f"reference {k} of segment {i} contains a line break: {r!r}")


def cache_key(hyps: Sequence[str], refs: Sequence[Sequence[str]], args: Sequence[str], jar: Path, with_ss: bool) -> str:
    """Hash of everything that determines the jar's output."""
    h = hashlib.sha256()
    payload = {
        "format": CACHE_FORMAT,
        "jar": jar_digest(jar),
        "args": list(args),
        "ss": with_ss,
        "n_refs": len(refs),
    }
    h.update(json.dumps(payload, sort_keys=True).encode())
    for s in hyps:
        h.update(b"\x00H" + s.encode("utf-8"))
    for stream in refs:
        h.update(b"\x00S")
        for s in stream:
            h.update(b"\x00R" + s.encode("utf-8"))
    return h.hexdigest()


def _write_inputs(tmp: Path, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> Tuple[Path, Path]:
    hyp_file = tmp / "hyp.txt"
    ref_file = tmp / "ref.txt"
    hyp_file.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    with open(ref_file, "w", encoding="utf-8") as f:
        for i in range(len(hyps)):
            for stream in refs:
                f.write(stream[i] + "\n")
    return hyp_file, ref_file


def _run_both(hyps: Sequence[str], refs: Sequence[Sequence[str]], args: List[str], *, score: bool, ss: bool,
              lock_path: Path, verbose: bool) -> Tuple[Optional[Dict[str, Any]], Optional[List[str]], Dict[str, float]]:
    """The score run (``-vOut``) and/or the ``-ssOut`` run, parsed and checked against the inputs."""
    n_refs = len(refs)
    seconds: Dict[str, float] = {}
    parsed: Optional[Dict[str, Any]] = None
    ss_lines: Optional[List[str]] = None
    with tempfile.TemporaryDirectory(prefix="meteor-oracle-") as tmp:
        hyp_file, ref_file = _write_inputs(Path(tmp), hyps, refs)

        def run(flag: str, key: str) -> str:
            """The jar's output with ``flag`` added, its time kept as ``seconds[key]``."""
            cmd = scorer_args(hyp_file, ref_file, args + [flag], n_refs)
            if verbose:
                log.info("oracle: %s", " ".join(jarmod.jar_command(cmd)))
            out, seconds[key] = run_scorer_locked(cmd, lock_path)
            return out

        if score:
            parsed = parse_score_output(run("-vOut", "score"))
            if len(parsed["segments"]) != len(hyps):
                raise OracleError(f"jar printed {len(parsed['segments'])} segment scores for {len(hyps)} hypotheses")
        if ss:
            ss_lines = parse_ss_output(run("-ssOut", "ss"))
            if len(ss_lines) != len(hyps):
                raise OracleError(f"jar printed {len(ss_lines)} -ssOut lines for {len(hyps)} hypotheses")
    return parsed, ss_lines, seconds


def _result(args: List[str], n_refs: int, parsed: Optional[Dict[str, Any]], ss_lines: Optional[List[str]],
            seconds: Dict[str, float]) -> OracleResult:
    if parsed is None:
        return OracleResult(args=args, n_refs=n_refs, segment_scores=[], segment_score_text=[],
                            final_score=float("nan"), final_text="", stats={}, header={},
                            ss_lines=ss_lines, seconds=seconds)
    return OracleResult(
        args=args,
        n_refs=n_refs,
        segment_scores=[float(s) for s in parsed["segments"]],
        segment_score_text=parsed["segments"],
        final_score=float(parsed["final_text"]),
        final_text=parsed["final_text"],
        stats=parsed["stats"],
        header=parsed["header"],
        ss_lines=ss_lines,
        segment_prf=parsed["verbose"],
        seconds=seconds,
    )


def _store(cache_file: Path, result: OracleResult) -> None:
    rec = result.to_json()
    rec["format"] = CACHE_FORMAT
    with atomic_path(cache_file) as tmp_file:
        tmp_file.write_text(json.dumps(rec), encoding="utf-8")


def run_oracle(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    config: OracleConfig,
    *,
    with_ss: bool = True,
    ss_only: bool = False,
    cache_dir: Optional[Path] = DEFAULT_CACHE_DIR,
    verbose: bool = False,
) -> OracleResult:
    """Score ``hyps`` against the reference streams ``refs`` with the jar.

    ``refs`` is a list of reference streams (sacreBLEU style), each as long as
    ``hyps``; with more than one stream the references are interleaved into one
    file and the jar gets ``-r N``.  ``with_ss`` adds a second run with
    ``-ssOut``; ``ss_only`` runs only that one (then the score fields are empty
    and ``final_score`` is NaN).  Results are cached under ``cache_dir``
    (``None`` disables the cache).  ``verbose`` logs each command (INFO).
    """
    _check_segments(hyps, refs)
    jar = jarmod.find_jar()
    args = config.jar_args()
    mode = "ss" if ss_only else ("both" if with_ss else "score")
    key = cache_key(hyps, refs, args + [f"mode={mode}"], jar, with_ss or ss_only)
    cache_file = None if cache_dir is None else Path(cache_dir) / key[:2] / f"{key}.json"
    if cache_file is not None and cache_file.is_file():
        data = json.loads(cache_file.read_text(encoding="utf-8"))
        data.pop("format", None)
        return OracleResult(cached=True, **data)

    lock_path = (Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR) / ".jar.lock"
    parsed, ss_lines, seconds = _run_both(hyps, refs, args, score=not ss_only, ss=with_ss or ss_only,
                                          lock_path=lock_path, verbose=verbose)
    result = _result(args, len(refs), parsed, ss_lines, seconds)
    if cache_file is not None:
        _store(cache_file, result)
    return result


def oracle_report(result: OracleResult) -> str:
    """The oracle command's plain output: one ``Segment N score:`` line each (with ``-ssOut``), the final score."""
    lines = []
    for i, s in enumerate(result.segment_score_text, 1):
        ss = f"\t{result.ss_lines[i - 1]}" if result.ss_lines else ""
        lines.append(f"Segment {i} score:\t{s}{ss}")
    lines.append(f"Final score:\t{result.final_text}")
    return "\n".join(lines)
