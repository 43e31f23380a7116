"""The layout of the hp package: its modules' imports form no circle.

Every import counts, at module level or inside a function (a deferred
import is still a dependency). ``import hp`` and ``from hp import x`` of a
name the package's ``__init__`` defines depend on ``__init__``; ``from hp
import _mod`` and ``import hp._mod`` on ``_mod``."""

import ast
import os

import hp

PACKAGE = os.path.dirname(hp.__file__)


def modules():
    return sorted(f[:-3] for f in os.listdir(PACKAGE)
                  if f.endswith(".py") and not f.startswith("."))


def imports_of(name, known):
    """The hp modules that module ``name`` imports."""
    with open(os.path.join(PACKAGE, name + ".py")) as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "hp":
                    found.add(parts[1] if len(parts) > 1 and parts[1] in known
                              else "__init__")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x / from .x import y
                parts = base.split(".") if base else []
            elif base.split(".")[0] == "hp":
                parts = base.split(".")[1:]
            else:
                continue
            if parts and parts[0] in known:
                found.add(parts[0])
            else:
                for alias in node.names:
                    found.add(alias.name if alias.name in known else "__init__")
    found.discard(name)
    return found


def find_cycle(graph):
    """A circle of ``graph`` as a list of modules, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == "open":
                return stack[stack.index(m):] + [m]
            if m not in state:
                cycle = visit(m)
                if cycle:
                    return cycle
        state[n] = "done"
        stack.pop()
        return None

    for n in sorted(graph):
        if n not in state:
            cycle = visit(n)
            if cycle:
                return cycle
    return None


def test_the_package_imports_form_no_circle():
    known = set(modules()) | {"_hp"}
    graph = {m: imports_of(m, known) & set(modules()) for m in modules()}
    assert graph["torch"] >= {"_session", "_train", "_generate", "_torch_export"}
    cycle = find_cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_the_circle_finder_finds_a_circle():
    # The check above could pass by finding nothing at all.
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
