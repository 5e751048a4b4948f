"""Every setting name declared with a default in ``vcoder/``, and the names declared with more than one default.

Read from the source (no import): dataclass fields (those ``vcoder.names.carries`` generates included, with the
value object's default or the recipe's override), keyword defaults of public functions and methods, and
``add_argument`` defaults (``--flag`` -> its destination). A default that names a module constant is resolved through
the module's own constants and its ``from vcoder... import`` lines; anything else is kept as its source text.

Run ``python -m tests.defaults_inventory`` for the list (``--all`` for every name, ``--json`` for JSON);
``tests/test_vocabulary.py`` uses :func:`inventory` to hold one default per setting.
"""

from __future__ import annotations

import argparse
import ast
import json
import pathlib
from collections.abc import Iterator
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent / "vcoder"


@dataclass(frozen=True)
class Declaration:
    """One place a name is declared with a default: ``kind`` is ``field``, ``keyword`` or ``flag``."""

    name: str
    default: object
    kind: str
    where: str
    #: the default names a declaration (a constant, a value object's field) instead of writing a literal
    named: bool = False


_MISSING = object()


class _Unresolved(str):
    """A default kept as its source text (an expression the reader does not evaluate)."""


def _modules(root: pathlib.Path = ROOT) -> dict[str, ast.Module]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        out[module.removesuffix(".__init__")] = ast.parse(path.read_text(encoding="utf-8"))
    return out


class _Resolver:
    """Module constants (``NAME = literal`` at the top of a module) and the names each module imports from vcoder."""

    def __init__(self, modules: dict[str, ast.Module]):
        self.classes: dict[str, tuple[str, ast.ClassDef]] = {}
        self.functions: dict[str, dict[str, list[ast.FunctionDef]]] = {}
        self.constants: dict[str, dict[str, object]] = {}
        self.imports: dict[str, dict[str, tuple[str, str]]] = {}
        for module, tree in modules.items():
            consts, imports = {}, {}
            for node in tree.body:
                target, value = None, None
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    target, value = node.targets[0].id, node.value
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                    target, value = node.target.id, node.value
                if target is not None:
                    consts[target] = value
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
                    if isinstance(node.value, ast.Tuple) and len(node.value.elts) == len(node.targets[0].elts):
                        for t, v in zip(node.targets[0].elts, node.value.elts):
                            if isinstance(t, ast.Name):
                                consts[t.id] = v
            self.constants[module], self.imports[module] = consts, imports
            for node in ast.walk(tree):  # function-local imports too (the CLI imports lazily)
                if isinstance(node, ast.ImportFrom) and node.module:
                    for alias in node.names:
                        imports.setdefault(alias.asname or alias.name, (node.module, alias.name))
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, (module, node))
            self.functions[module] = {}
            for node in tree.body:
                if isinstance(node, ast.FunctionDef):
                    self.functions[module].setdefault(node.name, []).append(node)

    def _module_of(self, name: str, module: str) -> str | None:
        """The vcoder module a name imported into ``module`` stands for (``from vcoder.rendering import defaults``)."""
        owner, attr = self.imports.get(module, {}).get(name, (None, None))
        if owner and f"{owner}.{attr}" in self.constants:
            return f"{owner}.{attr}"
        return None

    def constant(self, name: str, module: str) -> tuple[ast.expr, str] | None:
        if name in self.constants.get(module, {}):
            return self.constants[module][name], module
        owner, attr = self.imports.get(module, {}).get(name, (None, None))
        if owner and attr in self.constants.get(owner, {}):
            return self.constants[owner][attr], owner
        return None

    def _made_field(self, call: ast.Call, module: str) -> tuple[ast.expr, str] | None:
        """The ``default=`` of the ``field(...)`` a vcoder function called by ``call`` returns."""
        name = _decorator_name(call)
        owner = self.imports.get(module, {}).get(name, (module, name))[0]
        for fn in self.functions.get(owner, {}).get(name, ()):
            for node in ast.walk(fn):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                    if _decorator_name(node.value) == "field":
                        for kw in node.value.keywords:
                            if kw.arg == "default":
                                return kw.value, owner
        return None

    def _class_default(self, cls: str, attr: str, depth: int) -> object:
        module, node = self.classes.get(cls, (None, None))
        for item in node.body if node else ():
            if isinstance(item, ast.AnnAssign) and getattr(item.target, "id", None) == attr and item.value:
                return _field_default(item.value, self, module)[1]
        return _MISSING

    def value(self, node: ast.AST | None, module: str, depth: int = 0, local: dict | None = None) -> object:
        if node is None:
            return None
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(node, ast.Name) and depth < 5 and (found := self.constant(node.id, module)):
            return self.value(found[0], found[1], depth + 1)
        if isinstance(node, ast.Call) and _decorator_name(node) == "_option" and node.args:  # rendering's fields
            return self.value(node.args[0], module, depth + 1)
        if isinstance(node, ast.Call) and _decorator_name(node) == "tuple" and len(node.args) == 1 and depth < 5:
            found = self.constant(node.args[0].id, module) if isinstance(node.args[0], ast.Name) else None
            if found and isinstance(found[0], ast.Dict):  # tuple(TEMPLATES): a mapping's keys
                return tuple(self.value(k, found[1], depth + 1) for k in found[0].keys)
        if isinstance(node, ast.Call) and depth < 5 and (made := self._made_field(node, module)):
            return self.value(made[0], made[1], depth + 1)  # gui_policy_field(...): a function returning a field
        if isinstance(node, ast.Name) and local and node.id in local and depth < 5:
            return self.value(local[node.id], module, depth + 1, local)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call) and depth < 5:
            default = self._class_default(_decorator_name(node.value), node.attr, depth)  # CaseLimits().deadline_ms
            if default is not _MISSING:
                return default
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and depth < 5:
            owner, name = self._module_of(node.value.id, module), node.value.id
            if owner and node.attr in self.constants[owner]:  # defaults.TIMEOUT_MS
                return self.value(self.constants[owner][node.attr], owner, depth + 1)
            found = (local[name], module) if local and name in local else self.constant(name, module)
            if found and isinstance(found[0], ast.Call):  # CASE_PAGE.timeout_ms, CASE_PAGE = RenderSpec(...)
                for kw in found[0].keywords:
                    if kw.arg == node.attr:
                        return self.value(kw.value, found[1], depth + 1)
                name = _decorator_name(found[0])
            default = self._class_default(name, node.attr, depth)  # CaseLimits.step_limit
            if default is not _MISSING:
                return default
        if isinstance(node, ast.BinOp) and depth < 5:  # 20 * 1000, MINUTE * 2
            left, right = self.value(node.left, module, depth + 1), self.value(node.right, module, depth + 1)
            if isinstance(left, (int, float)) and isinstance(right, (int, float)):
                try:
                    return ast.literal_eval(ast.BinOp(ast.Constant(left), node.op, ast.Constant(right)))
                except (ValueError, TypeError):
                    pass
        return _Unresolved(ast.unparse(node))


