"""Tools that start the Meteor 1.5 jar, switched to meteor-lite with no edit: the ``java`` shim and ``meteor-jar``.

Each client below calls ``java`` the way one of the tools does (its argument list, environment, working
directory, stdio exchange and order of reads: pycocoevalcap and the original coco-caption, nlg-eval, SummEval,
GEM-metrics, nmtpytorch/pysimt, compare-mt, sacrerouge), written from what the tools do; the tools themselves
are not dependencies.  With the shim first on ``PATH`` the answers must be those of ``meteor-jar`` run directly
(whose parity with the jar is tested elsewhere) and, in the ``java``-marked tests, those of the real jar.

Reads ``../shared/data/meteor-example/system1.hyp`` and ``reference`` (the first lines) and, for a captioning set
of five references, ``../shared/data/multi30k/test_2016_flickr.en.gz`` and ``train.en.gz``.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pytest

from meteor_lite.jarcli.javaopts import is_meteor_jar, split_launcher, strip_launcher
from meteor_lite.jarcli.javashim import MARKER, find_real_java, is_shim, write_shim
from meteor_lite.resources.locate import find_bundle

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("METEOR_SHARED_DATA", ROOT.parent / "shared" / "data"))
EXAMPLE = SHARED / "meteor-example"
MULTI30K = SHARED / "multi30k"

needs_en = pytest.mark.skipif(find_bundle("en") is None, reason="no English bundle: run `make bundles`")
needs_example = pytest.mark.skipif(not (EXAMPLE / "system1.hyp").is_file(), reason=f"needs the shared data ({EXAMPLE})")

#: The jar's argument list as pycocoevalcap 1.2, coco-caption and SummEval build it (after "java").
COCO_ARGS = ["-jar", "-Xmx2G", "meteor-1.5.jar", "-", "-", "-stdio", "-l", "en", "-norm"]


def _lines(path: Path, n: int) -> List[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        return [next(f).rstrip("\n") for _ in range(n)]


def system1(n: int) -> Tuple[Dict[int, List[str]], Dict[int, List[str]]]:
    """The first ``n`` lines of system1 as images of one reference (gts, res)."""
    hyps, refs = _lines(EXAMPLE / "system1.hyp", n), _lines(EXAMPLE / "reference", n)
    return {i: [r] for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)}


def captions(n: int) -> Tuple[Dict[int, List[str]], Dict[int, List[str]]]:
    """A captioning set of five references per image, from Multi30k's English captions: the hypothesis is test
    caption i; its references are that caption without its first word, and train captions i, i+n, i+2n and i+3n."""
    test, val = _lines(MULTI30K / "test_2016_flickr.en.gz", n), _lines(MULTI30K / "train.en.gz", 4 * n)
    gts = {i: [" ".join(test[i].split()[1:]), *(val[i + k * n] for k in range(4))] for i in range(n)}
    return gts, {i: [test[i]] for i in range(n)}


def shim_env(tmp_path: Path, path_after: Optional[str] = None) -> Dict[str, str]:
    """The environment with a fresh shim first on PATH (``path_after`` replaces what follows it)."""
    shim = write_shim(tmp_path / "shim-bin")
    env = dict(os.environ)
    env["PATH"] = str(shim.parent) + os.pathsep + (os.environ.get("PATH", "") if path_after is None else path_after)
    return env


def meteor_jar_env() -> Dict[str, str]:
    """The environment in which ``meteor-jar`` (this interpreter's console script) is found first on PATH."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


class StdioClient:
    """A client of the jar's ``-stdio`` protocol, as the tools keep one: started once, fed line by line."""

    def __init__(self, cmd: Sequence[str], *, cwd: Path, env: Dict[str, str], text: bool = False) -> None:
        self.text = text
        self.proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, universal_newlines=text, bufsize=1 if text else -1)

    def ask(self, line: str, answers: int = 1) -> List[str]:
        """Write one request, then read ``answers`` lines (as the tools do, one readline each)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n" if self.text else (line + "\n").encode("utf-8"))  # type: ignore[arg-type]
        self.proc.stdin.flush()
        got = [self.proc.stdout.readline() for _ in range(answers)]
        return [g.strip() if isinstance(g, str) else g.decode("utf-8").strip() for g in got]

    def close(self) -> Tuple[int, str]:
        """Close stdin as the tools' ``close``/``__del__`` do; (exit code, stderr)."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=120)
        err = self.proc.stderr.read()
        return code, err if isinstance(err, str) else err.decode("utf-8", "replace")


