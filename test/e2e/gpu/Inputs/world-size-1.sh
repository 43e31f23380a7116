#!/usr/bin/env bash
# Prints a world-size-1 variant of an example (its mesh of one device, the
# local types of its region bodies widened to the global ones), for one GPU.
# Usage: world-size-1.sh tp_mlp|cp_attention <examples dir>
set -euo pipefail
case "$1" in
  tp_mlp)
    sed -e 's/shape = \[4\] names = \["tp"\]/shape = [1] names = ["tp"]/' \
        -e 's/%wl: tensor<8x16xf32>/%wl: tensor<32x16xf32>/' \
        -e 's/tensor<8x8xf32>, tensor<8x16xf32>/tensor<8x32xf32>, tensor<32x16xf32>/' \
        -e 's/tensor<8x8xf32>/tensor<8x32xf32>/g' \
        -e 's/tensor<16x8xf32>/tensor<16x32xf32>/g' "$2/tp_mlp.mlir" ;;
  cp_attention)
    sed -e 's/shape = \[4\] names = \["cp"\]/shape = [1] names = ["cp"]/' \
        -e 's/2x4xf32/8x4xf32/g' -e 's/tensor<2xf32>/tensor<8xf32>/g' \
        -e 's/%steps = arith.constant 4 : index/%steps = arith.constant 1 : index/' \
        "$2/cp_attention.mlir" ;;
  *) echo "world-size-1.sh: no variant for '$1'" >&2; exit 1 ;;
esac