def _decorator_name(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _named(node: ast.expr | None) -> bool:
    """Whether a default is written as a reference (``CASE_PAGE.timeout_ms``) rather than a literal (``10_000``)."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return node is not None
    return False


def _field_default(value: ast.expr, resolve, module: str) -> tuple[bool, object, bool]:
    """(has a default, the default, named) of a dataclass field's right-hand side."""
    if isinstance(value, ast.Call) and _decorator_name(value) == "field":
        for kw in value.keywords:
            if kw.arg == "default":
                return True, resolve.value(kw.value, module), _named(kw.value)
        return False, None, False  # default_factory, or required
    return True, resolve.value(value, module), _named(value)


def _dataclasses(modules, resolve) -> dict[str, list[tuple[str, bool, object, bool]]]:
    """{class name: [(field, has default, default, named)]} of every dataclass in the package (own fields only)."""
    out = {}
    for module, tree in modules.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(_decorator_name(d) == "dataclass" for d in node.decorator_list):
                fields = []
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        if "ClassVar" in ast.unparse(item.annotation):
                            continue
                        has, default, named = (
                            _field_default(item.value, resolve, module) if item.value else (False, None, False)
                        )
                        fields.append((item.target.id, has, default, named))
                out[node.name] = fields
    return out


def _carried(call: ast.Call, classes, resolve, module: str) -> Iterator[tuple[str, object]]:
    """(flat name, default) of each field a ``@carries(prefix, Value, ...)`` decorator generates."""
    if len(call.args) < 2 or not isinstance(call.args[1], ast.Name) or call.args[1].id not in classes:
        return
    prefix = resolve.value(call.args[0], module)
    options = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    for kw in call.keywords:  # **_BUILDER_DEFAULTS, a module's dict(...) or {...} of the recipe's defaults
        found = resolve.constant(kw.value.id, module) if not kw.arg and isinstance(kw.value, ast.Name) else None
        if found and isinstance(found[0], ast.Call) and _decorator_name(found[0]) == "dict":
            options.update({k.arg: k.value for k in found[0].keywords if k.arg})
        elif found and isinstance(found[0], ast.Dict):
            options.update({resolve.value(k, module): v for k, v in zip(found[0].keys, found[0].values) if k})
    only = resolve.value(options.pop("only", None), module)
    skip = resolve.value(options.pop("skip", None), module) or ()
    options.pop("about", None)
    for name, has, default, _ in classes[call.args[1].id]:
        if (only is not None and name not in only) or name in skip:
            continue
        named = True  # the value object's own default, referenced
        if name in options:
            has, default, named = True, resolve.value(options[name], module), _named(options[name])
        if has:
            yield (f"{prefix}_{name}" if prefix else name), default, named


def _public(name: str) -> bool:
    return not name.startswith("_") or name == "__init__"


def declarations(root: pathlib.Path = ROOT) -> list[Declaration]:
    """Every declaration with a default in the package under ``root`` (see the module docstring)."""
    modules = _modules(root)
    resolve = _Resolver(modules)
    classes = _dataclasses(modules, resolve)
    found: list[Declaration] = []
    seen: set[ast.Call] = set()
    for module, tree in modules.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                if any(_decorator_name(d) == "dataclass" for d in node.decorator_list):
                    for name, has, default, named in classes.get(node.name, []):
                        if has:
                            found.append(Declaration(name, default, "field", f"{module}.{node.name}", named))
                for d in node.decorator_list:
                    if isinstance(d, ast.Call) and _decorator_name(d) == "carries":
                        for name, default, named in _carried(d, classes, resolve, module):
                            found.append(Declaration(name, default, "field", f"{module}.{node.name}", named))
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(item.name):
                        if _public(node.name):
                            found += _keywords(item, f"{module}.{node.name}.{item.name}", resolve, module)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(node.name):
                found += _keywords(node, f"{module}.{node.name}", resolve, module)
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local = {  # limits = CaseLimits(): a flag's default=limits.deadline_ms
                    n.targets[0].id: n.value
                    for n in ast.walk(fn)
                    if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
                }
                for node in ast.walk(fn):
                    if isinstance(node, ast.Call) and _decorator_name(node) == "add_argument" and node not in seen:
                        seen.add(node)
                        found += _flag(node, resolve, module, local)
    return found


def _keywords(fn, where: str, resolve, module: str) -> list[Declaration]:
    args = fn.args
    pairs = list(zip(args.args[len(args.args) - len(args.defaults) :], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    out = []
    for arg, default in pairs:
        value = resolve.value(default, module)
        if value is not None:
            out.append(Declaration(arg.arg, value, "keyword", f"{where}({arg.arg}=)", _named(default)))
    return out


def _flag(call: ast.Call, resolve, module: str, local: dict) -> list[Declaration]:
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    long = [n for n in names if n.startswith("--")]
    if not long:
        return []
    options = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    action = resolve.value(options.get("action"), module)
    if "default" in options:
        default = resolve.value(options["default"], module, local=local)
    elif action == "store_true":
        default = False
    else:
        return []
    if default is None or action in ("count", "help", "version") or default == "==SUPPRESS==":
        return []
    dest = resolve.value(options.get("dest"), module) or long[0][2:].replace("-", "_")
    if not isinstance(dest, str):
        return []
    return [Declaration(dest, default, "flag", f"{module}: {long[0]}", _named(options.get("default")))]


def normal(default: object) -> object:
    """One form per value: a sequence of strings as its comma-joined flag form (``("a", "b")`` == ``"a,b"``), other
    unhashable values as their repr."""
    if isinstance(default, (list, tuple)) and all(isinstance(v, str) for v in default):
        return ",".join(default)
    return repr(default) if isinstance(default, (list, dict, set)) else default


def several_defaults(found: list[Declaration]) -> dict[str, dict[object, list[str]]]:
    """{name: {default: places}} of each name declared with more than one distinct default (``None``, "not set: the
    owner's default applies", is no default)."""
    by: dict[str, dict[object, list[str]]] = {}
    for d in found:
        if d.default is not None:
            by.setdefault(d.name, {}).setdefault(normal(d.default), []).append(d.where)
    return {name: defaults for name, defaults in sorted(by.items()) if len(defaults) > 1}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--names", nargs="*", help="only these names")
    p.add_argument("--root", type=pathlib.Path, default=ROOT, help="the package folder (another checkout's vcoder/)")
    args = p.parse_args(argv)
    found = declarations(args.root)
    several = several_defaults(found)
    if args.names:
        several = {n: v for n, v in several.items() if n in args.names}
    if args.json:
        print(json.dumps({n: {repr(d): w for d, w in v.items()} for n, v in several.items()}, indent=1))
        return 0
    print(f"{len(found)} declarations of {len({d.name for d in found})} names; {len(several)} with several defaults")
    for name, defaults in several.items():
        print(f"{name}:")
        for default, places in defaults.items():
            print(f"    {default!r}: {', '.join(sorted(places))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
