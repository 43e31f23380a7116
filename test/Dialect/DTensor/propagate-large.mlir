// Shapes that once made dtensor-propagate take minutes, generated at test
// time by bench/propagation.py (which times them). The checks are on the
// result: one weight read by 250 matmuls and two inputs read by 1,000 ops
// each are solved exactly (one table over every user of such a value would
// have 6^250 entries; the chooser prices it through a yes/no variable per
// placement the users ask for), and a 5,000-op DAG with skip edges meets
// its relaxation's lower bound.
// RUN: %python %hp_src_root/bench/propagation.py --shape shared_weight 250 > %t.weight.mlir
// RUN: hp-opt %t.weight.mlir -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WEIGHT
// RUN: %python %hp_src_root/bench/propagation.py --shape fan_out 1000 > %t.fan.mlir
// RUN: hp-opt %t.fan.mlir -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAN
// RUN: %python %hp_src_root/bench/propagation.py --shape skip_dag 714 > %t.dag.mlir
// RUN: hp-opt %t.dag.mlir -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=DAG

// x [S(0)] stays split by rows through all 250 matmuls; the weight [S(1)]
// is gathered once for all of them.
// WEIGHT: remark: dtensor-choose-strategies: 500 ops; cost 85254.4 = redistributes 77824 + compute 7430.4 (flop-bytes 0.00045); variable elimination, optimal; greedy {{[0-9.e+]+}}
// WEIGHT-NOT: collectives=1
// WEIGHT: remark: redistribute 'tensor<64x64xf32>' [S(1)] -> [R] for operand #1 of 'linalg.matmul': cost={{.*}} collectives=1 steps=[all_gather(axes=[0], dim=1
// WEIGHT-NOT: collectives=1
// WEIGHT: remark: dtensor-apply-strategies: 500 ops, 251 redistributes

// a [S(0)] and b [S(1)]: b is moved to rows once, for all 1,000 ops.
// FAN: remark: dtensor-choose-strategies: 1999 ops; cost 67532.6 = redistributes 67072 + compute 460.57 (flop-bytes 0.00045); variable elimination, optimal; greedy {{[0-9.e+]+}}
// FAN-NOT: collectives=1
// FAN: remark: redistribute 'tensor<32x64xf32>' [S(1)] -> [S(0)] for operand #1 of 'linalg.map': cost={{.*}} collectives=1
// FAN-NOT: collectives=1
// FAN: remark: dtensor-apply-strategies: 1999 ops, 2000 redistributes

// DAG: remark: dtensor-choose-strategies: 4998 ops; cost 5.57182e+07 = redistributes 5.56319e+07 + compute 86364.1 (flop-bytes 0.00045); window search (tables over the cap) from greedy, optimal (meets the relaxation's lower bound); greedy {{[0-9.e+]+}}
// DAG: remark: dtensor-apply-strategies: 4998 ops, 3575 redistributes
