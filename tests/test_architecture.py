"""The map of docs/architecture.md, checked: layers of the scorer, no import cycles, core dependencies.

Every ``import`` of every module (module-level and inside functions) is read with :mod:`ast`;
nothing is imported or run.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"meteor_lite": ROOT / "meteor_lite", "meteor_lite_builders": ROOT / "builders"}

#: Layers of meteor_lite (docs/architecture.md): a module imports only from its own layer or below.
#: Keys are module names relative to the package; a key ending in "." stands for a whole sub-package.
CORE_LAYERS: Dict[str, int] = {
    "errors": 0, "version": 0, "jarcompat": 0, "languages": 0, "accel": 0, "gcpause": 0, "atomicfile": 0,
    "printable": 0, "scratch": 0, "cappedlines": 0,
    "text.": 1, "inputs": 1, "stemmers.": 1,
    "resources.": 2,
    "align.": 3,
    "align.modules": 0,  # the matcher modules' registry (standard library only; the languages table reads it)
    "stats": 4, "config": 4, "tuned": 4, "defaults": 4,
    "scores": 5, "report": 5, "scoring": 5, "pairwise": 5, "signature": 5, "configure": 5, "parallel": 5, "metaeval.": 5,
    "compare.": 5,
    "meteor": 6,
    "cli.": 7, "jarcli.": 7, "coco": 7, "hf": 7, "metrics": 7, "alignview": 7, "spark.": 7, "compare.htmlreport": 7,
}

#: What the scorer may import from outside the standard library (typer nowhere: its CLI is argparse).
CORE_THIRD_PARTY = {"snowballstemmer"}
#: Optional packages a core module may import lazily (module, package).
OPTIONAL_IMPORTS = {
    ("meteor_lite.text.tokenizers", "jieba"), ("meteor_lite.text.tokenizers", "fugashi"),
    ("meteor_lite.text.tokenizers", "pythainlp"), ("meteor_lite.text.tokenizers", "kiwipiepy"),
    ("meteor_lite.resources.install", "zstandard"),
    # the spark extra: pyspark only inside meteor_lite/spark/, imported in the functions that need it
    ("meteor_lite.spark.scoring", "pyspark"), ("meteor_lite.spark.executor", "pyspark"), ("meteor_lite.spark.submit", "pyspark"),
}


def _modules(package: str) -> Dict[str, Path]:
    base = PACKAGES[package]
    out: Dict[str, Path] = {}
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(base).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        out[".".join([package] + parts)] = path
    return out


def _imports(module: str, path: Path) -> Iterator[Tuple[str, int]]:
    """Absolute names of what ``module`` imports, with the line (relative imports resolved)."""
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            yield prefix, node.lineno
            for alias in node.names:  # `from . import x` may name a submodule
                yield f"{prefix}.{alias.name}", node.lineno


def _graph(package: str) -> Dict[str, Set[str]]:
    mods = _modules(package)
    graph: Dict[str, Set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for name, _ in _imports(m, path):
            target = name
            while target and target not in mods:
                target = target.rpartition(".")[0]
            if target and target != m and not m.startswith(target + "."):
                graph[m].add(target)
    return graph


def _layer(module: str) -> int:
    rel = module.split(".", 1)[1] if "." in module else ""
    for key, layer in sorted(CORE_LAYERS.items(), key=lambda kv: -len(kv[0])):
        if rel == key or (key.endswith(".") and (rel + ".").startswith(key)):
            return layer
    raise AssertionError(f"{module} has no layer in tests/test_architecture.py (add it, and to docs/architecture.md)")


def _cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_cycles(package: str) -> None:
    assert _cycles(_graph(package)) == []


def test_core_modules_import_only_their_layer_or_below() -> None:
    graph = _graph("meteor_lite")
    wrong = [
        f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
        for m, targets in graph.items() if m != "meteor_lite"
        for t in targets if t != "meteor_lite" and _layer(t) > _layer(m)
    ]
    assert wrong == []


def test_core_imports_no_builders_and_only_snowballstemmer_outside_stdlib() -> None:
    import sys

    stdlib = set(sys.stdlib_module_names)
    bad = []
    for m, path in _modules("meteor_lite").items():
        for name, line in _imports(m, path):
            top = name.split(".")[0]
            if top in ("meteor_lite", "") or top in stdlib or top in CORE_THIRD_PARTY:
                continue
            if (m, top) in OPTIONAL_IMPORTS:
                continue  # imported lazily where used, with an error naming the package when it is missing
            bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert bad == []


def test_pyspark_only_inside_meteor_lite_spark_and_never_at_module_level() -> None:
    """The scorer runs without pyspark: only meteor_lite.spark imports it, inside functions (docs/spark.md)."""
    for m, path in _modules("meteor_lite").items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n.split(".")[0] == "pyspark" for n in names):
                assert m.startswith("meteor_lite.spark."), f"{m} imports pyspark"
                assert id(node) not in top_level, f"{m}:{node.lineno} imports pyspark at module level"


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
