#!/usr/bin/env python3
"""core_rooms.py [SOURCE_DIR]: fails when a core/ file includes a header of a higher room.

core/ is split into rooms by concern, one folder each (core/<room>/, its private headers in
core/<room>/internal/), ordered from the bottom up in core_rooms.txt beside this script. A file
may include (#include "...") headers of its own room and of the rooms below it; an include of
a header in a higher room is a dependency pointing the wrong way and fails the test, as does
a core file outside every room, a room folder the list does not name, an "allow" entry of
core_rooms.txt that no longer occurs, or a room table in doc/design.md ("Rooms of the core")
that differs from the list. Headers outside core/ (common/, the libraries) are below
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
    """The core files (relative to core/) that #include "header" in core/rel may name: the
    one beside it, else every core file of that name (none: a header from outside core/)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(rel), header))
    matches = by_name.get(os.path.basename(header), [])
    return [beside] if beside in matches else matches


def check(core, rooms, allowed, plant=None):
    """The findings over core/: every include pointing up, not allowed, and more. plant, a
    (file, header) pair, adds #include "header" to that file as if it were written there."""
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
        lines = open(os.path.join(core, rel)).read().splitlines()
        if plant and plant[0] == rel:
            lines.append('#include "%s"' % plant[1])
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            targets = resolve(rel, m.group(1), by_name)
            if len(targets) > 1:
                bad.append("core/%s:%d: %s names %s: one name, one core file (rename one)"
                           % (rel, number, m.group(1), ", ".join("core/" + t for t in targets)))
                continue
            if not targets or rank.get(files[targets[0]], -1) <= rank[room]:
                continue
            target = targets[0]
            if (rel, os.path.basename(target)) in allowed:
                used.add((rel, os.path.basename(target)))
                continue
            bad.append("core/%s:%d: includes %s of room %s, above its room %s (order: %s)"
                       % (rel, number, m.group(1), files[target], room, " < ".join(rooms)))
    for source, header in sorted(set(allowed) - used):
        bad.append("core_rooms.txt: allow %s %s: no longer included, remove the entry"
                   % (source, header))
    return bad


def plant_for(core, rooms):
    """A file of the lowest room with files and a header of the highest room with headers."""
    by_room = {}
    for rel, room in sorted(core_files(core).items()):
        by_room.setdefault(room, []).append(rel)
    low = next(by_room[r][0] for r in rooms if r in by_room)
    high = next(h for r in reversed(rooms) for h in by_room.get(r, []) if h.endswith(".h"))
    return low, os.path.basename(high)


def design_rooms(path):
    """The rooms, in order, of the table in doc/design.md's section "Rooms of the core"."""
    found, inside = [], False
    for line in open(path):
        if line.startswith("## "):
            inside = line.strip() == "## Rooms of the core"
        m = re.match(r"\| `([a-z]+)` \|", line)
        if inside and m:
            found.append(m.group(1))
    return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(here))
    core = os.path.join(src, "core")
    rooms, allowed = read_rooms(os.path.join(here, "core_rooms.txt"))
    bad = check(core, rooms, allowed)
    said = design_rooms(os.path.join(src, "doc", "design.md"))
    if said != rooms:
        bad.append("doc/design.md, \"Rooms of the core\": its table lists %s; core_rooms.txt"
                   " orders %s: the same rooms in the same order" % (", ".join(said) or "nothing",
                                                                    ", ".join(rooms)))
    # The check must be able to fail: an include planted in the lowest room, of a header of
    # the highest, has to be found (it is never written to the file).
    plant = plant_for(core, rooms)
    if not any(line.startswith("core/%s:" % plant[0]) and plant[1] in line
               for line in check(core, rooms, allowed, plant)):
        bad.append("the check missed an include of %s planted in core/%s" % (plant[1], plant[0]))
    for line in bad:
        print("core_rooms.py: " + line)
    if not bad:
        print("core_rooms.py: every core include points to its own room or one below (%s);"
              " a planted core/%s -> %s was found" % (" < ".join(rooms), plant[0], plant[1]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
