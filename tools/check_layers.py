#!/usr/bin/env python3
"""check_layers.py: the source tree's layers, checked from its #include lines.

The engine is built in layers (ARCHITECTURE.md "Layout"); a file may include
the headers of its own folder and of the layers below it, never above:

  rank  folder                      what it holds
  0     engine/include/moreau/      the public C API (includes only itself)
  1     engine/core/, engine/kernels/  buffers, pools, errors' sizes; per-element math (also CUDA)
  2     collision/                  shapes, broadphase, narrowphase
  3     engine/solver/, engine/backend/  the assembled problem, the solvers; the CUDA module's loader
  3     engine/artic/               articulations in reduced coordinates
  4     engine/model/               the world and its objects
  5     engine/step/                one time step, a file per stage
  6     engine/io/                  FCLIB problems

Above the engine, scene/ (scene files, URDF, meshes, tet meshes), tools/,
viewer/, examples/, fuzz/ and python/ (the Python package's C extension) use only the public API (rank 0) and their own folder;
gpu/ (the CUDA module) only kernels/ and backend/cuda_module.h; tests/ may
include anything. Quoted and <...> includes that name a file of the tree count; every quoted
include must resolve to one,
and the file-level include graph must have no cycle.

Usage:
  tools/check_layers.py [ROOT]          check; exit 0 when clean, 1 with one line per violation
  tools/check_layers.py --dot [ROOT]    the folder-level include graph in Graphviz DOT (counts on edges)
  tools/check_layers.py --max-lines N [ROOT]
                                        also fail on a source file (outside tests/) over N lines
"""
import os
import re
import sys

RANK = [
    ("engine/include/moreau/", "public", 0),
    ("engine/core/", "core", 1),
    ("engine/kernels/", "kernels", 1),
    ("collision/", "collision", 2),
    ("engine/solver/", "solver", 3),
    ("engine/backend/", "backend", 3),
    ("engine/artic/", "artic", 3),
    ("engine/model/", "model", 4),
    ("engine/step/", "step", 5),
    ("engine/io/", "io", 6),
]
# folders above the engine: the public API and their own folder only
API_USERS = {"scene/": "scene", "tools/": "tools", "viewer/": "viewer", "examples/": "examples", "fuzz/": "fuzz",
             "python/": "python"}
SOURCE_EXT = (".c", ".h", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s+(?:"([^"]+)"|<([^>]+)>)')
# where a quoted include is looked for after the including file's own folder (the build's -I list)
SEARCH = ["engine", ".", "engine/include"]


def unit_of(path):
    """(unit name, rank or None, kind) of a path relative to the root"""
    for prefix, name, rank in RANK:
        if path.startswith(prefix):
            return name, rank, "engine"
    for prefix, name in API_USERS.items():
        if path.startswith(prefix):
            return name, None, "api-user"
    if path.startswith("gpu/"):
        return "gpu", None, "gpu"
    if path.startswith("tests/"):
        return "tests", None, "tests"
    return path.split("/")[0], None, "other"


def sources(root):
    out = []
    for top in ["engine", "collision", "scene", "tools", "viewer", "examples", "gpu", "tests", "fuzz", "python"]:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def resolve(root, src, inc):
    search = SEARCH + (["tests", "tools"] if src.startswith("tests/") else [])  # the tests' -I list adds these
    cands = [os.path.join(os.path.dirname(src), inc)] + [os.path.join(s, inc) for s in search]
    for c in cands:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(root, c)):
            return c
    return None


def allowed(src_unit, dst):
    """None when the edge src -> dst is allowed, else why not"""
    sname, srank, skind = src_unit
    dname, drank, dkind = unit_of(dst)
    if skind == "tests":
        return None
    if skind == "engine":
        if dkind != "engine":
            return "the engine includes %s/ (outside the engine)" % dname
        if drank > srank:
            return "upward: %s (rank %d) includes %s (rank %d)" % (sname, srank, dname, drank)
        if srank == 0 and drank != 0:
            return "the public API includes an internal header"
        return None
    if skind == "api-user":
        if dname == sname or dname == "public":
            return None
        return "%s/ uses only the public API, not %s/" % (sname, dname)
    if skind == "gpu":
        if dname in ("gpu", "kernels") or dst == "engine/backend/cuda_module.h":
            return None
        return "gpu/ includes only kernels/ and backend/cuda_module.h, not %s" % dst
    return None


def main(argv):
    dot = "--dot" in argv
    max_lines = None
    args = []
    i = 1
    while i < len(argv):
        if argv[i] == "--dot":
            pass
        elif argv[i] == "--max-lines":
            i += 1
            max_lines = int(argv[i])
        else:
            args.append(argv[i])
        i += 1
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    root = os.path.abspath(root)

    files = sources(root)
    problems = []
    graph = {}
    folder_edges = {}
    for src in files:
        su = unit_of(src)
        graph[src] = []
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
            for ln, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1) or m.group(2)
                dst = resolve(root, src, name)
                if dst is None:
                    if m.group(1):  # <...> that is no file of the tree: a system header
                        problems.append('%s:%d: "%s" is no file of the tree' % (src, ln, name))
                    continue
                graph[src].append(dst)
                why = allowed(su, dst)
                if why:
                    problems.append('%s:%d: includes "%s": %s' % (src, ln, name, why))
                du = unit_of(dst)
                if su[0] != du[0]:
                    folder_edges[(su[0], du[0])] = folder_edges.get((su[0], du[0]), 0) + 1

    # file-level cycles (iterative DFS, one report per cycle found)
    state = {}
    for start in graph:
        if state.get(start):
            continue
        stack = [(start, iter(graph.get(start, [])))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            s = state.get(nxt, 0)
            if s == 1:
                cyc = path[path.index(nxt):] + [nxt]
                problems.append("include cycle: " + " -> ".join(cyc))
            elif s == 0:
                state[nxt] = 1
                stack.append((nxt, iter(graph.get(nxt, []))))
                path.append(nxt)

    # folder-level cycles among the engine's layers and the folders above
    adj = {}
    for (a, b) in folder_edges:
        if a != "tests":
            adj.setdefault(a, set()).add(b)
    def reach(a, b, seen):
        if a == b:
            return True
        seen.add(a)
        return any(reach(n, b, seen) for n in adj.get(a, ()) if n not in seen)
    for (a, b) in sorted(folder_edges):
        if a != "tests" and reach(b, a, set()):
            problems.append("folder cycle: %s -> %s -> ... -> %s" % (a, b, a))

    if max_lines:
        for src in files:
            if src.startswith("tests/"):
                continue
            with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
                n = sum(1 for _ in f)
            if n > max_lines:
                problems.append("%s: %d lines (over %d)" % (src, n, max_lines))

    if dot:
        print("digraph moreau_includes {")
        print("  rankdir=BT; node [shape=box];")
        for (a, b), n in sorted(folder_edges.items()):
            if a != "tests":
                print('  "%s" -> "%s" [label=%d];' % (a, b, n))
        print("}")
    for p in problems:
        print(p)
    if not dot:
        print("check_layers: %d files, %d folder edges, %d problem(s)" % (len(files), len(folder_edges), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
