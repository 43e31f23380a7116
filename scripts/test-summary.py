#!/usr/bin/env python3
"""Prints one line per JUnit XML report and a closing total line.

Each argument is NAME=PATH[,PATH...]: a suite whose reports (shards) are
counted together.

Every suite (lit, gtest, later pytest) writes JUnit XML, so one summary covers
them all. Exits non-zero when a test failed or a report is missing.
"""
import sys
import xml.etree.ElementTree as ET


def count(path):
    root = ET.parse(path).getroot()
    cases = root.iter("testcase")
    passed = failed = skipped = 0
    for case in cases:
        tags = {child.tag for child in case}
        if "failure" in tags or "error" in tags:
            failed += 1
        elif "skipped" in tags:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(argv):
    total = [0, 0, 0]
    ok = True
    for item in argv[1:]:
        name, _, path = item.partition("=")
        try:
            p = f = s = 0
            for one in path.split(","):
                counts = count(one)
                p, f, s = p + counts[0], f + counts[1], s + counts[2]
        except (OSError, ET.ParseError) as e:
            print(f"{name}: no report ({e})")
            ok = False
            continue
        print(f"{name}: {p} passed, {f} failed, {s} skipped")
        for i, v in enumerate((p, f, s)):
            total[i] += v
    ok = ok and total[1] == 0 and total[0] > 0
    print(f"total: {total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
