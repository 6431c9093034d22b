"""Nothing the wheel installs imports a module the wheel leaves out (``builders/checks/``, the tests, ...).

The wheel's modules are read from pyproject.toml's ``[tool.setuptools]`` table, the one the build uses:
``packages`` (an explicit list: a package's sub-directories are not taken unless listed) and ``package-dir``
(``meteor_lite_builders`` is ``builders/``).  Every import of every shipped module, at the top or inside a
function, is parsed with :mod:`ast` and resolved (relative imports too); one that names a module of this source
tree that is not shipped fails, unless the function holding it first asks ``importlib.util.find_spec`` for it (the
``check`` group of ``meteor-build``, registered only in a checkout).  Reads no file of ../shared.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
#: The top-level import names of this source tree (what an import must be checked against).
OURS = ("meteor_lite", "meteor_lite_builders")


def _setuptools() -> Tuple[List[str], Dict[str, str]]:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return list(cfg["packages"]), dict(cfg["package-dir"])


def _directory(package: str, package_dir: Dict[str, str]) -> Path:
    """Where ``package`` lives in the source tree, by the longest prefix ``package-dir`` maps (as setuptools)."""
    parts = package.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in package_dir:
            return ROOT / package_dir[prefix] / Path(*parts[n:])
    return ROOT / Path(*parts)


def _shipped_modules(packages: List[str], package_dir: Dict[str, str]) -> Dict[str, Path]:
    """Module name -> source file of every Python module the wheel installs (each listed package's own ``*.py``)."""
    out: Dict[str, Path] = {}
    for package in packages:
        for path in sorted(_directory(package, package_dir).glob("*.py")):
            out[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return out


def _in_tree(name: str, package_dir: Dict[str, str]) -> bool:
    """Whether ``name`` is a module or package of this source tree (shipped or not)."""
    here = _directory(name, package_dir)
    return here.with_suffix(".py").is_file() or (here / "__init__.py").is_file()


def _resolve(module: str, is_package: bool, level: int, target: Optional[str]) -> str:
    """The absolute name of ``from <level dots><target> import ...`` in ``module``."""
    if level == 0:
        return target or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _guards(func: ast.AST) -> Set[str]:
    """The module names a function asks ``find_spec`` about (``importlib.util.find_spec("...")``)."""
    out = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            if name == "find_spec" and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                out.add(node.args[0].value)
    return out


def _imports(module: str, path: Path) -> Iterator[Tuple[int, str, Set[str]]]:
    """(line, imported module or ``package.name``, guards in force) for every import of a source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST, guards: Set[str]) -> Iterator[Tuple[int, str, Set[str]]]:
        for child in ast.iter_child_nodes(node):
            inner = guards | _guards(child) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else guards
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield child.lineno, alias.name, inner
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(module, is_package, child.level, child.module)
                yield child.lineno, base, inner
                for alias in child.names:
                    if alias.name != "*":
                        yield child.lineno, f"{base}.{alias.name}", inner
            yield from visit(child, inner)

    yield from visit(tree, set())


def violations(shipped: Dict[str, Path], package_dir: Dict[str, str]) -> List[str]:
    """``file:line: imports X`` for each import of a shipped module naming a module of the tree the wheel leaves out."""
    out = []
    for module, path in sorted(shipped.items()):
        for line, name, guards in _imports(module, path):
            if name.split(".")[0] not in OURS or name in shipped or not _in_tree(name, package_dir):
                continue  # the standard library, a dependency, a shipped module, or a name inside a module
            if any(name == g or name.startswith(g + ".") for g in guards):
                continue  # asked for with find_spec first: imported only where it is installed
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            out.append(f"{shown}:{line}: imports {name}, which the wheel leaves out")
    return out


def test_the_package_list_names_existing_packages_and_leaves_the_checks_out() -> None:
    packages, package_dir = _setuptools()
    missing = [p for p in packages if not _directory(p, package_dir).is_dir()]
    assert not missing, missing
    shipped = _shipped_modules(packages, package_dir)
    assert "meteor_lite.meteor" in shipped and "meteor_lite_builders.tune.tasks" in shipped
    # the checks are in the tree but not in the wheel: the test below has something to catch
    assert _in_tree("meteor_lite_builders.checks.cli", package_dir) and "meteor_lite_builders.checks.cli" not in shipped


def test_no_shipped_module_imports_what_the_wheel_leaves_out() -> None:
    packages, package_dir = _setuptools()
    found = violations(_shipped_modules(packages, package_dir), package_dir)
    assert not found, "\n".join(found)


def test_the_checker_finds_an_import_inside_a_function_and_honours_find_spec(tmp_path: Path) -> None:
    """The checker itself: a relative import in a function body is caught; one guarded by find_spec is not."""
    _, package_dir = _setuptools()
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from ..checks import paths\n    return paths\n", encoding="utf-8")
    guarded = tmp_path / "guarded.py"
    guarded.write_text(
        "import importlib.util\n\n\ndef f():\n"
        "    if importlib.util.find_spec('meteor_lite_builders.checks') is None:\n        return None\n"
        "    from ..checks import paths\n    return paths\n", encoding="utf-8")
    found = violations({"meteor_lite_builders.tune.bad": bad, "meteor_lite_builders.tune.guarded": guarded}, package_dir)
    # line 2 of bad.py: the package (checks) and the module (checks.paths), both left out; nothing of guarded.py
    assert found == [f"{bad}:2: imports meteor_lite_builders.checks, which the wheel leaves out",
                     f"{bad}:2: imports meteor_lite_builders.checks.paths, which the wheel leaves out"], found
