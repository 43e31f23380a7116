//===- collectives-capi.c - the C API's collective totals -----------------===//
// RUN: hp-capi-collectives-test 2>&1 | FileCheck %s
//
// Counts the collectives of hand-written shard IR through
// include/hp-c/Collectives.h. The expected bytes are worked out by hand in
// the comments (f32: 4 bytes; ring formulas), not taken from a run.
//===----------------------------------------------------------------------===//

#include "hp-c/Collectives.h"
#include "hp-c/DTensor.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <string.h>

static void print(MlirStringRef s, void *unused) {
  (void)unused;
  fwrite(s.data, 1, s.length, stdout);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *unused) {
  (void)unused;
  printf("diag: ");
  mlirDiagnosticPrint(d, print, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirStringRef str(const char *s) {
  return mlirStringRefCreate(s, s ? strlen(s) : 0);
}

static void show(const char *label, MlirModule module, const char *function) {
  HPCollectiveTotals t;
  memset(&t, 0xff, sizeof(t));
  bool ok = hpModuleGetCollectiveTotals(module, str(function), &t);
  printf("%s: ok=%d", label, ok);
  if (ok) {
    for (int k = 0; k < HP_NUM_COLLECTIVE_KINDS; ++k) {
      if (!t.counts[k])
        continue;
      MlirStringRef name = hpCollectiveKindGetName((HPCollectiveKind)k);
      printf(" %.*s=%lld", (int)name.length, name.data,
             (long long)t.counts[k]);
    }
    if (t.bytesKnown)
      printf(" bytes=%g", t.bytes);
    else
      printf(" bytes=unknown");
  }
  printf("\n");
}

static const char *kIR =
    "shard.grid @g(shape = 2x4)\n"
    "func.func @every(%x: tensor<4x8xf32>, %y: tensor<8x8xf32>) {\n"
    // group of 4: 3/4 of the 512-byte result = 384
    "  %0 = shard.all_gather %x on @g grid_axes = [1] gather_axis = 0 "
    ": tensor<4x8xf32> -> tensor<16x8xf32>\n"
    // group of 2: 2 * 1/2 of the 128-byte operand = 128
    "  %1 = shard.all_reduce %x on @g grid_axes = [0] "
    ": tensor<4x8xf32> -> tensor<4x8xf32>\n"
    // group of 4: 3/4 of the 512-byte operand = 384
    "  %2 = shard.reduce_scatter %0 on @g grid_axes = [1] scatter_axis = 0 "
    ": tensor<16x8xf32> -> tensor<4x8xf32>\n"
    // group of 8: 7/8 of the 256-byte operand = 224
    "  %3 = shard.all_to_all %y on @g grid_axes = [0, 1] split_axis = 0 "
    "concat_axis = 1 : tensor<8x8xf32> -> tensor<1x64xf32>\n"
    // a point-to-point op sends its operand: 128
    "  %4 = shard.shift %x on @g grid_axes = [1] shift_axis = 1 offset = 1 "
    "rotate : tensor<4x8xf32> -> tensor<4x8xf32>\n"
    // local slices and groups of one move nothing and are not counted
    "  %5 = shard.all_slice %0 on @g grid_axes = [1] slice_axis = 0 "
    ": tensor<16x8xf32> -> tensor<4x8xf32>\n"
    "  %6 = shard.all_reduce %x on @g : tensor<4x8xf32> -> tensor<4x8xf32>\n"
    "  return\n"
    "}\n"
    "func.func @dynamic(%x: tensor<?x8xf32>) {\n"
    "  %0 = shard.all_reduce %x on @g grid_axes = [1] "
    ": tensor<?x8xf32> -> tensor<?x8xf32>\n"
    "  return\n"
    "}\n"
    "func.func @none() {\n"
    "  return\n"
    "}\n";

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  hpRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);

  MlirModule module = mlirModuleCreateParse(ctx, str(kIR));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  // 384 + 128 + 384 + 224 + 128 = 1248
  // CHECK: every: ok=1 all_gather=1 all_reduce=1 reduce_scatter=1 all_to_all=1 shift=1 bytes=1248
  show("every", module, "every");
  // CHECK-NEXT: dynamic: ok=1 all_reduce=1 bytes=unknown
  show("dynamic", module, "dynamic");
  // CHECK-NEXT: none: ok=1 bytes=0
  show("none", module, "none");
  // The whole module: both functions' ops, bytes unknown.
  // CHECK-NEXT: module: ok=1 all_gather=1 all_reduce=2 reduce_scatter=1 all_to_all=1 shift=1 bytes=unknown
  show("module", module, "");

  // CHECK-NEXT: diag: hpModuleGetCollectiveTotals: no function @missing in the module
  // CHECK-NEXT: missing: ok=0
  show("missing", module, "missing");
  // CHECK-NEXT: diag: hpModuleGetCollectiveTotals: totals is NULL
  // CHECK-NEXT: null totals: ok=0
  printf("null totals: ok=%d\n",
         hpModuleGetCollectiveTotals(module, str(""), NULL));
  // CHECK-NEXT: diag: hpModuleGetCollectiveTotals: function is a NULL string of length 3
  // CHECK-NEXT: null string: ok=0
  MlirStringRef broken = {NULL, 3};
  HPCollectiveTotals t;
  printf("null string: ok=%d\n",
         hpModuleGetCollectiveTotals(module, broken, &t));
  // No context to report to: false, no diagnostic.
  // CHECK-NEXT: null module: ok=0
  printf("null module: ok=%d\n",
         hpModuleGetCollectiveTotals((MlirModule){NULL}, str(""), &t));

  // The formulas (group of 4, 100-byte operand, 400-byte result):
  // all_gather 3/4*400, all_reduce 2*3/4*100, reduce_scatter and all_to_all
  // 3/4*100, shift, send and broadcast 100, recv 0, the rooted ones 100.
  // CHECK-NEXT: all_gather 300 all_reduce 150 reduce_scatter 75 all_to_all 75 shift 100 send 100 recv 0 broadcast 100 gather 100 scatter 100 reduce 100
  for (int k = 0; k < HP_NUM_COLLECTIVE_KINDS; ++k) {
    MlirStringRef name = hpCollectiveKindGetName((HPCollectiveKind)k);
    printf("%s%.*s %g", k ? " " : "", (int)name.length, name.data,
           hpCollectiveBytesSent((HPCollectiveKind)k, 4, 100, 400));
  }
  printf("\n");
  // A group of one: collectives send nothing, point to point ops their block.
  // CHECK-NEXT: alone: all_reduce 0 send 100
  printf("alone: all_reduce %g send %g\n",
         hpCollectiveBytesSent(HPCollectiveAllReduce, 1, 100, 100),
         hpCollectiveBytesSent(HPCollectiveSend, 1, 100, 100));
  // CHECK-NEXT: bad: -1 -1 -1 -1 name=''
  printf("bad: %g %g %g %g name='%.*s'\n",
         hpCollectiveBytesSent((HPCollectiveKind)11, 4, 1, 1),
         hpCollectiveBytesSent(HPCollectiveAllGather, 0, 1, 1),
         hpCollectiveBytesSent(HPCollectiveAllGather, 4, -1, 1),
         hpCollectiveBytesSent(HPCollectiveAllGather, 4, 1, 1.0 / 0.0),
         (int)hpCollectiveKindGetName((HPCollectiveKind)-1).length,
         hpCollectiveKindGetName((HPCollectiveKind)-1).data);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
