#!/usr/bin/env bash
# Checks that the C and C++ files of lib/, include/, tools/, python/,
# unittests/ and bench/ are formatted as .clang-format says (LLVM style);
# with --fix, formats them in place. Exit 1 naming the files that differ.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-22 || command -v /usr/lib/llvm-22/bin/clang-format || true)
if [ -z "$format" ]; then
  echo "check-format: clang-format-22 is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
# Not test/: lit inputs carry FileCheck lines that a reflowed comment would
# break.
mapfile -t files < <(git ls-files -- lib include tools python unittests bench |
  grep -E '\.(c|cpp|h)$')
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$format" --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format" \
    "(scripts/check-format.sh --fix formats them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
