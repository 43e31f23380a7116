#!/usr/bin/env python3
"""Includes the generated op and pass references into the hand-written pages.

A page marks the place with
    <!-- include generated/NAME.md -->
    ...
    <!-- end include -->
and this script replaces what is between the markers with docs/generated/NAME.md
(headings shifted one level down). With --check it changes nothing and fails
if a page is stale (the docs freshness test runs it that way).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
MARK = re.compile(r"(<!-- include (generated/[\w.]+) -->\n)(.*?)(<!-- end include -->)", re.S)


def included(name, generated_dir):
    text = open(os.path.join(generated_dir, os.path.basename(name))).read()
    # The generated pages start at level 1; inside a page they nest.
    return re.sub(r"^#", "##", text, flags=re.M).rstrip() + "\n"


def main():
    check = "--check" in sys.argv
    generated_dir = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--generated=")),
                         os.path.join(DOCS, "generated"))
    stale = []
    for page in sorted(os.listdir(DOCS)):
        if not page.endswith(".md"):
            continue
        path = os.path.join(DOCS, page)
        text = open(path).read()
        new = MARK.sub(lambda m: m.group(1) + included(m.group(2), generated_dir) + m.group(4), text)
        if new != text:
            stale.append(page)
            if not check:
                open(path, "w").write(new)
    if check and stale:
        sys.exit("stale generated references in docs/" + ", docs/".join(stale) +
                 ": run cmake --build build --target hp-update-docs")


if __name__ == "__main__":
    main()
