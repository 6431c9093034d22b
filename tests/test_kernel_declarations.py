"""The compiled kernels are declared once: the C method table of meteor_lite/_accel.c is what ``accel.Kernels``
declares, with the same arguments, and ``meteor_lite/_accel.pyi`` is generated from ``accel.Kernels``.

Regenerate the stub after changing ``accel.Kernels``: ``python tests/test_kernel_declarations.py --write``.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Dict, List, Tuple

PACKAGE = Path(__file__).resolve().parent.parent / "meteor_lite"
SOURCE = PACKAGE / "_accel.c"
STUB = PACKAGE / "_accel.pyi"
ACCEL = PACKAGE / "accel.py"

STUB_HEAD = '''"""Type stub of the optional compiled kernels (meteor_lite/_accel.c; see meteor_lite/accel.py).

Generated from meteor_lite/accel.py's ``Kernels`` (python tests/test_kernel_declarations.py --write): do not edit.
"""

from typing import Any, Dict, FrozenSet, Hashable, List, Optional, Sequence, Set, Tuple, Union

'''


def method_table() -> Dict[str, str]:
    """The C method table: name -> calling convention (METH_VARARGS, METH_O, METH_NOARGS)."""
    text = SOURCE.read_text(encoding="utf-8")
    table = text[text.index("static PyMethodDef methods[]") :]
    table = table[: table.index("{NULL, NULL, 0, NULL}")]
    return dict(re.findall(r'\{"(\w+)",\s*\w+,\s*(METH_\w+)', table))


def module_constants() -> List[str]:
    text = SOURCE.read_text(encoding="utf-8")
    return sorted(re.findall(r'PyModule_Add\w+Constant\(m, "(\w+)"', text))


def kernels_class() -> ast.ClassDef:
    tree = ast.parse(ACCEL.read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Kernels")


def _methods(cls: ast.ClassDef) -> List[ast.FunctionDef]:
    return [n for n in cls.body if isinstance(n, ast.FunctionDef)]


def _constants(cls: ast.ClassDef) -> List[Tuple[str, str]]:
    return [(n.target.id, ast.unparse(n.annotation)) for n in cls.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]


def generated_stub() -> str:
    """The stub ``accel.Kernels`` declares: its constants, and each method as a module function (no ``self``)."""
    cls = kernels_class()
    lines = [f"{name}: {ann}" for name, ann in _constants(cls)]
    lines.append("")
    for fn in _methods(cls):
        args = fn.args
        args.posonlyargs = [a for a in args.posonlyargs if a.arg != "self"]
        args.args = [a for a in args.args if a.arg != "self"]
        stub = ast.FunctionDef(name=fn.name, args=args, body=[ast.Expr(ast.Constant(...))], decorator_list=[],
                               returns=fn.returns, type_comment=None, type_params=[])
        lines.append(ast.unparse(ast.fix_missing_locations(stub)).replace("\n    ...", " ..."))
    return STUB_HEAD + "\n".join(lines) + "\n"


def _positional(fn: ast.FunctionDef) -> Tuple[int, int]:
    """(required, total) positional parameters besides ``self``."""
    params = [a for a in fn.args.posonlyargs + fn.args.args if a.arg != "self"]
    return len(params) - len(fn.args.defaults), len(params)


def test_the_method_table_is_what_kernels_declares() -> None:
    table = method_table()
    methods = {fn.name: fn for fn in _methods(kernels_class())}
    assert sorted(table) == sorted(methods), "the C method table and accel.Kernels name different kernels"
    for name, convention in table.items():
        required, total = _positional(methods[name])
        if convention == "METH_NOARGS":
            assert total == 0, name
        elif convention == "METH_O":
            assert (required, total) == (1, 1), name
        else:
            assert convention == "METH_VARARGS" and total >= 1, name
    assert module_constants() == sorted(name for name, _ in _constants(kernels_class()))


def test_the_stub_is_generated_from_kernels() -> None:
    assert STUB.read_text(encoding="utf-8") == generated_stub(), "python tests/test_kernel_declarations.py --write"


def test_the_header_comment_names_only_kernels_and_functions_that_exist() -> None:
    """The kernels listed in _accel.c's opening comment are in the method table."""
    text = SOURCE.read_text(encoding="utf-8")
    head = text[: text.index("*/")]
    listed = re.findall(r"^ \*   (\w+)", head, flags=re.M)
    assert listed and set(listed) <= set(method_table()), set(listed) - set(method_table())


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        STUB.write_text(generated_stub(), encoding="utf-8")
    else:
        sys.stdout.write(generated_stub())