def coco_exchange(client: StdioClient, gts: Dict[int, List[str]], res: Dict[int, List[str]]) -> Tuple[float, List[float]]:
    """pycocoevalcap's exchange: one SCORE line per image (its statistics read back), then one EVAL line with all
    of them, answered by each image's score and then the corpus score."""
    stats = []
    for i in gts:
        hyp = res[i][0].replace("|||", "").replace("  ", " ")
        stats.append(client.ask(" ||| ".join(("SCORE", " ||| ".join(gts[i]), hyp)))[0])
    answers = client.ask("EVAL ||| " + " ||| ".join(stats), len(stats) + 1)
    return float(answers[-1]), [float(a) for a in answers[:-1]]


def nlgeval_exchange(client: StdioClient, gts: Dict[int, List[str]], res: Dict[int, List[str]]) -> Tuple[float, List[float]]:
    """nlg-eval's exchange: pycocoevalcap's order of writes and reads, its SCORE lines sent as given (no ``|||``
    taken out of the hypothesis, no double spaces replaced)."""
    stats = [client.ask(" ||| ".join(("SCORE", " ||| ".join(gts[i]), res[i][0])))[0] for i in gts]
    answers = client.ask("EVAL ||| " + " ||| ".join(stats), len(stats) + 1)
    return float(answers[-1]), [float(a) for a in answers[:-1]]


def run_client(style: str, program: str, env: Dict[str, str], cwd: Path,
               data: Tuple[Dict[int, List[str]], Dict[int, List[str]]]) -> Tuple[float, List[float]]:
    """Run one tool's way of calling the jar (``program`` is ``java`` or ``meteor-jar``) and return its numbers."""
    gts, res = data
    jar = "meteor-1.5.jar"
    if style in ("pycocoevalcap", "coco-caption", "summeval"):
        text = style == "summeval"  # SummEval's copy reads and writes text, line-buffered, in an en_US.UTF_8 locale
        env = {**env, "LC_ALL": "en_US.UTF_8"} if style != "pycocoevalcap" else env
        client = StdioClient([program, *COCO_ARGS], cwd=cwd, env=env, text=text)
        out = coco_exchange(client, gts, res)
    elif style == "nlg-eval":  # -Xmx from free memory, LC_ALL=C, the jar's path relative to its folder
        table = ["-a", "data/paraphrase-en.gz"] if (cwd / "data" / "paraphrase-en.gz").is_file() else []
        client = StdioClient([program, "-jar", "-Xmx1G", jar, "-", "-", "-stdio", "-l", "en", "-norm", *table], cwd=cwd,
                             env={**env, "LC_ALL": "C"})
        out = nlgeval_exchange(client, gts, res)
    elif style == "gem":  # GEM-metrics: Java options between -jar and the jar, run in the jar's folder
        client = StdioClient([program, "-jar", "-Xmx2G", "-Duser.language=en", "-Duser.country=US", jar, "-", "-",
                              "-stdio", "-l", "en", "-norm"], cwd=cwd, env=env)
        out = coco_exchange(client, gts, res)
    elif style == "nmtpytorch":  # its cocoeval copy: -l LANG then -norm; the jar's absolute path; en_US.UTF_8, text
        client = StdioClient([program, "-jar", "-Xmx2G", str(cwd / jar), "-", "-", "-stdio", "-l", "en", "-norm"],
                             cwd=cwd, env={**env, "LC_ALL": "en_US.UTF_8"}, text=True)
        out = coco_exchange(client, gts, res)
    elif style == "nmtpytorch-metrics":  # its METEORScorer: -Xmx first, no -norm, lines sent as read, text
        client = StdioClient([program, "-Xmx2G", "-jar", str(cwd / jar), "-", "-", "-stdio", "-l", "en"],
                             cwd=cwd, env={**env, "LC_ALL": "en_US.UTF-8"}, text=True)
        out = nlgeval_exchange(client, gts, res)
    elif style == "java-options-first":  # -Xmx and -D options before -jar, as in shell wrappers and MERT scripts
        client = StdioClient([program, "-Xmx2G", "-Duser.language=en", "-Duser.country=US", "-server", "-jar",
                              str(cwd / jar), "-", "-", "-stdio", "-l", "en", "-norm"], cwd=cwd, env=env)
        out = coco_exchange(client, gts, res)
    else:
        raise AssertionError(style)
    code, err = client.close()
    assert code == 0, err
    return out


