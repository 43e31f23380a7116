// RUN: hp-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// One verifier rule per case. Parse errors are in invalid-syntax.mlir.

//===----------------------------------------------------------------------===//
// dtensor.mesh
//===----------------------------------------------------------------------===//

// expected-error @+1 {{mesh shape must not be empty}}
dtensor.mesh @m shape = []

// -----

// expected-error @+1 {{mesh dim 1 has size 0; sizes must be >= 1}}
dtensor.mesh @m shape = [2, 0]

// -----

// expected-error @+1 {{mesh has more than 2147483647 devices (NCCL ranks are 32-bit)}}
dtensor.mesh @m shape = [4294967296, 4294967296]

// -----

// expected-error @+1 {{mesh has more than 2147483647 devices}}
dtensor.mesh @m shape = [4294967297]

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor dim 281474976710657 exceeds the limit of 281474976710656 elements}}
func.func @huge_dim(%a: !dtensor.tensor<281474976710657xf32, @m, [replicate]>) { return }

// -----

// expected-error @+1 {{mesh has 1 names for 2 dimensions}}
dtensor.mesh @m shape = [2, 2] names = ["dp"]

// -----

// expected-error @+1 {{mesh axis names must not be empty}}
dtensor.mesh @m shape = [2] names = [""]

// -----

// expected-error @+1 {{mesh axis name 'tp' is used more than once}}
dtensor.mesh @m shape = [2, 2] names = ["tp", "tp"]

// -----

// expected-error @+1 {{devices lists 3 ranks, but the mesh has 4 devices}}
dtensor.mesh @m shape = [2, 2] devices = [0, 1, 2]

// -----

// expected-error @+1 {{devices must be non-negative ranks, got -1}}
dtensor.mesh @m shape = [2] devices = [-1, 0]

// -----

// expected-error @+1 {{devices lists rank 1 more than once}}
dtensor.mesh @m shape = [2, 2] devices = [0, 1, 1, 3]

// -----

// expected-error @+1 {{devices must be a permutation of a contiguous rank range starting at 0, but rank 4 is out of it}}
dtensor.mesh @m shape = [2, 2] devices = [0, 1, 4, 3]

// -----

func.func @mesh_in_func() {
  // expected-error @+1 {{expects parent op 'builtin.module'}}
  dtensor.mesh @m shape = [2]
  return
}

//===----------------------------------------------------------------------===//
// Placements and !dtensor.tensor
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{shard dim must be non-negative, got -1}}
func.func @neg_shard() attributes {p = #dtensor.shard<-1>} { return }

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor type: shard dim 2 is out of range for a tensor of rank 2}}
func.func @shard_out_of_range(%a: !dtensor.tensor<4x4xf32, @m, [shard<2>]>) { return }

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor needs at least one placement}}
func.func @no_placements(%a: !dtensor.tensor<4xf32, @m, []>) { return }

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor element type 'memref<2xf32>' is not one a DTensor can hold}}
func.func @bad_element(%a: !dtensor.tensor<4xmemref<2xf32>, @m, [replicate]>) { return }

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor element type 'vector<2xf32>' is not one a DTensor can hold}}
func.func @vector_element(%a: !dtensor.tensor<4xvector<2xf32>, @m, [replicate]>) { return }

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor element type 'index' is not one a DTensor can hold}}
func.func @index_element(%a: !dtensor.tensor<4xindex, @m, [replicate]>) { return }

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor element type 'complex<f32>' is not one a DTensor can hold}}
func.func @complex_element(%a: !dtensor.tensor<4xcomplex<f32>, @m, [replicate]>) { return }

// -----

dtensor.mesh @m shape = [2]
// expected-error @+1 {{dtensor element type 'i16' is not one a DTensor can hold}}
func.func @i16_element(%a: !dtensor.tensor<4xi16, @m, [replicate]>) { return }

// -----

