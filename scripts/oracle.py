#!/usr/bin/env python3
"""Run the official Meteor 1.5 jar as a black-box oracle and parse what it prints.

The jar is taken from the ``pycocoevalcap`` package through
:func:`meteor_lite_builders.official.jar_path`.  Hypotheses and reference
streams are written to temporary files (several references per hypothesis are
interleaved and passed with ``-r N``), the jar is run once for the scores
(segment scores, the system-level statistics block, the final score) and once
with ``-ssOut`` for the per-segment sufficient statistics, and the parsed
result is cached on disk under ``bench-out/oracle-cache`` keyed by a hash of
the jar, the options and the inputs, so a rerun is instant.

Jar runs are serialised through a lock file so that concurrent callers on this
small shared machine never run two JVMs at once.

Library use::

    from oracle import OracleConfig, run_oracle
    res = run_oracle(hyps, [refs_a, refs_b], OracleConfig(lang="en", norm=True))
    res.segment_scores, res.final_score, res.ss_lines, res.stats

CLI::

    python scripts/oracle.py HYP REF [REF ...] -- -l en -norm
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

#: Project root (this file lives in ``<root>/scripts``).
ROOT = Path(__file__).resolve().parent.parent
#: Default location of the on-disk cache (``bench-out`` is gitignored).
DEFAULT_CACHE_DIR = ROOT / "bench-out" / "oracle-cache"
#: Bump when the cached record layout changes.
CACHE_FORMAT = 3

#: Characters that would split a segment into two lines for the jar (Java's
#: ``readLine`` breaks on CR and LF).
_LINE_BREAKS = ("\n", "\r")


class OracleError(Exception):
    """The jar could not be run, or printed something this parser does not understand."""


@dataclass(frozen=True)
class OracleConfig:
    """The jar options that change a score, mirroring the meteor-lite ``Meteor`` arguments.

    ``None`` for ``task``, ``params``, ``modules`` or ``weights`` means "the
    language default" (the option is not passed to the jar).
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
        return args

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready form (lists, not tuples), the ``config`` of a fixture record."""
        d = dataclasses.asdict(self)
        for name in ("params", "modules", "weights"):
            if d[name] is not None:
                d[name] = list(d[name])
        return d

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "OracleConfig":
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        return cls(**d)

    def meteor_kwargs(self) -> Dict[str, Any]:
        """Keyword arguments for ``meteor_lite.Meteor`` with the same meaning."""
        return {
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


# --------------------------------------------------------------------------- locating


def find_java() -> str:
    """Path of the ``java`` executable; :class:`OracleError` with a clear message if absent."""
    java = os.environ.get("METEOR_JAVA") or shutil.which("java")
    if not java:
        raise OracleError(
            "java not found on PATH (set METEOR_JAVA to a Java 8+ executable): the official "
            "Meteor 1.5 jar is a Java program; on Debian: apt-get install openjdk-17-jre-headless"
        )
    return java


def find_jar() -> Path:
    """Path of ``meteor-1.5.jar`` from the installed official release (pycocoevalcap)."""
    try:
        from meteor_lite_builders.official import jar_path
    except ImportError as e:  # pragma: no cover - the project is installed editable
        raise OracleError(f"cannot import meteor_lite_builders ({e}): install the project") from e
    try:
        return jar_path()
    except Exception as e:  # OfficialReleaseError
        raise OracleError(str(e)) from e


_JAR_HASH: Dict[Path, str] = {}


def _jar_digest(jar: Path) -> str:
    """SHA-256 of the jar file (memoised per process)."""
    if jar not in _JAR_HASH:
        h = hashlib.sha256()
        with open(jar, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _JAR_HASH[jar] = h.hexdigest()
    return _JAR_HASH[jar]


# --------------------------------------------------------------------------- parsing

_SEG_RE = re.compile(r"^Segment (\d+) score:\t(.*)$")
_KV_RE = re.compile(r"^([A-Za-z][A-Za-z ]*?):\s+(\S.*)$")
_STATS_KEYS = {
    "Test words": "test_words",
    "Reference words": "reference_words",
    "Chunks": "chunks",
    "Precision": "precision",
    "Recall": "recall",
    "f1": "f1",
    "fMean": "fmean",
    "Fragmentation penalty": "frag_penalty",
    "Final score": "final_score",
}


def parse_score_output(text: str) -> Dict[str, Any]:
    """Parse the jar's normal (non ``-ssOut``) standard output.

    Returns ``header`` (Eval ID, Task, Modules, Weights, Parameters, ...),
    ``segments`` (list of the score texts in order), ``verbose`` (for each
    segment the texts printed before the score under ``-vOut``: precision,
    recall, fragmentation penalty; empty without ``-vOut``), ``stats`` (numbers of the
    system-level block; ``stages`` holds for each stage 1-4 and ``total`` the
    six counts test content/function/total, reference content/function/total)
    and ``final_text``.
    """
    header: Dict[str, str] = {}
    segs: Dict[int, str] = {}
    verbose: Dict[int, List[str]] = {}
    stats: Dict[str, Any] = {"stages": {}}
    final_text: Optional[str] = None
    in_stats = False
    for line in text.splitlines():
        m = _SEG_RE.match(line)
        if m:
            fields = [x.strip() for x in m.group(2).split("\t")]
            segs[int(m.group(1))] = fields[-1]
            verbose[int(m.group(1))] = fields[:-1]
            continue
        if line.startswith("System level statistics"):
            in_stats = True
            continue
        if in_stats:
            parts = line.split()
            if parts and (parts[0] in {"1", "2", "3", "4", "Total"}) and len(parts) == 7:
                stats["stages"][parts[0].lower()] = [int(p) for p in parts[1:]]
                continue
        m = _KV_RE.match(line)
        if m:
            key, val = m.group(1).strip(), m.group(2).strip()
            if in_stats and key in _STATS_KEYS:
                k = _STATS_KEYS[key]
                if k == "final_score":
                    final_text = val
                elif k in {"test_words", "reference_words", "chunks"}:
                    stats[k] = int(float(val))
                else:
                    stats[k] = float(val)
            elif not in_stats:
                header[key] = val
    if final_text is None:
        raise OracleError("jar output has no 'Final score:' line:\n" + text[-2000:])
    n = len(segs)
    if sorted(segs) != list(range(1, n + 1)):
        raise OracleError("jar output has missing or out-of-order segment lines")
    return {
        "header": header,
        "segments": [segs[i] for i in range(1, n + 1)],
        "verbose": [verbose[i] for i in range(1, n + 1)],
        "stats": stats,
        "final_text": final_text,
    }


def parse_ss_output(text: str) -> List[str]:
    """Parse ``-ssOut`` output: one line of 23 numbers per segment (returned as printed)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        parts = ln.split()
        if len(parts) != 23:
            raise OracleError(f"unexpected -ssOut line (expected 23 numbers): {ln!r}")
        for p in parts:
            float(p)
    return lines


