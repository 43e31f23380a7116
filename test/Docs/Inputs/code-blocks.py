#!/usr/bin/env python3
"""Prints fenced code block INDEX (0-based) of LANGUAGE from a Markdown file.

Usage: code-blocks.py FILE LANGUAGE INDEX
"""
import re
import sys

path, language, index = sys.argv[1], sys.argv[2], int(sys.argv[3])
blocks = re.findall(r"^```" + re.escape(language) + r"\n(.*?)^```", open(path).read(),
                    re.S | re.M)
sys.stdout.write(blocks[index])
