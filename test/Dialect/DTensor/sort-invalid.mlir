// RUN: hp-opt %s -split-input-file -verify-diagnostics

func.func @dim_past_rank(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dim 2 is not a dim of a rank-2 tensor}}
  %a, %i = dtensor.sort %x dim = 2 : tensor<4x8xf32> -> tensor<4x8xi64>
  return %a : tensor<4x8xf32>
}

// -----

func.func @negative_dim(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dim -1 is not a dim of a rank-1 tensor}}
  %a, %i = dtensor.sort %x dim = -1 : tensor<4xf32> -> tensor<4xi64>
  return %a : tensor<4xf32>
}

// -----

func.func @complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{sorts signless integers or floats, not 'complex<f32>'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<4xcomplex<f32>> -> tensor<4xi64>
  return %a : tensor<4xcomplex<f32>>
}

// -----

func.func @indices_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{indices must be 'tensor<4xi64>', not 'tensor<4xi32>'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<4xf32> -> tensor<4xi32>
  return %a : tensor<4xf32>
}

// -----

func.func @indices_shape(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{indices must be 'tensor<4xi64>', not 'tensor<5xi64>'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<4xf32> -> tensor<5xi64>
  return %a : tensor<4xf32>
}

// -----

func.func @values_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{all of {input, values} have same type}}
  %a:2 = "dtensor.sort"(%x) {dim = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf64>, tensor<4xi64>)
  return %a#0 : tensor<4xf64>
}

// -----

func.func @unsigned(%x: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{sorts signless integers or floats, not 'ui8'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<4xui8> -> tensor<4xi64>
  return %a : tensor<4xui8>
}

// -----

func.func @indices_static_for_dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{indices must be 'tensor<?xi64>', not 'tensor<4xi64>'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<?xf32> -> tensor<4xi64>
  return %a : tensor<?xf32>
}

// -----

func.func @wider_than_64_bits(%x: tensor<4xi128>) -> tensor<4xi128> {
  // expected-error @+1 {{sorts elements of at most 64 bits, not 'i128'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<4xi128> -> tensor<4xi64>
  return %a : tensor<4xi128>
}

// -----

func.func @small_float(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{sorts floats of f16, bf16, f32 or f64, not 'f8E4M3FN'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<4xf8E4M3FN> -> tensor<4xi64>
  return %a : tensor<4xf8E4M3FN>
}

// -----

// A float without a sign bit has no key either.
func.func @unsigned_float(%x: tensor<4xf8E8M0FNU>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{sorts floats of f16, bf16, f32 or f64, not 'f8E8M0FNU'}}
  %a, %i = dtensor.sort %x dim = 0 : tensor<4xf8E8M0FNU> -> tensor<4xi64>
  return %a : tensor<4xf8E8M0FNU>
}
