#!/usr/bin/env bash
# Prints an example resized to a 1-D mesh of R devices (the local types of
# its region bodies follow), e.g. R=1 for one GPU, R=2 for two ranks.
# Usage: mesh-size.sh tp_mlp|cp_attention R <examples dir>
# tp_mlp's hidden dimension (32) and cp_attention's sequence (8) must be
# divisible by R.
set -euo pipefail
name=$1 r=$2 dir=$3
case "$name" in
  tp_mlp)
    h=$((32 / r))
    sed -e "s/shape = \[4\] names = \[\"tp\"\]/shape = [$r] names = [\"tp\"]/" \
        -e "s/%wl: tensor<8x16xf32>/%wl: tensor<${h}x16xf32>/" \
        -e "s/tensor<8x8xf32>, tensor<8x16xf32>/tensor<8x${h}xf32>, tensor<${h}x16xf32>/" \
        -e "s/tensor<8x8xf32>/tensor<8x${h}xf32>/g" \
        -e "s/tensor<16x8xf32>/tensor<16x${h}xf32>/g" "$dir/tp_mlp.mlir" ;;
  cp_attention)
    s=$((8 / r))
    sed -e "s/shape = \[4\] names = \[\"cp\"\]/shape = [$r] names = [\"cp\"]/" \
        -e "s/2x4xf32/${s}x4xf32/g" -e "s/tensor<2xf32>/tensor<${s}xf32>/g" \
        -e "s/%steps = arith.constant 4 : index/%steps = arith.constant $r : index/" \
        "$dir/cp_attention.mlir" ;;
  *) echo "mesh-size.sh: no variant for '$name'" >&2; exit 1 ;;
esac
