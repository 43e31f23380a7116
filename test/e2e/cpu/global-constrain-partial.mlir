// dtensor.constrain to partial placements: the value is held as pieces
// whose reduction is the value, and every use still sees the value. x = [1,
// 2, 3, 4] (and x as i32) is constrained to each partial kind on 2 ranks,
// then used: 2 a (linear: the pieces pass through), b + b, c - 1, d and e
// as they are, and the i32 copy at a partial boundary. Expected values
// checked by hand: [2, 4, 6, 8], [2, 4, 6, 8], [0, 1, 2, 3], [1, 2, 3, 4],
// [1, 2, 3, 4], [1, 2, 3, 4].
// REQUIRES: mpi
// RUN: hp-opt %s --dtensor-propagate | FileCheck %s --check-prefix=PROP
// RUN: %hp-runner -np 2 %s -e main --entry-point-result=void | FileCheck %s
// The constraints hold the pieces: a local step from replicate to each kind.
// PROP-DAG: [replicate]> -> !dtensor.tensor<4xf32, @m, [partial<sum>]>
// PROP-DAG: [replicate]> -> !dtensor.tensor<4xf32, @m, [partial<max>]>
// PROP-DAG: [replicate]> -> !dtensor.tensor<4xf32, @m, [partial<prod>]>
// PROP-DAG: [replicate]> -> !dtensor.tensor<4xf32, @m, [partial<avg>]>
// PROP-DAG: [replicate]> -> !dtensor.tensor<4xf32, @m, [partial<min>]>
// PROP-DAG: [replicate]> -> !dtensor.tensor<4xi32, @m, [partial<sum>]>
// RUN: %hp-runner -np 2 %s -e main --entry-point-result=void | FileCheck %s
// CHECK-COUNT-2: ( 2, 4, 6, 8 ) ( 2, 4, 6, 8 ) ( 0, 1, 2, 3 ) ( 1, 2, 3, 4 ) ( 1, 2, 3, 4 ) ( 1, 2, 3, 4 )

dtensor.mesh @m shape = [2] names = ["m"]

!r = !dtensor.tensor<4xf32, @m, [replicate]>
!ri = !dtensor.tensor<4xi32, @m, [replicate]>
!pmin = !dtensor.tensor<4xf32, @m, [partial<min>]>
!psum = !dtensor.tensor<4xi32, @m, [partial<sum>]>

func.func @program(%x: !r, %xi: !ri) -> (!r, !r, !r, !r, !pmin, !psum) {
  %ya, %yb, %yc, %yd, %ye, %yf = dtensor.global_region on @m args(%x, %xi)
      : (!r, !ri) -> (!r, !r, !r, !r, !pmin, !psum) {
  ^bb0(%g: tensor<4xf32>, %gi: tensor<4xi32>):
    %two = arith.constant dense<2.0> : tensor<4xf32>
    %one = arith.constant dense<1.0> : tensor<4xf32>
    %a = dtensor.constrain %g [partial<sum>] : tensor<4xf32>
    %a2 = arith.mulf %a, %two : tensor<4xf32>
    %b = dtensor.constrain %g [partial<max>] : tensor<4xf32>
    %b2 = arith.addf %b, %b : tensor<4xf32>
    %c = dtensor.constrain %g [partial<prod>] : tensor<4xf32>
    %c1 = arith.subf %c, %one : tensor<4xf32>
    %d = dtensor.constrain %g [partial<avg>] : tensor<4xf32>
    %e = dtensor.constrain %g [partial<min>] : tensor<4xf32>
    %f = dtensor.constrain %gi [partial<sum>] : tensor<4xi32>
    dtensor.yield %a2, %b2, %c1, %d, %e, %f : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
  }
  return %ya, %yb, %yc, %yd, %ye, %yf : !r, !r, !r, !r, !pmin, !psum
}

func.func @show(%v: !r) {
  %l = dtensor.to_local %v : !r -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %vec = vector.transfer_read %l[%c0], %p : tensor<4xf32>, vector<4xf32>
  vector.print %vec : vector<4xf32> punctuation <no_punctuation>
  vector.print str " "
  return
}

func.func @main() {
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %xi = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %dx = dtensor.from_local %x : tensor<4xf32> -> !r
  %dxi = dtensor.from_local %xi : tensor<4xi32> -> !ri
  %a, %b, %c, %d, %e, %f = func.call @program(%dx, %dxi) : (!r, !ri) -> (!r, !r, !r, !r, !pmin, !psum)
  func.call @show(%a) : (!r) -> ()
  func.call @show(%b) : (!r) -> ()
  func.call @show(%c) : (!r) -> ()
  func.call @show(%d) : (!r) -> ()
  %re = dtensor.redistribute %e : !pmin -> !r
  func.call @show(%re) : (!r) -> ()
  %rf = dtensor.redistribute %f : !psum -> !ri
  %lf = dtensor.to_local %rf : !ri -> tensor<4xi32>
  %c0 = arith.constant 0 : index
  %p = ub.poison : i32
  %vf = vector.transfer_read %lf[%c0], %p : tensor<4xi32>, vector<4xi32>
  vector.print %vf : vector<4xi32>
  return
}
