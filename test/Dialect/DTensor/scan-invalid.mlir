// RUN: hp-opt %s -split-input-file -verify-diagnostics

func.func @dim_past_rank(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dim 2 is not a dim of a rank-2 tensor}}
  %a = dtensor.scan sum %x dim = 2 : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

func.func @negative_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dim -1 is not a dim of a rank-2 tensor}}
  %a = dtensor.scan sum %x dim = -1 : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

func.func @avg(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{kind 'avg' is not a scan}}
  %a = dtensor.scan avg %x dim = 0 : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{scans signless integers (not i1), f16, bf16, f32 or f64, not 'complex<f32>'}}
  %a = dtensor.scan sum %x dim = 0 : tensor<4xcomplex<f32>>
  return %a : tensor<4xcomplex<f32>>
}

// -----

// The generic form's kind is a ReduceOp's value (0 to 4).
func.func @kind_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'kind' failed to satisfy constraint}}
  %a = "dtensor.scan"(%x) {dim = 0 : i64, kind = 9 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @result_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{all of {input, result} have same type}}
  %a = "dtensor.scan"(%x) {dim = 0 : i64, kind = 0 : i32} : (tensor<4xf32>) -> tensor<4xf64>
  return %a : tensor<4xf64>
}

// -----

func.func @init_shape(%x: tensor<4x8xf32>, %i: tensor<4x8xf64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{init must be 'tensor<4x1xf64>' (the input's shape with dim 1 of size 1, the carried type 'f64'), not 'tensor<4x8xf64>'}}
  %a = dtensor.scan sum %x dim = 1 from %i : tensor<4x8xf64> : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

func.func @init_type(%x: tensor<4x8xf32>, %i: tensor<4x1xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{init must be 'tensor<4x1xf64>'}}
  %a = dtensor.scan sum %x dim = 1 from %i : tensor<4x1xf32> : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

func.func @init_rank(%x: tensor<4x8xi64>, %i: tensor<4xi64>) -> tensor<4x8xi64> {
  // expected-error @+1 {{init must be 'tensor<4x1xi64>'}}
  %a = dtensor.scan sum %x dim = 1 from %i : tensor<4xi64> : tensor<4x8xi64>
  return %a : tensor<4x8xi64>
}

// -----

func.func @bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{scans signless integers (not i1), f16, bf16, f32 or f64, not 'i1'}}
  %a = dtensor.scan max %x dim = 0 : tensor<4xi1>
  return %a : tensor<4xi1>
}

// -----

func.func @signed(%x: tensor<4xsi32>) -> tensor<4xsi32> {
  // expected-error @+1 {{not 'si32'}}
  %a = dtensor.scan sum %x dim = 0 : tensor<4xsi32>
  return %a : tensor<4xsi32>
}

// -----

func.func @float8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{not 'f8E4M3FN'}}
  %a = dtensor.scan max %x dim = 0 : tensor<4xf8E4M3FN>
  return %a : tensor<4xf8E4M3FN>
}