def parse_ss_line(line: str) -> List[float]:
    """The 23 numbers of one ``-ssOut`` line as floats."""
    parts = line.split()
    if len(parts) != 23:
        raise ValueError(f"expected 23 numbers, got {len(parts)}: {line!r}")
    return [float(p) for p in parts]


def ss_fields(line: str) -> Dict[str, Any]:
    """Named view of an ``-ssOut`` line (handy for selecting segments).

    Keys: ``tst_len``, ``ref_len``, ``tst_func``, ``ref_func``, ``stages``
    (4 lists of tstContent refContent tstFunction refFunction), ``chunks``,
    ``tst_matches``, ``ref_matches``.
    """
    v = parse_ss_line(line)
    return {
        "tst_len": v[0],
        "ref_len": v[1],
        "tst_func": v[2],
        "ref_func": v[3],
        "stages": [v[4 + 4 * i : 8 + 4 * i] for i in range(4)],
        "chunks": v[20],
        "tst_matches": v[21],
        "ref_matches": v[22],
    }


# --------------------------------------------------------------------------- running


def _check_segments(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
    if not refs:
        raise ValueError("at least one reference stream is needed")
    for k, stream in enumerate(refs):
        if len(stream) != len(hyps):
            raise ValueError(
                f"reference stream {k} has {len(stream)} segments, hypotheses {len(hyps)}"
            )
    for i, h in enumerate(hyps):
        if any(c in h for c in _LINE_BREAKS):
            raise ValueError(f"hypothesis {i} contains a line break: {h!r}")
    for k, stream in enumerate(refs):
        for i, r in enumerate(stream):
            if any(c in r for c in _LINE_BREAKS):
                raise ValueError(f"reference {k} of segment {i} contains a line break: {r!r}")


def cache_key(hyps: Sequence[str], refs: Sequence[Sequence[str]], args: Sequence[str],
              jar: Path, with_ss: bool) -> str:
    """Hash of everything that determines the jar's output."""
    h = hashlib.sha256()
    payload = {
        "format": CACHE_FORMAT,
        "jar": _jar_digest(jar),
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


class _JarLock:
    """Process-wide exclusive lock so that only one JVM of ours runs at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: Optional[int] = None

    def __enter__(self) -> "_JarLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def jar_command(hyp_file: Path, ref_file: Path, args: Sequence[str], n_refs: int = 1,
                xmx: str = "2G") -> List[str]:
    """The command line that runs the jar, as a user would type it."""
    cmd = [find_java(), f"-Xmx{xmx}", "-Dfile.encoding=UTF-8", "-jar", str(find_jar()),
           str(hyp_file), str(ref_file)]
    cmd += list(args)
    if n_refs > 1:
        cmd += ["-r", str(n_refs)]
    return cmd


def _run(cmd: List[str], lock_path: Path) -> "tuple[str, float]":
    with _JarLock(lock_path):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8")
        dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise OracleError(
            f"jar exited with {proc.returncode}: {' '.join(cmd)}\n{proc.stderr[-3000:]}"
        )
    return proc.stdout, dt


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
    (``None`` disables the cache).
    """
    _check_segments(hyps, refs)
    jar = find_jar()
    args = config.jar_args()
    mode = "ss" if ss_only else ("both" if with_ss else "score")
    key = cache_key(hyps, refs, args + [f"mode={mode}"], jar, with_ss or ss_only)
    cache_file = None if cache_dir is None else Path(cache_dir) / key[:2] / f"{key}.json"
    if cache_file is not None and cache_file.is_file():
        data = json.loads(cache_file.read_text(encoding="utf-8"))
        data.pop("format", None)
        return OracleResult(cached=True, **data)

    n_refs = len(refs)
    lock_path = (Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR) / ".jar.lock"
    seconds: Dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="meteor-oracle-") as tmp:
        hyp_file = Path(tmp) / "hyp.txt"
        ref_file = Path(tmp) / "ref.txt"
        hyp_file.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
        with open(ref_file, "w", encoding="utf-8") as f:
            for i in range(len(hyps)):
                for stream in refs:
                    f.write(stream[i] + "\n")
        parsed: Optional[Dict[str, Any]] = None
        if not ss_only:
            cmd = jar_command(hyp_file, ref_file, args + ["-vOut"], n_refs)
            if verbose:
                print("oracle:", " ".join(cmd), file=sys.stderr)
            out, seconds["score"] = _run(cmd, lock_path)
            parsed = parse_score_output(out)
            if len(parsed["segments"]) != len(hyps):
                raise OracleError(
                    f"jar printed {len(parsed['segments'])} segment scores for {len(hyps)} hypotheses"
                )
        ss_lines: Optional[List[str]] = None
        if with_ss or ss_only:
            cmd = jar_command(hyp_file, ref_file, args + ["-ssOut"], n_refs)
            if verbose:
                print("oracle:", " ".join(cmd), file=sys.stderr)
            out, seconds["ss"] = _run(cmd, lock_path)
            ss_lines = parse_ss_output(out)
            if len(ss_lines) != len(hyps):
                raise OracleError(f"jar printed {len(ss_lines)} -ssOut lines for {len(hyps)} hypotheses")

    if parsed is None:
        result = OracleResult(args=args, n_refs=n_refs, segment_scores=[], segment_score_text=[],
                              final_score=float("nan"), final_text="", stats={}, header={},
                              ss_lines=ss_lines, seconds=seconds)
    else:
        result = OracleResult(
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
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp_file = cache_file.with_suffix(f".tmp{os.getpid()}")
        rec = result.to_json()
        rec["format"] = CACHE_FORMAT
        tmp_file.write_text(json.dumps(rec), encoding="utf-8")
        os.replace(tmp_file, cache_file)
    return result


# --------------------------------------------------------------------------- shared data

#: Default location of the shared data (``../shared/data`` from the project root).
DEFAULT_DATA_DIR = ROOT.parent / "shared" / "data"


def read_lines(path: "os.PathLike[str] | str") -> List[str]:
    """Lines of a UTF-8 text file without their line ends (one segment a line)."""
    text = Path(path).read_bytes().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def meteor_example(data_dir: Path, name: str) -> List[str]:
    """A file of ``meteor-example/`` (``system1.hyp``, ``system2.hyp``, ``reference``)."""
    return read_lines(Path(data_dir) / "meteor-example" / name)


def wmt21_rows(data_dir: Path, lp: str) -> List[Dict[str, str]]:
    """Rows of ``wmt21/newstest2021.<lp>.{da,systems}.tsv.gz`` as dicts keyed by the header.

    Rows with a line break inside a field (none in the shipped files) are dropped,
    since the jar reads one segment a line.
    """
    import gzip

    base = Path(data_dir) / "wmt21"
    path = base / f"newstest2021.{lp}.da.tsv.gz"
    if not path.is_file():
        path = base / f"newstest2021.{lp}.systems.tsv.gz"
    if not path.is_file():
        raise FileNotFoundError(f"no WMT21 file for {lp} under {base}")
    rows: List[Dict[str, str]] = []
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != len(header):
                raise OracleError(f"{path}: a row has {len(parts)} fields, header {len(header)}")
            row = dict(zip(header, parts))
            if any(c in v for v in (row["hyp"], row["ref_A"], row.get("ref_B", "")) for c in _LINE_BREAKS):
                continue
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- CLI


def main(argv: Optional[Sequence[str]] = None) -> int:
    """CLI: run the jar on files (cached) and print JSON or a short summary."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("hyp", help="hypothesis file, one segment a line")
    p.add_argument("refs", nargs="+", help="reference file(s), one stream each (parallel to HYP)")
    p.add_argument("--lang", "-l", default="en")
    p.add_argument("--task", "-t", default=None)
    p.add_argument("--params", "-p", default=None, help="'alpha beta gamma delta'")
    p.add_argument("--modules", "-m", default=None, help="'exact stem synonym paraphrase'")
    p.add_argument("--weights", "-w", default=None)
    p.add_argument("--beam", "-x", type=int, default=40)
    p.add_argument("--norm", action="store_true")
    p.add_argument("--lower", action="store_true")
    p.add_argument("--no-punct", action="store_true")
    p.add_argument("--no-ss", action="store_true", help="skip the -ssOut run")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--json", action="store_true", help="print the whole parsed result as JSON")
    a = p.parse_args(argv)
    cfg = OracleConfig(
        lang=a.lang, task=a.task,
        params=None if a.params is None else [float(x) for x in a.params.split()],
        modules=None if a.modules is None else a.modules.split(),
        weights=None if a.weights is None else [float(x) for x in a.weights.split()],
        beam=a.beam, norm=a.norm, lower=a.lower, no_punct=a.no_punct,
    )
    hyps = read_lines(a.hyp)
    refs = [read_lines(r) for r in a.refs]
    try:
        res = run_oracle(hyps, refs, cfg, with_ss=not a.no_ss,
                         cache_dir=None if a.no_cache else DEFAULT_CACHE_DIR, verbose=True)
    except (OracleError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(res.to_json(), indent=1))
    else:
        for i, s in enumerate(res.segment_score_text, 1):
            ss = f"\t{res.ss_lines[i - 1]}" if res.ss_lines else ""
            print(f"Segment {i} score:\t{s}{ss}")
        print(f"Final score:\t{res.final_text}")
        print(f"({'cached' if res.cached else 'ran'}; jar args: {' '.join(res.args)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
