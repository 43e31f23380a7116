// dtensor-add-driver on a 2x2 mesh: each rank reads only its own block of
// every split argument (hp_read_tensor_block), for uneven, nested, strided,
// empty and two-dim splits, a partial placement and several dtypes, and a
// checkpoint range named by an arg<k>.ref file. The function returns its
// arguments; the driver gathers them back whole, so each result file must
// equal its argument's bytes: a block read at the wrong offset or of the
// wrong size lands in the wrong place.
// REQUIRES: mpi
// RUN: rm -rf %t && mkdir -p %t
// RUN: hp-opt %s -dtensor-add-driver -o %t/p.mlir
// RUN: FileCheck %s --check-prefix=IR < %t/p.mlir
// RUN: %python %S/Inputs/block_read_args.py %t
// RUN: env HP_TENSOR_DIR=%t %hp-runner -np 4 %t/p.mlir
// RUN: cmp %t/ckpt.part %t/result0.bin
// RUN: cmp %t/arg1.bin %t/result1.bin
// RUN: cmp %t/arg2.bin %t/result2.bin
// RUN: cmp %t/arg3.bin %t/result3.bin
// RUN: cmp %t/arg4.bin %t/result4.bin
// RUN: cmp %t/arg5.bin %t/result5.bin
// RUN: cmp %t/arg6.bin %t/result6.bin

// The replicated argument is read whole, every split one by blocks.
// IR-COUNT-6: call @hp_read_tensor_block
// IR-COUNT-1: call @hp_read_tensor(

// A relative path in a reference is relative to the reference's directory,
// not to the ranks' working directory.
// RUN: %python -c "open('%t/arg0.ref','w').write('16 ckpt.bin\n')"
// RUN: rm %t/result0.bin
// RUN: cd / && env HP_TENSOR_DIR=%t %hp-runner -np 4 %t/p.mlir
// RUN: cmp %t/ckpt.part %t/result0.bin

// A reference that names a file too short for the argument, and one that
// is not '<offset> <path>', end the job naming them.
// RUN: %python -c "open('%t/arg0.ref','w').write('99999 %t/ckpt.bin')"
// RUN: not env HP_TENSOR_DIR=%t %hp-runner -np 4 %t/p.mlir 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: ckpt.bin ends before the 60 bytes of argument 0 at offset 99999 ({{.*}}arg0.ref)
// RUN: %python -c "open('%t/arg0.ref','w').write('%t/ckpt.bin')"
// RUN: not env HP_TENSOR_DIR=%t %hp-runner -np 4 %t/p.mlir 2>&1 | FileCheck %s --check-prefix=BADREF
// BADREF: arg0.ref must be one line '<offset> <path>' naming where argument 0 starts

dtensor.mesh @m shape = [2, 2]

func.func @forward(
    %a: !dtensor.tensor<5x3xf32, @m, [shard<0>, replicate]>,
    %b: !dtensor.tensor<3x2xf32, @m, [shard<0>, shard<0>]>,
    %c: !dtensor.tensor<2x3x4xf32, @m, [replicate, shard<1>]>,
    %d: !dtensor.tensor<4x2xi64, @m, [strided_shard<0, 2>, shard<0>]>,
    %e: !dtensor.tensor<4x2xf64, @m, [partial<sum>, shard<1>]>,
    %f: !dtensor.tensor<2x6xi32, @m, [shard<1>, shard<0>]>,
    %g: !dtensor.tensor<3xi8, @m, [replicate, replicate]>)
    -> (!dtensor.tensor<5x3xf32, @m, [shard<0>, replicate]>,
        !dtensor.tensor<3x2xf32, @m, [shard<0>, shard<0>]>,
        !dtensor.tensor<2x3x4xf32, @m, [replicate, shard<1>]>,
        !dtensor.tensor<4x2xi64, @m, [strided_shard<0, 2>, shard<0>]>,
        !dtensor.tensor<4x2xf64, @m, [partial<sum>, shard<1>]>,
        !dtensor.tensor<2x6xi32, @m, [shard<1>, shard<0>]>,
        !dtensor.tensor<3xi8, @m, [replicate, replicate]>) {
  return %a, %b, %c, %d, %e, %f, %g
      : !dtensor.tensor<5x3xf32, @m, [shard<0>, replicate]>,
        !dtensor.tensor<3x2xf32, @m, [shard<0>, shard<0>]>,
        !dtensor.tensor<2x3x4xf32, @m, [replicate, shard<1>]>,
        !dtensor.tensor<4x2xi64, @m, [strided_shard<0, 2>, shard<0>]>,
        !dtensor.tensor<4x2xf64, @m, [partial<sum>, shard<1>]>,
        !dtensor.tensor<2x6xi32, @m, [shard<1>, shard<0>]>,
        !dtensor.tensor<3xi8, @m, [replicate, replicate]>
}