// A DTensor type used only in a signature is checked against its mesh.
dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{'func.func' op dtensor type has 1 placements, but the mesh has rank 2}}
func.func @signature_rank(%d: !dtensor.tensor<4x4xf32, @m, [shard<0>]>) { return }

// -----

dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{'func.func' op '@nowhere' does not name a dtensor.mesh or a static shard.grid}}
func.func @signature_mesh(%d: !dtensor.tensor<4x4xf32, @nowhere, [shard<0>, replicate]>) { return }

// -----

// A near miss of a mesh name gets a suggestion.
dtensor.mesh @tp shape = [2]
dtensor.mesh @dp shape = [2]
// expected-error @+1 {{'func.func' op '@tpp' does not name a dtensor.mesh or a static shard.grid; did you mean '@tp'?}}
func.func @signature_mesh_typo(%d: !dtensor.tensor<4xf32, @tpp, [shard<0>]>) { return }

// -----

dtensor.mesh @mesh2d shape = [2, 2]
func.func @op_mesh_typo(%t: tensor<4x4xf32>) {
  // expected-error @+1 {{'@mesh_2d' does not name a dtensor.mesh or a static shard.grid; did you mean '@mesh2d'?}}
  %d = dtensor.from_local %t : tensor<4x4xf32> -> !dtensor.tensor<4x4xf32, @mesh_2d, [replicate, replicate]>
  return
}

// -----

// Block arguments of any op's regions too.
dtensor.mesh @m shape = [2, 2]
func.func @block_argument() {
  // expected-error @+1 {{'test.region' op dtensor type has 1 placements, but the mesh has rank 2}}
  "test.region"() ({
  ^bb0(%x: !dtensor.tensor<4xf32, @m, [replicate]>):
    "test.end"() : () -> ()
  }) : () -> ()
  return
}

// -----

// And results of other dialects' ops.
dtensor.mesh @m shape = [2, 2]
func.func @foreign_result() {
  // expected-error @+1 {{'test.make' op dtensor type has 1 placements, but the mesh has rank 2}}
  %x = "test.make"() : () -> !dtensor.tensor<4xf32, @m, [replicate]>
  return
}

//===----------------------------------------------------------------------===//
// from_local / to_local
//===----------------------------------------------------------------------===//

// -----

func.func @no_mesh(%t: tensor<4xf32>) {
  // expected-error @+1 {{'@nope' does not name a dtensor.mesh or a static shard.grid}}
  %d = dtensor.from_local %t : tensor<4xf32> -> !dtensor.tensor<8xf32, @nope, [shard<0>]>
  return
}

// -----

