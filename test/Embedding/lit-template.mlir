// docs/Testing.md's template for downstream lit tests (examples/lit-template)
// runs as written, against the installed tools.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cmake --install %hp_obj_root --prefix %t/prefix > %t/install.log
// RUN: lit -v --param hp_tools_dir=%t/prefix/bin --param build_dir=%t/out %hp_src_root/examples/lit-template 2>&1 | FileCheck %s
// CHECK-DAG: PASS: my-project-on-hp :: lowering.mlir
// CHECK-DAG: PASS: my-project-on-hp :: contract-error.mlir
// CHECK-DAG: {{PASS|UNSUPPORTED}}: my-project-on-hp :: on-ranks.mlir
