#!/usr/bin/env python3
"""core_rooms.py [SOURCE_DIR]: fails when a core/ file includes a header of a higher room.

core/ is split into rooms by concern, one folder each (core/<room>/, its private headers in
core/<room>/internal/), ordered from the bottom up in core_rooms.txt beside this script. A file
may include (#include "...") headers of its own room and of the rooms below it; an include of
a header in a higher room is a dependency pointing the wrong way and fails the test, as does
a core file outside every room, a room folder the list does not name, or an "allow" entry of
core_rooms.txt that no longer occurs. Headers outside core/ (common/, the libraries) are below
every room and not checked.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_rooms(path):
    """(rooms lowest first, {(file, header): why} of allowed includes) from core_rooms.txt."""
    rooms, allowed = [], {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("allow "):
            where, why = line[len("allow "):].split(":", 1)
            source, header = where.split()
            allowed[(source, header)] = why.strip()
        else:
            rooms.append(line.split()[0])
    return rooms, allowed


def core_files(core):
    """{path relative to core/: room} for every .c and .h under core/."""
    found = {}
    for top, _, names in os.walk(core):
        for name in names:
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(top, name), core)
                found[rel] = rel.split(os.sep)[0] if os.sep in rel else ""
    return found


def resolve(rel, header, by_name):
    """The core file (relative to core/) that #include "header" in core/rel names, or None."""
    beside = os.path.normpath(os.path.join(os.path.dirname(rel), header))
    if beside in by_name.get(os.path.basename(header), []):
        return beside
    matches = by_name.get(os.path.basename(header), [])
    return matches[0] if len(matches) == 1 else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(here))
    core = os.path.join(src, "core")
    rooms, allowed = read_rooms(os.path.join(here, "core_rooms.txt"))
    rank = {room: i for i, room in enumerate(rooms)}
    files = core_files(core)
    by_name = {}
    for rel in files:
        by_name.setdefault(os.path.basename(rel), []).append(rel)
    bad, used = [], set()
    for rel, room in sorted(files.items()):
        if room not in rank:
            bad.append("core/%s: not in a room (valid rooms, core_rooms.txt: %s)"
                       % (rel, ", ".join(rooms)))
            continue
        for number, line in enumerate(open(os.path.join(core, rel)), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(rel, m.group(1), by_name)
            if target is None or rank[files[target]] <= rank[room]:
                continue
            if (rel, os.path.basename(target)) in allowed:
                used.add((rel, os.path.basename(target)))
                continue
            bad.append("core/%s:%d: includes %s of room %s, above its room %s (order: %s)"
                       % (rel, number, m.group(1), files[target], room, " < ".join(rooms)))
    for source, header in sorted(set(allowed) - used):
        bad.append("core_rooms.txt: allow %s %s: no longer included, remove the entry"
                   % (source, header))
    for line in bad:
        print("core_rooms.py: " + line)
    if not bad:
        print("core_rooms.py: every core include points to its own room or one below (%s)"
              % " < ".join(rooms))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
