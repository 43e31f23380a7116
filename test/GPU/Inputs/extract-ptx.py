"""Prints the PTX assembly embedded in a gpu.binary of format isa."""
import re
import sys

text = sys.stdin.read()
match = re.search(r'assembly = "(.*?)"', text, re.S) or re.search(r'bin = "(.*?)">', text, re.S)
if not match:
    sys.exit("no gpu.binary object with PTX found")
ptx = match.group(1)
# MLIR escapes non-printable bytes as \XX (hex).
ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), ptx)
sys.stdout.write(ptx.replace('\\"', '"').replace("\\\\", "\\"))