STYLES = ["pycocoevalcap", "coco-caption", "summeval", "nlg-eval", "gem", "nmtpytorch", "nmtpytorch-metrics",
          "java-options-first"]


@needs_en
@needs_example
@pytest.mark.parametrize("style", STYLES)
def test_each_clients_exchange_through_the_shim_is_meteor_jars(style: str, tmp_path: Path) -> None:
    """The shim answers each tool's call of the jar, and ``meteor-jar`` in ``java``'s place (the program name the
    only change) gives the same numbers: the meteor-jar call is the jar's argument list with ``java`` replaced."""
    data = system1(12)
    shim = run_client(style, "java", shim_env(tmp_path), tmp_path, data)
    direct = run_client(style, "meteor-jar", meteor_jar_env(), tmp_path, data)
    assert shim == direct
    assert len(shim[1]) == 12 and 0 < shim[0] < 1 and len(set(shim[1])) > 6


@needs_en
@needs_example
def test_nlgeval_passes_the_release_paraphrase_table(tmp_path: Path) -> None:
    """nlg-eval adds ``-a data/paraphrase-en.gz`` (the release's table, beside its jar): the bundle holds that very
    table, so the answers are those of the jar's arguments without ``-a``."""
    pytest.importorskip("pycocoevalcap", reason="the release's paraphrase-en.gz comes with pycocoevalcap")
    import pycocoevalcap.meteor.meteor as coco

    folder = Path(coco.__file__).parent
    assert (folder / "data" / "paraphrase-en.gz").is_file()
    data = system1(8)
    with_table = run_client("nlg-eval", "java", shim_env(tmp_path), folder, data)
    assert with_table == run_client("nlg-eval", "meteor-jar", meteor_jar_env(), tmp_path, data)


def _compare_mt(program: str, env: Dict[str, str], folder: Path, hyp: Path, ref: Path) -> Tuple[List[str], str]:
    """compare-mt's two shell commands: ``-ssOut`` statistics of a file pair through ``meteor-*.jar`` (a glob the
    shell leaves as it is where no such file exists), then their sum scored by an ``EVAL`` line echoed into ``-stdio``."""
    stats = subprocess.run(f"{program} -Xmx2G -jar {folder}/meteor-*.jar {hyp} {ref} -l en -norm -ssOut", shell=True,
                           env=env, capture_output=True, text=True, check=True).stdout.split("\n")[:-1]
    total = [sum(float(x) for x in col) for col in zip(*(s.split() for s in stats))]
    score = subprocess.run(f'echo "EVAL ||| {" ".join(str(t) for t in total)}" | {program} -Xmx2G -jar '
                           f"{folder}/meteor-*.jar - - -l en -norm -stdio", shell=True, env=env, capture_output=True,
                           text=True, check=True).stdout
    return stats, score


def _sacrerouge(program: str, env: Dict[str, str], jar: Path, hyp: Path, refs: Path) -> Tuple[List[str], str]:
    """sacrerouge 0.2.5's call: a file of summaries and one of references, a (summary, reference) pair a line; the
    segment scores read from the report's twelfth line on (it asserts that line is ``Segment 1 score``, fourth
    column), the final score from its last line."""
    out = subprocess.run([program, "-jar", str(jar), str(hyp), str(refs), "-l", "en", "-norm"],
                         env=env, capture_output=True, check=True).stdout.decode()
    lines = out.splitlines()
    assert lines[11].startswith("Segment 1 score") and lines[-1].startswith("Final score:"), out
    segs = [ln.split()[3] for ln in lines[11:] if ln.startswith("Segment")]
    return segs, lines[-1].split()[2]


