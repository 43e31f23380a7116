#!/usr/bin/env bash
# The main demo. On a fresh Debian 12 machine it builds hp, then for each
# example dtensor program (a tensor-parallel MLP on a 1-D "tp" mesh, the
# same MLP on a 2-D "dp" x "tp" mesh, a mixture-of-experts layer whose local
# region dispatches tokens with all_to_all over "ep", and context-parallel
# attention whose local region passes key/value blocks around a ring, a
# row-parallel linear layer whose weight arrives in torch's FSDP-over-TP
# layout, strided_shard):
#   1. shows the redistribute plans and the SPMD program hp-partition makes,
#   2. lowers it with hp-lower-to-cpu to NCCL calls, runs it on 4 ranks
#      (hp-runner -np 4: mpirun + hp's NCCL-over-MPI host library), and
#      prints every rank's comparison with the single-device result.
# Then the same kinds of models in global view (one dtensor.global_region of
# ordinary ops per model, placed by dtensor-propagate): the TP MLP, the dp x tp
# MLP, a Megatron tensor+sequence-parallel layer with causal attention, and
# the MoE layer with its all_to_all in an inner local region; each shows the
# strategies chosen and runs on 4 ranks against one device.
# Then PyTorch models in (hp.torch, through torch-mlir): an MLP, a Llama-style
# decoder layer under torch's TP and TP + sequence-parallel plans,
# transformers' LlamaDecoderLayer, whole transformers causal LMs (Llama,
# Mistral, Qwen2 with their SDPA attention and masks), a vocabulary-parallel
# loss and a dp x tp block, each exported with
# torch's own parallelize_module plan, run on 4 ranks and compared with torch
# eager on one device; a session, greedy decoding, and 10 training steps of
# the Llama-style layer under FSDP x TP (hp.torch.Trainer) against torch
# eager training.
# It ends by showing a broken placement contract rejected at compile time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh hp-opt hp-runner hp_runtime_cpu hp_nccl_host _hp
HP_OPT=build/bin/hp-opt
HP_RUNNER=build/bin/hp-runner
spmd=$(mktemp --suffix=.mlir)
broken=$(mktemp --suffix=.mlir)
trap 'rm -f "$spmd" "$broken" "$broken.err"' EXIT

for f in examples/tp_mlp.mlir examples/dp_tp_mlp.mlir examples/moe_ep.mlir \
         examples/cp_attention.mlir examples/shared_local_fn.mlir \
         examples/fsdp_tp_linear.mlir examples/global_tp_mlp.mlir \
         examples/global_dp_tp_mlp.mlir examples/global_megatron_layer.mlir \
         examples/global_moe.mlir; do
  echo "=================================================================="
  echo "== $f"
  echo "=================================================================="
  case "$f" in
  */global_*)
    echo "-- strategies chosen by dtensor-propagate (each op's placements, the"
    echo "   redistributes that move bytes, the region's cost against greedy)"
    "$HP_OPT" --dtensor-propagate="print-strategies" \
      --mlir-print-op-on-diagnostic=false "$f" 2>&1 >/dev/null |
      grep -E 'remark: (strategy|dtensor-propagate:)|collectives=[1-9]' |
      sed -e 's|^examples/||' |
      if [ "$f" = examples/global_tp_mlp.mlir ]; then cat; else grep -v 'remark: strategy'; fi
    ;;
  esac
  echo "-- plans chosen by convert-dtensor-to-shard"
  "$HP_OPT" --hp-partition="print-plans" --mlir-print-op-on-diagnostic=false \
    "$f" 2>&1 >"$spmd" | grep remark
  echo "-- the SPMD function after hp-partition"
  sed -n '/^  shard.grid/p; /func.func @\(tp_mlp\|dp_tp_mlp\|moe\|cp_attention\|layer\|fsdp_tp_linear\|global_tp_mlp\|global_dp_tp_mlp\|megatron_layer\|global_moe\)(/,/^  }/p' "$spmd"
  /usr/lib/llvm-22/bin/mlir-opt --allow-unregistered-dialect "$spmd" > /dev/null
  echo "-- (upstream mlir-opt verifies it)"
  echo "-- running on 4 ranks"
  out=$("$HP_RUNNER" -np 4 "$f" -e main --entry-point-result=void)
  echo "$out" | sort | uniq -c
  if [ "$(echo "$out" | grep -c 'this rank matches')" != 4 ]; then
    echo "demo: $f does not match the single-device result" >&2
    exit 1
  fi
done

echo "=================================================================="
echo "== PyTorch models in: hp.torch.export + hp.torch.run on 4 ranks"
echo "=================================================================="
torch_python=$(bash scripts/torch-env.sh)
for f in mlp llama_layer hf_llama_layer hf_causal_lm vocab_parallel_loss dp_tp_mlp session generate train; do
  echo "-- examples/torch/$f.py"
  PYTHONPATH=build/python "$torch_python" "examples/torch/$f.py"
done

echo "=================================================================="
echo "== a broken contract is caught at compile time"
echo "=================================================================="
# The down projection's partial sums declared replicate (result types changed
# to match): the variance check refuses it and says what to declare.
sed -e 's/out_placements = \[partial<sum>\]/out_placements = [replicate]/' \
    -e 's/@tp, \[partial<sum>\]>/@tp, [replicate]>/g' examples/tp_mlp.mlir > "$broken"
if "$HP_OPT" --hp-partition --mlir-print-op-on-diagnostic=false "$broken" > /dev/null 2> "$broken.err"; then
  echo "unexpected: the broken program verified" >&2
  exit 1
fi
sed "s|$broken|tp_mlp.mlir (edited)|" "$broken.err"
echo "demo: OK"
