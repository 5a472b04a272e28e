#!/usr/bin/env python3
"""call_loops.py BUILD_DIR: fails when source files call each other in a loop.

Within each library and program of the build (tests excepted), file A "calls" file B when
A's object leaves a symbol undefined that B's object defines (nm). A loop of such calls
(A -> B -> A, or longer) means one of the files does two jobs; the fix is to split it so
that calls run one way. Every loop is printed with its files, and the exit status is 1.
The objects are the ones this build's compile_commands.json names, so a stale object of
a removed file does not count.
"""
import collections
import json
import os
import re
import subprocess
import sys


def objects(build):
    """{target: {source path: object path}} for every C file the build compiles."""
    found = collections.defaultdict(dict)
    for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
        m = re.search(r"\s-o\s+(\S+)", entry["command"])
        if not m:
            continue
        obj = os.path.normpath(os.path.join(entry["directory"], m.group(1)))
        t = re.search(r"CMakeFiles/([^/]+)\.dir/", obj)
        if t and "/tests/" not in obj:
            found[t.group(1)][entry["file"]] = obj
    return found


def symbols(obj):
    """(defined, undefined) symbol names of one object."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRBC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def loops(edges):
    """The strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    build, src = sys.argv[1], os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    bad = 0
    for target, files in sorted(objects(build).items()):
        owner, uses = {}, {}
        for source, obj in files.items():
            if not os.path.exists(obj):
                continue
            defined, uses[source] = symbols(obj)
            for name in defined:
                owner[name] = source
        edges = collections.defaultdict(set)
        for source, names in uses.items():
            edges[source]
            for name in names:
                if owner.get(name, source) != source:
                    edges[source].add(owner[name])
        for component in loops(edges):
            bad += 1
            names = [os.path.relpath(f, src) for f in component]
            print("call_loops.py: %s: %s call each other in a loop" % (target, ", ".join(names)))
    if not bad:
        print("call_loops.py: no source files call each other in a loop")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
