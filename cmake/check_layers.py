#!/usr/bin/env python3
"""The library's layers call only downward, and no two files call each other in a circle.

Reads the object files given on the command line with `nm`: file A depends on file B when A
uses a symbol B defines. Each source file belongs to a layer by its directory (below); a
dependency on a higher layer fails, and so does any dependency cycle between files, with no
exception (an algorithm with phases calls down into the planner for its child plans; the
planner reaches the algorithms only through the table of function pointers handed to it,
which no symbol shows). Prints the dependencies it found per layer and exits 1 on a
violation.
"""
import os
import re
import subprocess
import sys

# Lower numbers are lower layers. A file may use files of its own layer or below.
LAYERS = [
    ("core", 0), ("index", 1), ("bmmc/gf2", 2), ("bmmc/factor", 2), ("bmmc/api", 2),
    ("device", 2),
    ("model", 3), ("exec", 4), ("coll", 5), ("planner", 6), ("algo", 7), ("bmmc/perform", 7),
    ("api", 8), ("tools", 9),  # the command-line tool (tools/*.c), when its objects are given too
]


def source_of(obj):
    """'.../redist_objects.dir/src/algo/direct.c.o' -> 'algo/direct', and the tool's
    '.../redist_tool.dir/tools/cmd_run.c.o' -> 'tools/cmd_run': the path after the last '.dir/'
    (CMake's folder of the target's objects; the checkout itself may sit in a directory called
    src)."""
    m = re.search(r".*\.dir/(src|tools)/(.+)\.c\.o$", obj)
    if m is None:
        return None
    return m.group(2) if m.group(1) == "src" else "tools/" + m.group(2)


def layer_of(src):
    for prefix, rank in LAYERS:
        if src == prefix or src.startswith(prefix + "/"):
            return rank
    return None


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRC" and not parts[2].startswith("."):
            defined.add(parts[2])
    return defined, used


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on_stack, result, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                result.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def main(objs):
    files = {}
    for obj in objs:
        src = source_of(obj)
        if src is not None:
            files[src] = symbols(obj)
    if not files:
        print("check_layers: no object files given")
        return 1
    owner = {}
    for src, (defined, _) in files.items():
        for s in defined:
            owner[s] = src
    graph, errors = {}, []
    for src, (_, used) in sorted(files.items()):
        if layer_of(src) is None:
            errors.append(f"{src}: in no layer (add its directory to LAYERS)")
            continue
        for s in sorted(used):
            dep = owner.get(s)
            if dep is None or dep == src:
                continue
            graph.setdefault(src, set()).add(dep)
            if layer_of(dep) > layer_of(src):
                errors.append(f"{src} (layer {layer_of(src)}) uses {s} from {dep} "
                              f"(layer {layer_of(dep)}): an upward call")
    for comp in cycles(graph):
        errors.append("a dependency cycle between files: " + " -> ".join(comp))
    for src in sorted(graph):
        print(f"  {src}: {', '.join(sorted(graph[src]))}")
    for e in errors:
        print("FAIL: " + e)
    print(f"check_layers: {len(files)} files, "
          f"{sum(len(v) for v in graph.values())} file dependencies, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
