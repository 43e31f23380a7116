// dtensor-add-driver's @main on 2 ranks: argument 0 (2x4 f32) is read whole
// and split by columns, argument 1 (i64, replicated) passed as read; the
// function doubles its shard and returns it split by rows, which the driver
// gathers for rank 0 to write. With repeat=3 the last call's result is
// written and result 1 holds the seconds per call (one positive f64).
// REQUIRES: mpi
// RUN: rm -rf %t && mkdir -p %t
// RUN: hp-opt %s -dtensor-add-driver -o %t/p.mlir
// RUN: %python -c "import struct; open('%t/arg0.bin','wb').write(struct.pack('<8f', *range(1, 9))); open('%t/arg1.bin','wb').write(struct.pack('<3q', 7, 8, 9))"
// RUN: env HP_TENSOR_DIR=%t %hp-runner -np 2 %t/p.mlir
// RUN: %python -c "import struct; print(struct.unpack('<8f', open('%t/result0.bin','rb').read()), struct.unpack('<3q', open('%t/result1.bin','rb').read()))" | FileCheck %s
// CHECK: (2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0) (7, 8, 9)
// RUN: hp-opt %s -dtensor-add-driver=repeat=3 -o %t/r.mlir
// RUN: rm %t/result0.bin %t/result1.bin
// RUN: env HP_TENSOR_DIR=%t %hp-runner -np 2 %t/r.mlir
// RUN: %python -c "import struct; print(struct.unpack('<8f', open('%t/result0.bin','rb').read()), struct.unpack('<d', open('%t/result2.bin','rb').read())[0] > 0)" | FileCheck %s --check-prefix=REPEAT
// REPEAT: (2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0) True

dtensor.mesh @tp shape = [2]

func.func @forward(%x: !dtensor.tensor<2x4xf32, @tp, [shard<1>]>,
                   %n: !dtensor.tensor<3xi64, @tp, [replicate]>)
    -> (!dtensor.tensor<2x4xf32, @tp, [shard<0>]>, !dtensor.tensor<3xi64, @tp, [replicate]>) {
  %d = dtensor.local_region on @tp args(%x as "x") in_placements = {x = [shard<1>]}
      out_placements = [shard<1>] : (!dtensor.tensor<2x4xf32, @tp, [shard<1>]>)
      -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]> {
  ^bb0(%l: tensor<2x2xf32>):
    %y = arith.addf %l, %l : tensor<2x2xf32>
    dtensor.yield %y : tensor<2x2xf32>
  }
  %r = dtensor.redistribute %d : !dtensor.tensor<2x4xf32, @tp, [shard<1>]> -> !dtensor.tensor<2x4xf32, @tp, [shard<0>]>
  return %r, %n : !dtensor.tensor<2x4xf32, @tp, [shard<0>]>, !dtensor.tensor<3xi64, @tp, [replicate]>
}