func.func @not_a_mesh(%t: tensor<4xf32>) {
  // expected-error @+1 {{'@not_a_mesh' does not name a dtensor.mesh or a static shard.grid}}
  %d = dtensor.from_local %t : tensor<4xf32> -> !dtensor.tensor<8xf32, @not_a_mesh, [shard<0>]>
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
func.func @wrong_rank(%t: tensor<4xf32>) {
  // expected-error @+1 {{dtensor type has 1 placements, but the mesh has rank 2}}
  %d = dtensor.from_local %t : tensor<4xf32> -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @from_local_shape(%t: tensor<3xf32>) {
  // expected-error @+1 {{local type 'tensor<3xf32>' does not match the local type 'tensor<4xf32>' of '!dtensor.tensor<8xf32, @m, [shard<0>]>'}}
  %d = dtensor.from_local %t : tensor<3xf32> -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  return
}

// -----

dtensor.mesh @m shape = [4]
func.func @to_local_uneven_is_dynamic(%d: !dtensor.tensor<10xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{local type 'tensor<3xf32>' does not match the local type 'tensor<?xf32>'}}
  %t = dtensor.to_local %d : !dtensor.tensor<10xf32, @m, [shard<0>]> -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// redistribute
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @a shape = [2]
dtensor.mesh @b shape = [2]
func.func @redist_mesh(%d: !dtensor.tensor<8xf32, @a, [shard<0>]>) {
  // expected-error @+1 {{cannot move a dtensor from mesh @a to mesh @b}}
  %r = dtensor.redistribute %d : !dtensor.tensor<8xf32, @a, [shard<0>]> -> !dtensor.tensor<8xf32, @b, [shard<0>]>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @redist_shape(%d: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{input and result must have the same global shape}}
  %r = dtensor.redistribute %d : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<4xf32, @m, [replicate]>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @redist_type(%d: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{input and result must have the same element type}}
  %r = dtensor.redistribute %d : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf16, @m, [replicate]>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @redist_count(%d: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{input and result must have the same number of placements}}
  %r = dtensor.redistribute %d : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate, replicate]>
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
func.func @redist_partial(%d: !dtensor.tensor<8xf32, @m, [replicate, partial<sum>]>) {
  // expected-error @+1 {{cannot redistribute [replicate, partial<sum>] to [shard<0>, partial<max>]: mesh dim 1 changes the reduction of a partial placement}}
  %r = dtensor.redistribute %d : !dtensor.tensor<8xf32, @m, [replicate, partial<sum>]> -> !dtensor.tensor<8xf32, @m, [shard<0>, partial<max>]>
  return
}

// -----

// (A grid, so that the module-level check of signatures stays out of the way.)
shard.grid @m(shape = 2)
func.func @redist_mesh_rank(%d: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) {
  // expected-error @+1 {{dtensor type has 2 placements, but the mesh has rank 1}}
  %r = dtensor.redistribute %d : !dtensor.tensor<8xf32, @m, [shard<0>, replicate]> -> !dtensor.tensor<8xf32, @m, [replicate, replicate]>
  return
}

//===----------------------------------------------------------------------===//
// local_region: the rules of docs/DTensorDialect.md, each with the seed's wording.
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @m shape = [2]
func.func @out_empty(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{out_placements must not be empty}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = []
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> tensor<4xf32> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @out_count(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{out_placements count 1 does not match output count 2}}
  %r:2 = dtensor.local_region on @m args(%x as "x") out_placements = [[shard<0>]]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>)
     -> (!dtensor.tensor<8xf32, @m, [shard<0>]>, !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l, %l : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @out_flat_many(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{out_placements count 1 does not match output count 2 (a flat out_placements is a single output's list)}}
  %r:2 = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>)
     -> (!dtensor.tensor<8xf32, @m, [shard<0>]>, !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l, %l : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @out_none_tensor(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{Tensor output requires non-None out_placements entry (output #0 yields 'tensor<4xf32>')}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [none]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> tensor<4xf32> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @out_scalar_placed(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{output #0 yields 'i64', which is not a ranked tensor; its out_placements entry must be none}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [[replicate]]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> i64 {
  ^bb0(%l: tensor<4xf32>):
    %c = arith.constant 0 : i64
    dtensor.yield %c : i64
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @dup_names(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>, %y: tensor<2xf32>) {
  // expected-error @+1 {{duplicate argument name 'x'}}
  dtensor.local_region on @m args(%x as "x", %y as "x")
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>, tensor<2xf32>) -> () {
  ^bb0(%l: tensor<4xf32>, %k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @empty_name(%y: tensor<2xf32>) {
  // expected-error @+1 {{argument names must not be empty}}
  dtensor.local_region on @m args(%y as "") : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @names_count(%y: tensor<2xf32>) {
  // expected-error @+1 {{has 1 operands but 2 argument names}}
  "dtensor.local_region"(%y) <{mesh = @m, arg_names = ["a", "b"]}> ({
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }) : (tensor<2xf32>) -> ()
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @out_entry_kind(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{attribute 'out_placements' failed to satisfy constraint: one placement list or none per output}}
  %r = "dtensor.local_region"(%x) <{mesh = @m, arg_names = ["x"], out_placements = [[1 : i64]]}> ({
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }) : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @in_entry_kind(%y: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'in_placements' failed to satisfy constraint: dictionary of names to placement lists or none}}
  "dtensor.local_region"(%y) <{mesh = @m, arg_names = ["y"], in_placements = {y = 3 : i64}}> ({
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }) : (tensor<2xf32>) -> ()
  return
}

// -----

// The flat form is the syntax's, not the op's: stored flat, out_placements
// fails the op's constraint.
dtensor.mesh @m shape = [2]
func.func @out_flat_stored(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{attribute 'out_placements' failed to satisfy constraint: one placement list or none per output}}
  %r = "dtensor.local_region"(%x) <{mesh = @m, arg_names = ["x"], out_placements = [#dtensor.shard<0>]}> ({
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }) : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
func.func @in_rank(%x: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) {
  // expected-error @+1 {{in_placements entry 'x' has 1 placements, but the mesh has rank 2}}
  dtensor.local_region on @m args(%x as "x") in_placements = {x = [replicate]} redistribute_inputs
      : (!dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> () {
  ^bb0(%l: tensor<8xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @in_shard_dim(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{in_placements entry 'x': shard dim 2 is out of range for a tensor of rank 2}}
  dtensor.local_region on @m args(%x as "x") in_placements = {x = [shard<2>]} redistribute_inputs
      : (!dtensor.tensor<8x8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4x8xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
dtensor.mesh @other shape = [2]
func.func @other_mesh(%x: !dtensor.tensor<8xf32, @other, [shard<0>]>) {
  // expected-error @+1 {{operand #0 ('x') is on mesh @other, but the region is on @m}}
  dtensor.local_region on @m args(%x as "x") : (!dtensor.tensor<8xf32, @other, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}

// -----

shard.grid @m(shape = 2)
func.func @operand_rank(%x: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) {
  // expected-error @+1 {{operand #0 ('x') has 2 placements, but the mesh has rank 1}}
  dtensor.local_region on @m args(%x as "x") : (!dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}

// -----

func.func @region_no_mesh(%y: tensor<2xf32>) {
  // expected-error @+1 {{'@nope' does not name a dtensor.mesh or a static shard.grid}}
  dtensor.local_region on @nope args(%y as "y") : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @needs_redistribute(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{operand #0 ('x') has placements [shard<0>] but in_placements declares [replicate]; set redistribute_inputs to redistribute it at entry}}
  dtensor.local_region on @m args(%x as "x") in_placements = {x = [replicate]}
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<8xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @illegal_entry_redistribute(%x: !dtensor.tensor<8xf32, @m, [partial<sum>]>) {
  // expected-error @+1 {{cannot redistribute operand #0 ('x') from [partial<sum>] to [partial<max>]: a partial placement cannot change its reduction}}
  dtensor.local_region on @m args(%x as "x") in_placements = {x = [partial<max>]} redistribute_inputs
      : (!dtensor.tensor<8xf32, @m, [partial<sum>]>) -> () {
  ^bb0(%l: tensor<8xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @block_arg_count(%y: tensor<2xf32>) {
  // expected-error @+1 {{body has 0 arguments, but the region has 1 operands}}
  dtensor.local_region on @m args(%y as "y") : (tensor<2xf32>) -> () {
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [4]
func.func @block_arg_local(%x: !dtensor.tensor<10xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{block argument #0 ('x') has type 'tensor<3xf32>', but the operand's local type is 'tensor<?xf32>'}}
  dtensor.local_region on @m args(%x as "x") : (!dtensor.tensor<10xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<3xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @block_arg_declared(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // The body sees the declared placement, not the operand's.
  // expected-error @+1 {{block argument #0 ('x') has type 'tensor<4xf32>', but the operand's local type is 'tensor<8xf32>'}}
  dtensor.local_region on @m args(%x as "x") in_placements = {x = [replicate]} redistribute_inputs
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @block_arg_passthrough(%y: tensor<2xf32>) {
  // expected-error @+1 {{block argument #0 ('y') has type 'tensor<2xf16>', but a non-DTensor operand enters the body unchanged as 'tensor<2xf32>'}}
  dtensor.local_region on @m args(%y as "y") : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf16>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @no_yield(%y: tensor<2xf32>) {
  // expected-error @+1 {{body must end with dtensor.yield}}
  dtensor.local_region on @m args(%y as "y") : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf32>):
    llvm.unreachable
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @yield_count(%y: tensor<2xf32>) {
  dtensor.local_region on @m args(%y as "y") : (tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%k: tensor<2xf32>):
    // expected-error @+1 {{yields 0 values, but the local_region has 1 results}}
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @result_unwrapped(%y: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type '!dtensor.tensor<4xf32, @m, [shard<0>]>', but the body yields 'tensor<2xf32>', which is returned unwrapped}}
  %r = dtensor.local_region on @m args(%y as "y") out_placements = [shard<0>]
      : (tensor<2xf32>) -> !dtensor.tensor<4xf32, @m, [shard<0>]> {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield %k : tensor<2xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @result_placements(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{result #0 has type '!dtensor.tensor<8xf32, @m, [replicate]>', but wrapping 'tensor<4xf32>' needs a !dtensor.tensor of rank 1 and element type 'f32' on @m with placements [shard<0>]}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @result_global_shape(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // Even split: the global size is local size x parts = 8, not 6.
  // expected-error @+1 {{result #0 '!dtensor.tensor<6xf32, @m, [shard<0>]>' has local type 'tensor<3xf32>', but the body yields 'tensor<4xf32>'}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<6xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @result_uneven_needs_dynamic(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // An uneven global shape needs a dynamic local dim in the body.
  // expected-error @+1 {{result #0 '!dtensor.tensor<7xf32, @m, [shard<0>]>' has local type 'tensor<?xf32>', but the body yields 'tensor<4xf32>'}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<7xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
func.func @out_rank(%x: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) {
  // expected-error @+1 {{out_placements entry #0 has 1 placements, but the mesh has rank 2}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return
}

// -----

shard.grid @dyn(shape = 2x?)
func.func @dynamic_grid(%t: tensor<4xf32>) {
  // expected-error @+1 {{'@dyn' does not name a dtensor.mesh or a static shard.grid}}
  %d = dtensor.from_local %t : tensor<4xf32> -> !dtensor.tensor<8xf32, @dyn, [shard<0>, replicate]>
  return
}

//===----------------------------------------------------------------------===//
// #dtensor.sharding
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{sharding: shard dim 1 is out of range for a tensor of rank 1}}
func.func @sharding_dim(%a: tensor<4xf32> {dtensor.sharding = #dtensor.sharding<@m, [shard<1>], global = [8]>}) { return }

// -----

// expected-error @+1 {{sharding needs at least one placement}}
func.func @sharding_empty(%a: tensor<4xf32> {dtensor.sharding = #dtensor.sharding<@m, [], global = [8]>}) { return }

// -----

// expected-error @+1 {{sharding global sizes must be non-negative or '?', got -8}}
func.func @sharding_negative(%a: tensor<4xf32> {dtensor.sharding = #dtensor.sharding<@m, [replicate], global = [-8]>}) { return }

//===----------------------------------------------------------------------===//
// Collectives on local tensors
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]
func.func @unknown_axis(%a: tensor<4xf32>) {
  // expected-error @+1 {{'ep' is not an axis of mesh @m (axes: dp, tp)}}
  %r = dtensor.all_reduce %a on @m axes = ["ep"] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]
func.func @axis_twice(%a: tensor<4xf32>) {
  // expected-error @+1 {{axis 'tp' is listed more than once}}
  %r = dtensor.all_reduce %a on @m axes = ["tp", "tp"] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @no_axes(%a: tensor<4xf32>) {
  // expected-error @+1 {{needs at least one mesh axis}}
  %r = dtensor.all_reduce %a on @m axes = [] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

dtensor.mesh @m shape = [4] names = ["tp"]
func.func @gather_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result dim 0 is 6, expected 8 for a group of 4}}
  %r = dtensor.all_gather %a on @m axes = ["tp"] gather_axis = 0 : tensor<2x3xf32> -> tensor<6x3xf32>
  return
}

// -----

dtensor.mesh @m shape = [4] names = ["tp"]
func.func @gather_axis_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %r = dtensor.all_gather %a on @m axes = ["tp"] gather_axis = 2 : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

dtensor.mesh @m shape = [4] names = ["tp"]
func.func @scatter_divides(%a: tensor<6x3xf32>) {
  // expected-error @+1 {{dim 0 of size 6 does not divide by the group size 4}}
  %r = dtensor.reduce_scatter %a on @m axes = ["tp"] reduction = sum scatter_axis = 0 : tensor<6x3xf32> -> tensor<1x3xf32>
  return
}

// -----

dtensor.mesh @m shape = [2] names = ["ep"]
func.func @a2a_shape(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{result dim 1 is 2, expected 4 for a group of 2}}
  %r = dtensor.all_to_all %a on @m axes = ["ep"] split_axis = 0 concat_axis = 1 : tensor<4x2xf32> -> tensor<2x2xf32>
  return
}

// -----

dtensor.mesh @m shape = [2] names = ["ep"]
func.func @reduce_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{result dim 0 is 2, expected 4 for a group of 2}}
  %r = dtensor.all_reduce %a on @m axes = ["ep"] reduction = avg : tensor<4xf32> -> tensor<2xf32>
  return
}

// -----

dtensor.mesh @m shape = [2] names = ["ep"]
func.func @elt_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{input and result must have the same element type}}
  %r = dtensor.all_reduce %a on @m axes = ["ep"] reduction = sum : tensor<4xf32> -> tensor<4xf16>
  return
}

// -----

dtensor.mesh @m shape = [2] names = ["ep"]
func.func @rank(%a: tensor<4xf32>) {
  // expected-error @+1 {{input and result must have the same rank}}
  %r = dtensor.all_gather %a on @m axes = ["ep"] gather_axis = 0 : tensor<4xf32> -> tensor<8x1xf32>
  return
}

// -----

dtensor.mesh @m shape = [2, 2] names = ["dp", "cp"]
func.func @shift_axes(%a: tensor<4xf32>) {
  // expected-error @+1 {{shifts along exactly one mesh axis, got 2}}
  %r = dtensor.shift %a on @m axes = ["dp", "cp"] offset = 1 rotate : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @collective_no_mesh(%a: tensor<4xf32>) {
  // expected-error @+1 {{'@nope' does not name a dtensor.mesh or a static shard.grid}}
  %r = dtensor.all_reduce %a on @nope axes = ["x"] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

dtensor.mesh @m shape = [2] names = ["ep"]
func.func @axis_index_name() {
  // expected-error @+1 {{'cp' is not an axis of mesh @m (axes: ep)}}
  %i = dtensor.axis_index @m "cp" : index
  return
}


// -----

dtensor.mesh @m shape = [2]
func.func @region_on_missing_mesh(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  // expected-error @+1 {{'@zz' does not name a dtensor.mesh or a static shard.grid}}
  %r = dtensor.local_region on @zz args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>]>
}

// -----

// A near miss of an argument name is likely a typo: a warning (the key is
// legal: an optional argument not passed). A key unlike every name is not.
dtensor.mesh @m shape = [2]
func.func @key_typo(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-warning @+1 {{in_placements names 'hiden', which no argument has (an optional argument that was not passed?); did you mean 'hidden'?}}
  dtensor.local_region on @m args(%x as "hidden") in_placements = {hiden = [shard<0>], optional_bias = none}
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}