@needs_en
@needs_example
def test_file_clients_through_the_shim(tmp_path: Path) -> None:
    """compare-mt's shell commands (a ``meteor-*.jar`` glob that matches nothing) and sacrerouge's report reading."""
    gts, res = captions(6) if (MULTI30K / "train.en.gz").is_file() else system1(6)
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("".join(res[i][0] + "\n" for i in res), encoding="utf-8")
    n = len(gts[0])
    one_ref = tmp_path / "ref1.txt"
    one_ref.write_text("".join(gts[i][0] + "\n" for i in gts), encoding="utf-8")
    env, direct = shim_env(tmp_path), meteor_jar_env()
    assert _compare_mt("java", env, tmp_path, hyp, one_ref) == _compare_mt("meteor-jar", direct, tmp_path, hyp, one_ref)
    pairs_hyp, pairs_ref = tmp_path / "summaries.txt", tmp_path / "references.txt"  # one line per reference
    pairs_hyp.write_text("".join(res[i][0] + "\n" for i in gts for _ in gts[i]), encoding="utf-8")
    pairs_ref.write_text("".join(r + "\n" for i in gts for r in gts[i]), encoding="utf-8")
    jar = tmp_path / "meteor-1.5" / "meteor-1.5.jar"
    shim = _sacrerouge("java", env, jar, pairs_hyp, pairs_ref)
    assert shim == _sacrerouge("meteor-jar", direct, jar, pairs_hyp, pairs_ref)
    assert len(shim[0]) == 6 * n and 0 < float(shim[1]) < 1


@pytest.mark.java
@pytest.mark.slow
@needs_en
@needs_example
def test_shim_gives_the_jars_numbers(tmp_path: Path) -> None:
    """pycocoevalcap's exchange with the real jar and with the shim: the same corpus and segment scores, on system1
    lines and on captions of five references."""
    import pycocoevalcap.meteor.meteor as coco

    folder = Path(coco.__file__).parent  # the release's folder: the jar is there, as pycocoevalcap runs it
    datasets = [system1(40)]
    if (MULTI30K / "train.en.gz").is_file():
        datasets.append(captions(40))
    env = shim_env(tmp_path)
    for data in datasets:
        jar = run_client("pycocoevalcap", "java", dict(os.environ), folder, data)
        assert run_client("pycocoevalcap", "java", env, folder, data) == jar


def test_the_launcher_is_read_as_java_reads_it() -> None:
    """Options up to the first non-option; with -jar that one is the jar, else the main class."""
    cmd = split_launcher(["-jar", "-Xmx2G", "/a/meteor-1.5.jar", "-", "-", "-stdio", "-Xmx1G"])
    assert (cmd.jar, cmd.args, cmd.meteor) == ("/a/meteor-1.5.jar", ["-", "-", "-stdio", "-Xmx1G"], True)
    cmd = split_launcher(["-cp", "stanford-corenlp-3.4.1.jar", "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines"])
    assert (cmd.jar, cmd.main_class, cmd.args, cmd.meteor) == (
        None, "edu.stanford.nlp.process.PTBTokenizer", ["-preserveLines"], False)
    assert split_launcher(["-Xmx2G", "-version"]).version
    assert [is_meteor_jar(p) for p in ("meteor-1.5.jar", "x/Meteor.jar", "d/meteor-*.jar", "tercom.jar", "meteor")] == [
        True, True, True, False, False]
    assert strip_launcher(["-Xmx2G", "-Duser.language=en", "-jar", "m/meteor-1.5.jar", "h", "r", "-norm"]) == [
        "h", "r", "-norm"]
    assert strip_launcher(["-Xmx2G", "-", "-", "-stdio"]) == ["-", "-", "-stdio"]
    assert strip_launcher(["h", "r", "-Xmx2G"]) == ["h", "r", "-Xmx2G"]  # after the files: the jar's (unknown) option


@pytest.mark.parametrize("argv", [
    ["-Xmx2G", "-", "-", "-stdio", "-l", "en", "-norm"],
    ["-jar", "-Xmx2G", "meteor-1.5.jar", "-", "-", "-stdio", "-l", "en", "-norm"],
    ["-Xmx2G", "-Duser.language=en", "-Duser.country=US", "-jar", "/x/meteor-1.5.jar", "-", "-", "-stdio", "-l", "en",
     "-norm"],
])
@needs_en
def test_meteor_jar_takes_the_java_command_line(argv: List[str]) -> None:
    """``java`` replaced by ``meteor-jar`` in a tool's argument list: the same answer as the jar's own arguments."""
    request = b"SCORE ||| a cat sat on the mat ||| the cat sat on a mat\n"
    plain = subprocess.run([sys.executable, "-m", "meteor_lite.jarcli", "-", "-", "-stdio", "-l", "en", "-norm"],
                           input=request, capture_output=True, check=True).stdout
    got = subprocess.run([sys.executable, "-m", "meteor_lite.jarcli", *argv], input=request, capture_output=True)
    assert got.returncode == 0, got.stderr
    assert got.stdout == plain and len(plain.split()) == 23


