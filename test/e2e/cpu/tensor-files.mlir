// A driver's arguments and results as files (hp.torch's driver): every rank
// reads argument k from $HP_TENSOR_DIR/arg<k>.bin, takes its piece with a
// redistribute from replicate, and rank 0 writes result k to
// $HP_TENSOR_DIR/result<k>.bin. Each rank doubles its shard of a 2x4 f32,
// so the result file holds 2 * the argument.
// REQUIRES: mpi
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import struct; open('%t/arg0.bin','wb').write(struct.pack('<8f', *range(1, 9)))"
// RUN: env HP_TENSOR_DIR=%t %hp-runner -np 2 %s
// RUN: %python -c "import struct; print(struct.unpack('<8f', open('%t/result0.bin','rb').read()))" | FileCheck %s
// CHECK: (2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0)
// RUN: not ls %t/result0.bin.part
//
// Errors end the job naming the variable or the file.
// RUN: env -u HP_TENSOR_DIR not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=UNSET
// UNSET: hp: HP_TENSOR_DIR is not set: this program's driver reads its arguments and writes its results there (hp.torch.run sets it)
// RUN: env HP_TENSOR_DIR=%t/none not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: hp: cannot open {{.*}}none/arg0.bin: No such file or directory
// RUN: %python -c "open('%t/arg0.bin','wb').write(bytes(31))"
// RUN: env HP_TENSOR_DIR=%t not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: hp: {{.*}}/arg0.bin does not hold the 32 bytes of argument 0 (it is shorter)
// RUN: %python -c "open('%t/arg0.bin','wb').write(bytes(33))"
// RUN: env HP_TENSOR_DIR=%t not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: hp: {{.*}}/arg0.bin does not hold the 32 bytes of argument 0 (it is longer)

dtensor.mesh @tp shape = [2]
func.func private @hp_read_tensor(i64, i64, i64)
func.func private @hp_write_tensor(i64, i64, i64)

func.func @main() {
  %slot = arith.constant 0 : i64
  %bytes = arith.constant 32 : i64
  %in = memref.alloc() : memref<2x4xf32>
  %pi = memref.extract_aligned_pointer_as_index %in : memref<2x4xf32> -> index
  %p = arith.index_cast %pi : index to i64
  call @hp_read_tensor(%slot, %p, %bytes) : (i64, i64, i64) -> ()
  %t = bufferization.to_tensor %in restrict : memref<2x4xf32> to tensor<2x4xf32>
  %r = dtensor.from_local %t : tensor<2x4xf32> -> !dtensor.tensor<2x4xf32, @tp, [replicate]>
  %s = dtensor.redistribute %r : !dtensor.tensor<2x4xf32, @tp, [replicate]> -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]>
  %d = dtensor.local_region on @tp args(%s as "x") in_placements = {x = [shard<1>]}
      out_placements = [shard<1>] : (!dtensor.tensor<2x4xf32, @tp, [shard<1>]>)
      -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]> {
  ^bb0(%x: tensor<2x2xf32>):
    %y = arith.addf %x, %x : tensor<2x2xf32>
    dtensor.yield %y : tensor<2x2xf32>
  }
  %q = dtensor.redistribute %d : !dtensor.tensor<2x4xf32, @tp, [shard<1>]> -> !dtensor.tensor<2x4xf32, @tp, [replicate]>
  %l = dtensor.to_local %q : !dtensor.tensor<2x4xf32, @tp, [replicate]> -> tensor<2x4xf32>
  %out = memref.alloc() : memref<2x4xf32>
  bufferization.materialize_in_destination %l in restrict writable %out : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
  %po = memref.extract_aligned_pointer_as_index %out : memref<2x4xf32> -> index
  %pw = arith.index_cast %po : index to i64
  call @hp_write_tensor(%slot, %pw, %bytes) : (i64, i64, i64) -> ()
  return
}
