#!/usr/bin/env python3
"""Prints a function whose body nests N scf.execute_region ops (generic form),
each holding the next: N regions, 2N brackets deep.

Usage: nested-regions.py N
"""
import sys

n = int(sys.argv[1])
print("func.func @deep() {")
print('"scf.execute_region"() ({\n' * n, end="")
print('"scf.yield"() : () -> ()\n}) : () -> ()\n' * n, end="")
print("return\n}")
