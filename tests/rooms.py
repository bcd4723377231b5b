#!/usr/bin/env python3
"""The rooms of the code stay as docs/architecture.md draws them.

Reads the table "Who may include whom" in docs/architecture.md (the one statement of the rules)
and checks every #include "..." of every .c and .h under basic/, formatters/, ipc/ and daemon/
against it; then the rules that hold whatever the table says: nothing in ipc/ or formatters/
includes daemon/, basic/ includes nothing outside basic/, only the loop side includes <uv.h>,
daemon/'s top has at most 14 .c files, and every folder with code is one meson library.

Usage: rooms.py [SOURCE_ROOT]   (default: the folder above this script's)
Prints each breach on a line of its own and exits 1 when there is any.
"""

import os
import re
import sys

ROOMS = ("basic", "formatters", "ipc", "daemon")
LOOP_SIDE = {"daemon/", "daemon/request/", "daemon/mcp/", "daemon/cli/", "daemon/vision/"}
DAEMON_TOP_MAX_C = 14
TABLE_TITLE = "### Who may include whom"

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
TICKED = re.compile(r"`([^`]+)`")


def folder_of(path):
    """'daemon/request/request.c' -> 'daemon/request/'."""
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


def parse_table(doc_text):
    """The table's lines: {room or file: set of folders ('x/') and files it may include}."""
    start = doc_text.find(TABLE_TITLE)
    if start < 0:
        raise SystemExit(f"docs/architecture.md: no '{TABLE_TITLE}' section")
    table = {}
    for line in doc_text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| room"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2:
            raise SystemExit(f"docs/architecture.md: a line of the table has not 2 cells: {line}")
        heads = TICKED.findall(cells[0])
        if len(heads) != 1:
            raise SystemExit(f"docs/architecture.md: a line names not one room: {line}")
        table[heads[0]] = {t for t in TICKED.findall(cells[1]) if "/" in t}
    if not table:
        raise SystemExit("docs/architecture.md: the table of rooms is empty")
    return table


def sources(root):
    """Every .c and .h of the rooms, as paths relative to root."""
    for top in ROOMS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def allowed(table, path, target):
    """Whether path may include target under the table."""
    rules = table.get(path)
    if rules is None:
        rules = table.get(folder_of(path))
        if rules is None:
            return None
        rules = rules | {folder_of(path)}  # a room includes its own headers
    return target in rules or folder_of(target) in rules


def check(root):
    errors = []
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        table = parse_table(f.read())
    for room in table:
        if not os.path.exists(os.path.join(root, room)):
            errors.append(f"docs/architecture.md: the table names {room}, which does not exist")

    files = list(sources(root))
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        room = folder_of(path)
        for kind, target in INCLUDE.findall(text):
            if kind == "<":
                if target == "uv.h" and room not in LOOP_SIDE:
                    errors.append(f"{path}: includes <uv.h> off the loop side")
                continue
            if "/" not in target:
                errors.append(f'{path}: includes "{target}": name it from the source root')
                continue
            if not os.path.exists(os.path.join(root, target)):
                errors.append(f'{path}: includes "{target}", which does not exist')
            if room.startswith(("ipc/", "formatters/")) and target.startswith("daemon/"):
                errors.append(f'{path}: includes "{target}": ipc/ and formatters/ include no daemon/')
            if room == "basic/" and not target.startswith("basic/"):
                errors.append(f'{path}: includes "{target}": basic/ includes only basic/')
            ok = allowed(table, path, target)
            if ok is None:
                errors.append(f"{path}: its room {room} has no line in the table")
            elif not ok:
                errors.append(f'{path}: includes "{target}", which room {room} may not')

    folders = sorted({folder_of(p) for p in files if p.endswith(".c")})
    top_c = [p for p in files if folder_of(p) == "daemon/" and p.endswith(".c")]
    if len(top_c) > DAEMON_TOP_MAX_C:
        errors.append(f"daemon/: {len(top_c)} .c files at its top, at most {DAEMON_TOP_MAX_C}")
    for folder in folders:
        build = os.path.join(root, folder, "meson.build")
        if not os.path.exists(build):
            errors.append(f"{folder}: has code but no meson.build")
            continue
        with open(build, encoding="utf-8") as f:
            text = f.read()
        if "static_library(" not in text:
            errors.append(f"{folder}meson.build: builds no library")
        named = set(re.findall(r"'([^'/]+\.c)'", text))
        for p in files:
            if folder_of(p) == folder and p.endswith(".c") and os.path.basename(p) not in named:
                errors.append(f"{p}: not in {folder}meson.build")
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} breach(es) of the rooms (docs/architecture.md, Who may include whom)")
        return 1
    print("the rooms hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
