"""An import-linter contract: no module uses another module's ``_private`` names.

import-linter's built-in contracts check which modules import which; this one checks *what* is taken.
A name starting with one underscore is private to the module that defines it, so another module may
neither import it (``from .tensor import _is_float``) nor reach it through a module it imported
(``debug._checking``). Dunder names (``__version__``) are public. Every import counts, including those
inside functions, as import-linter's own graph does.
"""
from __future__ import annotations

import ast
import pathlib

from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_files(package: str, graph) -> dict:
    """Module name -> source file, for the modules of ``package`` in the graph (found without importing)."""
    roots = [pathlib.Path(p) / package for p in ("src", ".")]
    root = next((r for r in roots if (r / "__init__.py").exists()), None)
    if root is None:
        raise FileNotFoundError(f"no_private_imports: cannot find package {package!r} under src/ or ./")
    files = {}
    for module in graph.find_descendants(package) | {package}:
        rel = module.split(".")[1:]
        path = root.joinpath(*rel)
        files[module] = path / "__init__.py" if (path / "__init__.py").exists() else path.with_suffix(".py")
    return files


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module name a ``from ... import`` statement in ``module`` reads from."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def violations_in(module: str, path: pathlib.Path, known_modules: set) -> list:
    """(line, text) for each private name ``module`` takes from another module."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    found, module_aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(module, is_package, node)
            for alias in node.names:
                if f"{source}.{alias.name}" in known_modules:  # a module: remember its local name
                    module_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                elif _private(alias.name) and source != module:
                    found.append((node.lineno, f"imports {alias.name} from {source}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in known_modules:
                    module_aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in module_aliases and _private(node.attr)
                and module_aliases[node.value.id] != module):
            found.append((node.lineno, f"uses {module_aliases[node.value.id]}.{node.attr}"))
    return sorted(set(found))


class NoPrivateImportsContract(Contract):
    type_name = "no_private_imports"

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph, verbose: bool) -> ContractCheck:
        problems = []
        for package in self.packages:
            files = _module_files(package, graph)
            known = set(files)
            for module, path in sorted(files.items()):
                if path.exists():
                    problems += [(module, line, text) for line, text in violations_in(module, path, known)]
        return ContractCheck(kept=not problems, metadata={"problems": problems})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for module, line, text in check.metadata["problems"]:
            output.print_error(f"{module} (l.{line}) {text}", bold=False)
        output.new_line()
        output.print("Make the name public in the module that defines it (or move it), then import that.")
