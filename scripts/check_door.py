#!/usr/bin/env python3
"""Checks the one door: front ends include only the public API.

  python3 scripts/check_door.py [REPO_ROOT]   check the front ends of a checkout
  python3 scripts/check_door.py --self-test    check that the check catches a private include

The front ends are cli/ (the program), python/src/ (the Python module) and examples/ (what an
application sees). Each of their C++ files may include
  - a public header, "edgeq/NAME.h" or <edgeq/NAME.h>, that exists in include/edgeq/ (the
    library's door) or cli/include/edgeq/ (the command line's one entry, for `python -m edgeq`),
  - a file of its own front end, named relative to the including file ("commands.h"),
  - anything else in angle brackets that is not a library folder (<vector>, <CLI/CLI.hpp>).
Every other include fails, one line per include as FILE:LINE: message: "core/tensor.h",
<runtime/executor.h>, "../src/...", "cli/x.h" from python/. The build enforces the same (src/ is
not on a front end's include path); this names the line before the compiler does and keeps the
rule when someone adds an include path. Standard library only; run by CTest as
Door.FrontEndsIncludeOnlyPublicHeaders and Door.CheckCatchesAPrivateInclude.
"""
import os
import re
import sys
import tempfile

FRONT_ENDS = ("cli", "python/src", "examples")
PUBLIC_DIRS = ("include", "cli/include")
SOURCE_SUFFIXES = (".cpp", ".cc", ".h", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def library_folders(root):
    src = os.path.join(root, "src")
    if not os.path.isdir(src):
        return set()
    return {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}


def problem(root, front_end, path, quote, name, private_folders):
    """Why including `name` from `path` breaks the door, or None."""
    first = name.split("/", 1)[0]
    if first == "edgeq":
        if any(os.path.isfile(os.path.join(root, d, name)) for d in PUBLIC_DIRS):
            return None
        return f'"{name}" is not a public header (include/edgeq/ has no such file)'
    if quote == "<":
        if first in private_folders or first == "src":
            return f"<{name}> is a private header of the library (src/{name})"
        return None
    target = os.path.normpath(os.path.join(os.path.dirname(path), name))
    home = os.path.normpath(os.path.join(root, front_end))
    if os.path.commonpath([target, home]) == home and os.path.isfile(target):
        return None
    if first in private_folders or os.path.isfile(os.path.join(root, "src", name)):
        return f'"{name}" is a private header of the library (src/{name})'
    return f'"{name}" is not a file of {front_end}/ nor a public header'


def check(root):
    root = os.path.abspath(root)
    private_folders = library_folders(root)
    problems = []
    for front_end in FRONT_ENDS:
        top = os.path.join(root, front_end)
        for folder, _, files in os.walk(top):
            for f in sorted(files):
                if not f.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(folder, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for line_no, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        why = problem(root, front_end, path, m.group(1), m.group(2),
                                      private_folders)
                        if why:
                            rel = os.path.relpath(path, root)
                            problems.append(f"{rel}:{line_no}: {why}: a front end includes only "
                                            "include/edgeq/ and its own files")
    return problems


def self_test():
    """A tree with a private include in each front end, and allowed ones, must fail on exactly the
    private ones."""
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write(text)
        write("include/edgeq/model.h", "")
        write("cli/include/edgeq/cli.h", "")
        write("src/core/tensor.h", "")
        write("src/runtime/executor.h", "")
        write("cli/commands.h", "")
        write("cli/run.cpp", '#include <vector>\n#include "edgeq/model.h"\n#include "commands.h"\n'
                             '#include "core/tensor.h"\n')
        write("python/src/module.cpp", '#include "edgeq/cli.h"\n#include <runtime/executor.h>\n'
                                       '#include "../../cli/commands.h"\n')
        write("examples/app.cpp", '#include <edgeq/model.h>\n#include "edgeq/tensor.h"\n')
        got = sorted(p.split(":")[0] + ":" + p.split(":")[1] for p in check(root))
        want = sorted(["cli/run.cpp:4", "python/src/module.cpp:2", "python/src/module.cpp:3",
                       "examples/app.cpp:2"])
        if got != want:
            print(f"check_door self-test: flagged {got}, expected {want}", file=sys.stderr)
            return 1
    print("check_door self-test: the four private includes were caught, the allowed ones passed")
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} private include(s) in front ends", file=sys.stderr)
        return 1
    print("front ends include only include/edgeq/ and their own files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
