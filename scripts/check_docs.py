#!/usr/bin/env python3
"""Checks that README.md and docs/*.md point at things that exist.

  python3 scripts/check_docs.py [REPO_ROOT]

Fails (exit 1, one line per problem as FILE:LINE: message) when
  - a markdown link's target (not http(s) or mailto) does not exist relative to the file,
  - a link's #anchor matches no heading of the target file (or of the same file for `(#x)`),
  - a backticked repository path (`src/...`, `scripts/...`, ...) does not exist, relative to the
    repository root (a trailing `:LINE` or `#anchor` is dropped; `dir/` must be a folder),
  - README.md is longer than README_MAX_LINES: it is the door, the rest lives in docs/.
Fenced code blocks are skipped (their `#` lines are not headings, their text not links).
Standard library only; run by CTest as Docs.LinksAndPathsResolve.
"""
import os
import re
import sys

README_MAX_LINES = 320
PATH_PREFIXES = ("src/", "include/", "scripts/", "tests/", "docs/", "data/", "models/",
                 "python/", "tools/", "deploy/", "fuzz/", "examples/", ".ci/")

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
# [text](target "title"): the text may hold one level of brackets and span lines.
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
LINE_ANCHOR = re.compile(r"^L\d+(-L\d+)?$")


def blank_fences(lines):
    """The lines with fenced code blocks replaced by empty lines (line numbers kept)."""
    out, fence = [], None
    for line in lines:
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            out.append("")
        elif fence is not None:
            if m and m.group(1) == fence:
                fence = None
            out.append("")
        else:
            out.append(line)
    return out


def github_anchor(title):
    """GitHub's anchor for a heading: markup dropped, lowercase, punctuation other than '-' and
    '_' dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link keeps its text
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in "-_ ")
    return text.replace(" ", "-")


def anchors_of(lines):
    seen, anchors = {}, set()
    for line in blank_fences(lines):
        m = HEADING.match(line)
        if not m:
            continue
        base = github_anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        anchors.add(base if n == 0 else "%s-%d" % (base, n))
    return anchors


def looks_like_path(token):
    return (token.startswith(PATH_PREFIXES) and " " not in token and "<" not in token
            and "*" not in token and "..." not in token)


def check_file(root, rel, anchor_cache, problems):
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if rel == "README.md" and len(lines) > README_MAX_LINES:
        problems.append("%s:%d: README.md has %d lines, more than %d: move detail into docs/"
                        % (rel, len(lines), len(lines), README_MAX_LINES))
    prose = blank_fences(lines)
    here = os.path.dirname(path)

    def report(offset_text, offset, message):
        problems.append("%s:%d: %s" % (rel, offset_text.count("\n", 0, offset) + 1, message))

    # Backticked repository paths, one line at a time.
    for no, line in enumerate(prose, 1):
        for m in CODE_SPAN.finditer(line):
            token = m.group(1).strip()
            if not looks_like_path(token):
                continue
            target = re.sub(r"#.*$", "", token)
            target = re.sub(r":\d+(-\d+)?$", "", target)
            full = os.path.join(root, target)
            ok = os.path.isdir(full) if target.endswith("/") else os.path.exists(full)
            if not ok:
                problems.append("%s:%d: path `%s` does not exist" % (rel, no, token))

    # Links, over the whole text (link text may wrap), with code spans blanked out.
    text = "\n".join(CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line) for line in prose)
    for m in LINK.finditer(text):
        target = m.group(1)
        if not target or re.match(r"^(https?:|mailto:)", target, re.I):
            continue
        file_part, _, anchor = target.partition("#")
        if file_part:
            dest = os.path.normpath(os.path.join(here, file_part))
            if not os.path.exists(dest):
                report(text, m.start(1), "link target %s does not exist" % target)
                continue
        else:
            dest = path
        if not anchor:
            continue
        if dest.endswith(".md") and os.path.isfile(dest):
            if dest not in anchor_cache:
                with open(dest, encoding="utf-8") as f:
                    anchor_cache[dest] = anchors_of(f.read().split("\n"))
            if anchor not in anchor_cache[dest]:
                report(text, m.start(1), "link %s: no heading with anchor #%s in %s"
                       % (target, anchor, os.path.relpath(dest, root)))
        elif not LINE_ANCHOR.match(anchor):
            report(text, m.start(1), "link %s: anchor #%s into a file that is not markdown"
                   % (target, anchor))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = ["README.md"]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        files += sorted("docs/" + n for n in os.listdir(docs) if n.endswith(".md"))
    problems, cache = [], {}
    for rel in files:
        check_file(root, rel, cache, problems)
    for p in problems:
        print(p)
    if problems:
        print("check_docs: %d problem(s) in %d file(s)" % (len(problems), len(files)),
              file=sys.stderr)
        return 1
    print("check_docs: %d files, links, anchors and paths resolve" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