def test_meteor_jar_refuses_another_jar() -> None:
    got = subprocess.run([sys.executable, "-m", "meteor_lite.jarcli", "-jar", "tercom.jar", "-h", "h", "-r", "r"],
                         capture_output=True, text=True)
    assert got.returncode == 1
    assert got.stderr.strip() == "meteor-jar: error: -jar tercom.jar: not a Meteor jar (meteor-jar answers for meteor*.jar only)"


def _fake_java(folder: Path) -> Path:
    """A stand-in for the real Java that prints the arguments it was given (one a line) and exits 3."""
    folder.mkdir(parents=True, exist_ok=True)
    java = folder / "java"
    java.write_text('#!/bin/sh\nfor a in "$@"; do echo "$a"; done\nexit 3\n', encoding="utf-8")
    java.chmod(0o755)
    return java


def test_other_java_calls_reach_the_real_java(tmp_path: Path) -> None:
    """pycocoevalcap's tokenizer (``java -cp stanford-corenlp-3.4.1.jar ...``) and ``java -version`` go to the next
    ``java`` on PATH, arguments and exit code unchanged; a second shim on PATH is skipped."""
    real = _fake_java(tmp_path / "jdk" / "bin")
    write_shim(tmp_path / "other-shim")
    env = shim_env(tmp_path, path_after=os.pathsep.join([str(tmp_path / "other-shim"), str(real.parent), "/usr/bin", "/bin"]))
    args = ["-cp", "stanford-corenlp-3.4.1.jar", "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines", "-lowerCase",
            "tmp file"]
    got = subprocess.run(["java", *args], env=env, capture_output=True, text=True)
    assert (got.returncode, got.stdout.splitlines()) == (3, args)
    got = subprocess.run(["java", "-version"], env=env, capture_output=True, text=True)
    assert (got.returncode, got.stdout.splitlines()) == (3, ["-version"])
    env["PATH"] = str(tmp_path / "shim-bin") + os.pathsep + "/usr/bin"
    assert find_real_java(env["PATH"]) == shutil.which("java", path="/usr/bin")


def test_without_java_the_shim_answers_version_and_names_other_calls(tmp_path: Path) -> None:
    env = shim_env(tmp_path, path_after=str(tmp_path / "nothing"))
    env.pop("JAVA_HOME", None)
    env.pop("METEOR_LITE_REAL_JAVA", None)
    version = subprocess.run(["java", "-version"], env=env, capture_output=True, text=True)
    assert version.returncode == 0 and "java shim" in version.stderr and version.stdout == ""
    other = subprocess.run(["java", "-cp", "x.jar", "Main"], env=env, capture_output=True, text=True)
    assert other.returncode == 127
    assert other.stderr.count("\n") == 1 and "no Java found on PATH after the shim for: java -cp x.jar Main" in other.stderr


