// Partial sums pass only through ops that are linear in IEEE arithmetic.
// Each rank's piece of h = x @ w (k split over 2 ranks) is 3 and -2, of g
// 70000 and -60000, of o 3e38 and -2.8e38: their sums are 1, 10000 and
// 2e37. Dividing each piece by 0 (or by a replicated tensor holding 0),
// multiplying it by inf, narrowing it to f16, or doubling o's pieces before
// the sum gives inf - inf = NaN (or an overflow) where one device computes
// inf, inf, inf, 10000 and 4e37. dtensor-propagate must reduce first: every
// rank prints the one-device values (checked by hand: 1/0 = inf, 1*inf =
// inf, 10000 is exact in f16, 2 * 2e37 = 4e37).
// REQUIRES: mpi
// RUN: %hp-runner -np 2 %s -e main --entry-point-result=void | FileCheck %s
// CHECK-COUNT-2: div0 inf, mulinf inf, divz inf, trunc 10000, mul2 4e+37
// CHECK-NOT: nan

dtensor.mesh @tp shape = [2] names = ["tp"]

!xs = !dtensor.tensor<1x2xf32, @tp, [shard<1>]>
!ws = !dtensor.tensor<2x3xf32, @tp, [shard<0>]>
!zr = !dtensor.tensor<1x1xf32, @tp, [replicate]>
!p32 = !dtensor.tensor<1x1xf32, @tp, [partial<sum>]>
!p16 = !dtensor.tensor<1x1xf16, @tp, [partial<sum>]>

func.func @program(%x: !xs, %w: !ws, %z: !zr) -> (!p32, !p32, !p32, !p16, !p32) {
  %a, %b, %c, %d, %e = dtensor.global_region on @tp args(%x, %w, %z)
      : (!xs, !ws, !zr) -> (!p32, !p32, !p32, !p16, !p32) {
  ^bb0(%gx: tensor<1x2xf32>, %gw: tensor<2x3xf32>, %gz: tensor<1x1xf32>):
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<1x3xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3xf32>) -> tensor<1x3xf32>
    %hg = linalg.matmul ins(%gx, %gw : tensor<1x2xf32>, tensor<2x3xf32>) outs(%f : tensor<1x3xf32>) -> tensor<1x3xf32>
    %h = tensor.extract_slice %hg[0, 0] [1, 1] [1, 1] : tensor<1x3xf32> to tensor<1x1xf32>
    %g = tensor.extract_slice %hg[0, 1] [1, 1] [1, 1] : tensor<1x3xf32> to tensor<1x1xf32>
    %o = tensor.extract_slice %hg[0, 2] [1, 1] [1, 1] : tensor<1x3xf32> to tensor<1x1xf32>
    %two = arith.constant dense<2.0> : tensor<1x1xf32>
    %mul2 = arith.mulf %o, %two : tensor<1x1xf32>
    %c0 = arith.constant dense<0.0> : tensor<1x1xf32>
    %inf = arith.constant dense<0x7F800000> : tensor<1x1xf32>
    %div0 = arith.divf %h, %c0 : tensor<1x1xf32>
    %mulinf = arith.mulf %h, %inf : tensor<1x1xf32>
    %divz = arith.divf %h, %gz : tensor<1x1xf32>
    %trunc = arith.truncf %g : tensor<1x1xf32> to tensor<1x1xf16>
    dtensor.yield %div0, %mulinf, %divz, %trunc, %mul2 : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf16>, tensor<1x1xf32>
  }
  return %a, %b, %c, %d, %e : !p32, !p32, !p32, !p16, !p32
}

func.func @value(%p: !p32) -> f32 {
  %r = dtensor.redistribute %p : !p32 -> !zr
  %l = dtensor.to_local %r : !zr -> tensor<1x1xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %l[%c0, %c0] : tensor<1x1xf32>
  return %v : f32
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %w = arith.constant dense<[[3.0, 70000.0, 3.0e38], [-1.0, -30000.0, -1.4e38]]> : tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<1x1xf32>
  %rx = dtensor.from_local %x : tensor<1x2xf32> -> !dtensor.tensor<1x2xf32, @tp, [replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<1x2xf32, @tp, [replicate]> -> !xs
  %rw = dtensor.from_local %w : tensor<2x3xf32> -> !dtensor.tensor<2x3xf32, @tp, [replicate]>
  %dw = dtensor.redistribute %rw : !dtensor.tensor<2x3xf32, @tp, [replicate]> -> !ws
  %dz = dtensor.from_local %z : tensor<1x1xf32> -> !zr
  %a, %b, %c, %d, %e = func.call @program(%dx, %dw, %dz) : (!xs, !ws, !zr) -> (!p32, !p32, !p32, !p16, !p32)
  %ve = func.call @value(%e) : (!p32) -> f32
  %va = func.call @value(%a) : (!p32) -> f32
  %vb = func.call @value(%b) : (!p32) -> f32
  %vc = func.call @value(%c) : (!p32) -> f32
  %rd = dtensor.redistribute %d : !p16 -> !dtensor.tensor<1x1xf16, @tp, [replicate]>
  %ld = dtensor.to_local %rd : !dtensor.tensor<1x1xf16, @tp, [replicate]> -> tensor<1x1xf16>
  %c0 = arith.constant 0 : index
  %vd16 = tensor.extract %ld[%c0, %c0] : tensor<1x1xf16>
  %vd = arith.extf %vd16 : f16 to f32
  vector.print str "div0 "
  vector.print %va : f32 punctuation <no_punctuation>
  vector.print str ", mulinf "
  vector.print %vb : f32 punctuation <no_punctuation>
  vector.print str ", divz "
  vector.print %vc : f32 punctuation <no_punctuation>
  vector.print str ", trunc "
  vector.print %vd : f32 punctuation <no_punctuation>
  vector.print str ", mul2 "
  vector.print %ve : f32
  return
}
