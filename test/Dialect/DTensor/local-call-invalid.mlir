// RUN: hp-opt %s -split-input-file -verify-diagnostics

// local_call follows every local_region rule, checked against the callee's
// signature; one rule per case.

// local_call: the callee must be a func.func.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{'@nowhere' does not name a func.func}}
  %y = dtensor.local_call @nowhere(%x) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// A near miss of a function name gets a suggestion.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func @scale_add(%x: tensor<2x8xf32>) -> tensor<2x8xf32> { return %x : tensor<2x8xf32> }
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{'@scale_ad' does not name a func.func; did you mean '@scale_add'?}}
  %y = dtensor.local_call @scale_ad(%x) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: empty out_placements.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>, %k: f32) {
  // expected-error @+1 {{out_placements must not be empty}}
  %y = "dtensor.local_call"(%x, %k) <{callee = @f, mesh = @m, out_placements = []}> : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, f32) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: per-output count.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>, %k: f32) {
  // expected-error @+1 {{out_placements count 2 does not match output count 1}}
  %y = dtensor.local_call @f(%x, %k) on @m out_placements = [[shard<0>], none] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, f32) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: flat form with several outputs.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f2(tensor<2x8xf32> {dtensor.arg_name = "x"}) -> (tensor<2x8xf32>, tensor<2x8xf32>)
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{out_placements count 1 does not match output count 2 (a flat out_placements is a single output's list)}}
  %y, %z = dtensor.local_call @f2(%x) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, !dtensor.tensor<8x8xf32, @m, [shard<0>]>)
  return
}

// -----

// local_call: a tensor output with none while wrapping.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f2(tensor<2x8xf32> {dtensor.arg_name = "x"}) -> (tensor<2x8xf32>, tensor<2x8xf32>)
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{Tensor output requires non-None out_placements entry (output #1 yields 'tensor<2x8xf32>')}}
  %y, %z = dtensor.local_call @f2(%x) on @m out_placements = [[shard<0>], none] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, tensor<2x8xf32>)
  return
}

// -----

// local_call: duplicate argument names in the callee.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @dup(tensor<2x8xf32> {dtensor.arg_name = "x"}, tensor<2x8xf32> {dtensor.arg_name = "x"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{duplicate argument name 'x' in the callee's dtensor.arg_name attributes}}
  %y = dtensor.local_call @dup(%x, %x) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, !dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: an empty argument name (the dialect's rule for
// dtensor.arg_name, wherever it appears).
dtensor.mesh @m shape = [4] names = ["tp"]
// expected-error @below {{argument #0 of 'empty': 'dtensor.arg_name' must be a non-empty string, got ""}}
func.func private @empty(tensor<2x8xf32> {dtensor.arg_name = ""}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  %y = dtensor.local_call @empty(%x) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: placement list length != mesh rank.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>, %k: f32) {
  // expected-error @+1 {{in_placements entry 'x' has 2 placements, but the mesh has rank 1}}
  %y = dtensor.local_call @f(%x, %k) on @m in_placements = {x = [shard<0>, replicate]} out_placements = [shard<0>] redistribute_inputs : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, f32) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: shard dim out of range.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>, %k: f32) {
  // expected-error @+1 {{in_placements entry 'x': shard dim 5 is out of range for a tensor of rank 2}}
  %y = dtensor.local_call @f(%x, %k) on @m in_placements = {x = [shard<5>]} out_placements = [shard<0>] redistribute_inputs : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, f32) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: a DTensor operand on another mesh.
dtensor.mesh @m shape = [4] names = ["tp"]
dtensor.mesh @o shape = [4]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @o, [shard<0>]>, %k: f32) {
  // expected-error @+1 {{operand #0 ('x') is on mesh @o, but the call is on @m}}
  %y = dtensor.local_call @f(%x, %k) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @o, [shard<0>]>, f32) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: the callee argument must be the local type.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @bad(tensor<8x8xf32> {dtensor.arg_name = "x"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{callee argument #0 ('x') has type 'tensor<8x8xf32>', but the operand's local type is 'tensor<2x8xf32>'}}
  %y = dtensor.local_call @bad(%x) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: a non-DTensor operand enters unchanged.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>, %k: f64) {
  // expected-error @+1 {{callee argument #1 ('scale') has type 'f32', but a non-DTensor operand enters the body unchanged as 'f64'}}
  %y = dtensor.local_call @f(%x, %k) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, f64) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: the result type must wrap what the callee returns.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>, %k: f32) {
  // expected-error @+1 {{result #0 has type '!dtensor.tensor<8x8xf32, @m, [replicate]>', but wrapping 'tensor<2x8xf32>' needs a !dtensor.tensor of rank 2 and element type 'f32' on @m with placements [shard<0>]}}
  %y = dtensor.local_call @f(%x, %k) on @m out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, f32) -> !dtensor.tensor<8x8xf32, @m, [replicate]>
  return
}

// -----

// local_call: a declared placement without redistribute_inputs.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [replicate]>, %k: f32) {
  // expected-error @+1 {{operand #0 ('x') has placements [replicate] but in_placements declares [shard<0>]; set redistribute_inputs to redistribute it at entry}}
  %y = dtensor.local_call @f(%x, %k) on @m in_placements = {x = [shard<0>]} out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @m, [replicate]>, f32) -> !dtensor.tensor<8x8xf32, @m, [shard<0>]>
  return
}

// -----

// local_call: the callee and the call agree on the number of results.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>, %k: f32) {
  // expected-error @+1 {{the callee returns 1 values, but the local_call has 2 results}}
  %y, %n = dtensor.local_call @f(%x, %k) on @m out_placements = [[shard<0>], none] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, f32) -> (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, i64)
  return
}

// -----

// local_call: an unwrapped result has the returned type.
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
func.func @c(%x: tensor<2x8xf32>, %k: f32) {
  // expected-error @+1 {{result #0 has type 'tensor<4x8xf32>', but the callee returns 'tensor<2x8xf32>', which is returned unwrapped}}
  %y = dtensor.local_call @f(%x, %k) on @m : (tensor<2x8xf32>, f32) -> tensor<4x8xf32>
  return
}

// -----

// local_call: out_placements is flat or per output, not a mix (a parse
// error, as on local_region).
dtensor.mesh @m shape = [4] names = ["tp"]
func.func private @f(tensor<2x8xf32> {dtensor.arg_name = "x"}) -> (tensor<2x8xf32>, i64)
func.func @c(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{out_placements is either one placement list (a single output) or one placement list or none per output, not a mix}}
  %y, %n = dtensor.local_call @f(%x) on @m out_placements = [shard<0>, none] : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> (!dtensor.tensor<8x8xf32, @m, [shard<0>]>, i64)
  return
}