def test_java_shim_command_writes_only_its_java(tmp_path: Path) -> None:
    """``meteor-lite java-shim DIR`` writes DIR/java (executable, marked) and nothing else; it never replaces a
    ``java`` that is not a shim."""
    folder = tmp_path / "bin"
    got = subprocess.run([sys.executable, "-m", "meteor_lite.cli", "java-shim", str(folder)], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert [p.name for p in folder.iterdir()] == ["java"] and os.access(folder / "java", os.X_OK)
    assert is_shim(folder / "java") and MARKER in (folder / "java").read_text(encoding="utf-8")
    assert f'export PATH="{folder.resolve()}:$PATH"' in got.stdout
    real = _fake_java(tmp_path / "jdk")
    again = subprocess.run([sys.executable, "-m", "meteor_lite.cli", "java-shim", str(real.parent)], capture_output=True,
                           text=True)
    assert again.returncode == 1 and "is not a meteor-lite java shim: not replaced" in again.stderr
    assert real.read_text(encoding="utf-8").startswith("#!/bin/sh\nfor a in")


@needs_en
def test_as_java_runs_a_command_with_the_shim_and_leaves_nothing(tmp_path: Path) -> None:
    """``meteor-lite as-java -- CMD``: the command's ``java -jar .../meteor-1.5.jar`` is answered, its exit code comes
    back, and the shim's temporary directory is gone afterwards."""
    script = tmp_path / "tool.py"
    script.write_text(
        "import os, shutil, subprocess, sys\n"
        "print(shutil.which('java'))\n"
        "p = subprocess.run(['java', '-jar', '-Xmx2G', 'meteor-1.5.jar', '-', '-', '-stdio', '-l', 'en', '-norm'],\n"
        "                   input=b'SCORE ||| a cat sat ||| the cat sat\\n', capture_output=True)\n"
        "print(p.stdout.decode().strip())\n"
        "sys.exit(5)\n", encoding="utf-8")
    got = subprocess.run([sys.executable, "-m", "meteor_lite.cli", "as-java", "--", sys.executable, str(script)],
                         capture_output=True, text=True)
    assert got.returncode == 5, got.stderr
    shim_path, stats = got.stdout.splitlines()
    assert len(stats.split()) == 23 and not Path(shim_path).exists() and Path(shim_path).name == "java"
    missing = subprocess.run([sys.executable, "-m", "meteor_lite.cli", "as-java", "--", "no-such-command-here"],
                             capture_output=True, text=True)
    assert missing.returncode == 127 and "command not found: no-such-command-here" in missing.stderr


NO_BUNDLE = (
    "import sys\n"
    "import meteor_lite.resources.locate as locate\n"
    "locate._checkout_dir = lambda: None\n"
    "from meteor_lite.jarcli import console\n"
    "sys.argv = ['meteor-jar', *sys.argv[1:]]\n"
    "console()\n"
)


def test_a_stdio_client_with_no_bundle_reads_the_reason_and_does_not_hang(tmp_path: Path) -> None:
    """No English bundle and auto-install refused: every read of pycocoevalcap's exchange gets the one-line reason
    (an EVAL of three sets: four lines, as the jar answers), and the server ends when the client closes its end."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "empty"), "METEOR_LITE_NO_AUTO_INSTALL": "1"}
    env.pop("METEOR_LITE_BUNDLE_PATH", None)
    client = StdioClient([sys.executable, "-c", NO_BUNDLE, "-", "-", "-stdio", "-l", "en", "-norm"], cwd=tmp_path, env=env)
    first = client.ask("SCORE ||| a cat ||| the cat")
    evals = client.ask("EVAL ||| 1 ||| 2 ||| 3", 4)
    code, err = client.close()
    assert code == 1
    assert len(set(first + evals)) == 1 and first[0].startswith("meteor-jar: error: no resource bundle found for English")
    assert "bundle install en" in first[0] and err.strip() == first[0]


def test_first_use_builds_the_official_bundle_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the release installed and no bundle, the import runs once (one line on stderr says so) and the server
    answers; METEOR_LITE_NO_AUTO_INSTALL=1 refuses it."""
    pytest.importorskip("pycocoevalcap", reason="the release (pycocoevalcap, official extra) is what is imported")
    import io

    import meteor_lite.resources.locate as locate
    import meteor_lite_builders.official.user_install as user_install
    from meteor_lite.jarcli.firstuse import install_on_first_use

    monkeypatch.setattr(locate, "_checkout_dir", lambda: None)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("METEOR_LITE_BUNDLE_PATH", raising=False)
    calls: List[str] = []

    def fake_install(lang: str, **kw: object) -> Path:  # the real import takes a minute: its result is stood in for
        calls.append(lang)
        target = locate.user_bundle_dir() / f"{lang}.sqlite"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"")
        return target

    monkeypatch.setattr(user_install, "install_official", fake_install)
    monkeypatch.setenv("METEOR_LITE_NO_AUTO_INSTALL", "1")
    err = io.StringIO()
    assert install_on_first_use("en", err, "meteor-jar") is None and calls == [] and err.getvalue() == ""
    monkeypatch.delenv("METEOR_LITE_NO_AUTO_INSTALL")
    assert install_on_first_use("xx", err, "meteor-jar") is None and calls == []  # not a language of the release
    path = install_on_first_use("en", err, "meteor-jar")
    assert calls == ["en"] and path == str(tmp_path / "data" / "meteor-lite" / "bundles" / "en.sqlite")
    assert err.getvalue().count("\n") == 1 and "no English bundle yet: building it once" in err.getvalue()
    assert "METEOR_LITE_NO_AUTO_INSTALL=1 refuses" in err.getvalue()
    assert install_on_first_use("en", err, "meteor-jar") is None and calls == ["en"]  # found now: not again


# -- the new user's list -----------------------------------------------------------------------------------------


def _cli(*args: str, env: Optional[Dict[str, str]] = None) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, "-m", "meteor_lite.cli", *args], capture_output=True, text=True, env=env)


