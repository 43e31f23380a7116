#!/usr/bin/env python3
"""Fails when an nccl op's buffer is a memref.cast result or has a layout
that is not provably contiguous, in IR read from stdin (printed after
nccl-contiguous-buffers). Prints how many nccl buffer operands it checked."""
import re
import sys

text = sys.stdin.read()
casts = set(re.findall(r"(%[\w#]+) = memref\.cast ", text))
checked = 0
for line in text.splitlines():
    m = re.match(r"\s*nccl\.(all_gather|reduce_scatter|all_reduce|all_to_all|broadcast|send|recv) (.*)", line)
    if not m:
        continue
    operands = re.findall(r"%[\w#]+", m.group(2).split(" on ")[0].split(" to ")[0].split(" from ")[0])
    types = re.findall(r"memref<[^>]*(?:<[^>]*>[^>]*)?>", line)
    for op in operands:
        if op in casts:
            sys.exit(f"nccl operand {op} is a memref.cast result: {line.strip()}")
        checked += 1
    for t in types:
        if "strided<[" in t and "?" in t.split("strided<", 1)[1]:
            sys.exit(f"nccl buffer of unproven layout {t}: {line.strip()}")
print(f"checked {checked} nccl buffers")
