"""No import cycles in piview, counting imports inside functions too.

import-linter sees only the layers between packages; a cycle between two
modules of one package, or one hidden by an import inside a function, passes
it. This test builds the module graph from every ``import`` / ``from ...
import`` anywhere in each module (top level and inside functions; imports
under ``if TYPE_CHECKING:`` are left out, they never run), finds the strongly
connected components (Tarjan) and fails on any component not in the
allow-list below. The allow-list can only shrink: an entry that is no longer
a cycle fails too, so it gets deleted.

It also counts the imports inside functions: a lazy import is fine for
start-up time, but it must not hide a cycle, and the count may only go down.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "piview"

# Cycles allowed for now (issue #28, part 6: none are left). Each entry is one strongly
# connected component, as a frozenset of module names. New cycles fail; a broken one must
# be removed from here.
ALLOWED_CYCLES: set[frozenset[str]] = set()

# Imports inside function bodies (not counting TYPE_CHECKING blocks). May only
# go down: lower it when you remove one.
# +2 (#29): `piview -` imports the app (Textual) and the stream (msgspec) only when used.
# +5 (#30): enter on a subagent call (its rows, the child's load, the list of children), the
# sidebar's subagents and P's call site are imported when used, not with the first screen.
# +1 (#31): `piview timeline` imports its Rich formatter only without --json, as `context` does.
# +2 (#31): the timeline screen imported when `w` first opens it (as the other views), and
# the export's SVG pictures only when writing HTML; +1 its timeline built ahead for `w`.
MAX_FUNCTION_IMPORTS = 160


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(
    tree: ast.AST, in_func: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Yield (node, inside_function, under_type_checking) for every import."""
    stack: list[tuple[ast.AST, bool, bool]] = [(tree, in_func, False)]
    while stack:
        node, func, tc = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, func, tc
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                stack.append((child, func, True))
            for child in node.orelse:
                stack.append((child, func, tc))
            continue
        is_func = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            stack.append((child, func or is_func, tc))


def _resolve(
    node: ast.Import | ast.ImportFrom, module: str, is_pkg: bool, modules: set[str]
) -> set[str]:
    """The piview modules one import statement loads."""
    targets: set[str] = set()

    def add(name: str) -> None:
        # ``import a.b.c`` loads a, a.b and a.b.c; the edge that matters is to
        # the deepest piview module named.
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            targets.add(name)

    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == "piview":
                add(alias.name)
        return targets
    if node.level:
        base = module.split(".")
        if not is_pkg:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    if prefix.split(".")[0] != "piview":
        return targets
    for alias in node.names:
        sub = f"{prefix}.{alias.name}"
        add(sub if sub in modules else prefix)
    return targets


def build_graph() -> tuple[dict[str, set[str]], int, list[str]]:
    """(module -> imported piview modules, function-level import count,
    TYPE_CHECKING-only edges as text)."""
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    func_imports = 0
    tc_edges: list[str] = []
    for mod, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_pkg = path.name == "__init__.py"
        for node, in_func, tc in _imports(tree):
            targets = _resolve(node, mod, is_pkg, modules)
            if tc:
                tc_edges.extend(f"{mod} -> {t}" for t in sorted(targets))
                continue
            if in_func:
                func_imports += 1
            graph[mod] |= targets
    # The registry of kinds imports each kind's role module by name when first drawn.
    from piview.render.kinds import KINDS

    graph["piview.render.kinds"] |= {f"piview.render.roles.{k.module}" for k in KINDS}
    return graph, func_imports, tc_edges


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    comp: list[str] = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return sorted(out)


def test_tarjan_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(graph) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    graph, func_imports, tc_edges = build_graph()
    comps = strongly_connected(graph)
    print(f"function-level imports: {func_imports}")
    print(f"TYPE_CHECKING-only edges (not counted): {len(tc_edges)}")
    new = [c for c in comps if frozenset(c) not in ALLOWED_CYCLES]
    gone = [sorted(c) for c in ALLOWED_CYCLES if list(sorted(c)) not in comps]
    for comp in comps:
        print("cycle:", " <-> ".join(comp))
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in new)
    assert not gone, "cycles broken, drop them from ALLOWED_CYCLES:\n" + "\n".join(
        " <-> ".join(c) for c in gone
    )


def test_function_level_imports_do_not_grow() -> None:
    _, func_imports, _ = build_graph()
    assert func_imports <= MAX_FUNCTION_IMPORTS, (
        f"{func_imports} imports inside functions, recorded {MAX_FUNCTION_IMPORTS}:"
        " import at top level (or lower MAX_FUNCTION_IMPORTS if it went down)"
    )