def test_the_jars_spellings_are_named_by_score(tmp_path: Path) -> None:
    """``meteor-lite score HYP REF -l en -norm``: a usage error naming --norm and meteor-jar."""
    (tmp_path / "h").write_text("a cat\n", encoding="utf-8")
    got = _cli("score", str(tmp_path / "h"), str(tmp_path / "h"), "-l", "en", "-norm")
    assert got.returncode == 2
    assert "-norm is the jar's spelling: here it is --norm" in got.stderr and "meteor-jar HYP REF -l en -norm" in got.stderr
    assert got.stderr.count("\n") == 1


def test_an_unknown_language_points_at_bundle_available(tmp_path: Path) -> None:
    (tmp_path / "h").write_text("a cat\n", encoding="utf-8")
    got = _cli("score", str(tmp_path / "h"), str(tmp_path / "h"), "--lang", "xx")
    assert got.returncode == 1 and "meteor-lite bundle available lists the languages bundle install installs" in got.stderr


@pytest.mark.parametrize("lang,says", [("th", "Thai has no bundle to install"),
                                       ("ar-bw-red", "Buckwalter Arabic (ar-bw-red) resources are inside the jar")])
def test_languages_with_no_bundle_to_install_say_so(lang: str, says: str) -> None:
    """The README's table lists th and ar-bw-red; bundle install says in one line why not and how to score them."""
    pytest.importorskip("meteor_lite_builders.recipes.shipped", reason="bundle install reads the shipped recipes")
    got = _cli("bundle", "install", lang)
    assert got.returncode == 1 and got.stderr.count("\n") == 1
    assert says in got.stderr and "--modules exact" in got.stderr


def test_bundle_available_marks_installed_bundles(tmp_path: Path) -> None:
    pytest.importorskip("meteor_lite_builders.recipes.shipped", reason="bundle available reads the shipped recipes")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    user = tmp_path / "data" / "meteor-lite" / "bundles"
    user.mkdir(parents=True)
    src = find_bundle("en")
    if src is None:
        pytest.skip("no English bundle: run `make bundles`")
    (user / "af.sqlite").symlink_to(src)  # any file of the name is found under it
    got = _cli("bundle", "available", env=env)
    assert got.returncode == 0, got.stderr
    here = [ln for ln in got.stdout.splitlines() if ln.startswith("installed here: ")]
    assert len(here) == 1 and "af (user dir)" in here[0] and "an (" not in here[0]
    if " nothing yet" in got.stdout:
        assert "'nothing yet': none of the recipe's sources is installed here" in got.stdout


def test_an_installed_official_import_is_kept_before_importing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``bundle install en`` with the release's import already in the user directory: kept at once, nothing built."""
    pytest.importorskip("pycocoevalcap", reason="bundle install en imports from the release")
    import meteor_lite_builders.official.user_install as user_install
    from meteor_lite.cli import bundles

    src = find_bundle("en")
    if src is None:
        pytest.skip("no English bundle: run `make bundles`")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    user = tmp_path / "data" / "meteor-lite" / "bundles"
    user.mkdir(parents=True)
    (user / "en.sqlite").symlink_to(src)

    def no_import(*a: object, **kw: object) -> None:
        raise AssertionError("the release was imported again")

    monkeypatch.setattr(user_install, "install_official", no_import)
    assert bundles.run(["install", "en"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"kept {user / 'en.sqlite'} (en ") and "--force imports it again and replaces it" in out


def test_as_java_passes_sigterm_on_and_removes_its_folder(tmp_path: Path) -> None:
    """SIGTERM to ``meteor-lite as-java`` ends the command (exit 143) and the shim's folder is still removed."""
    import signal

    ready = tmp_path / "ready"
    script = tmp_path / "wait.py"
    script.write_text("import pathlib, shutil, sys, time\n"
                      f"pathlib.Path({str(ready)!r}).write_text(shutil.which('java'))\n"
                      "time.sleep(120)\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "meteor_lite.cli", "as-java", "--", sys.executable, str(script)],
                            stderr=subprocess.PIPE)
    for _ in range(600):  # until the command runs (at most a minute)
        if ready.is_file() and ready.read_text():
            break
        proc.poll()
        assert proc.returncode is None, proc.stderr.read() if proc.stderr else ""
        time_sleep(0.1)
    shim = Path(ready.read_text())
    assert shim.is_file()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert not shim.exists() and not shim.parent.exists()


def time_sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)
