// hp-opt refuses input that would overflow the parser's stack or exhaust
// memory with an error naming the input and a non-zero exit, before parsing.

// 4,000 nested regions: the bracket that first nests deeper than 512.
// RUN: %python %S/Inputs/nested-regions.py 4000 > %t.deep.mlir
// RUN: not hp-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not hp-opt - < %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEPSTDIN
// RUN: not hp-opt --split-input-file --verify-diagnostics %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:257:25: input nests deeper than 512 brackets (regions, lists, attributes or types); hp refuses it rather than overflow the parser's stack
// DEEPSTDIN: <stdin>:257:25: input nests deeper than 512 brackets
// Bytecode has no brackets to scan: its regions are counted (on a stack
// large enough to read them) and 4,000 nested regions are refused at the
// op that first nests deeper than 512, instead of overflowing the stack
// when the IR is printed or destroyed. (mlir-opt writes it on an unlimited
// stack; reading and writing such nests takes time quadratic in the depth,
// a minute at 20,000.) hp-runner checks bytecode the same way.
// RUN: %python %S/Inputs/nested-regions.py 4000 > %t.deeper.mlir
// RUN: bash -c 'ulimit -s unlimited && mlir-opt %t.deeper.mlir --emit-bytecode -o %t.deep.mlirbc'
// RUN: not hp-opt %t.deep.mlirbc 2>&1 | FileCheck %s --check-prefix=DEEPBC
// RUN: not hp-opt - < %t.deep.mlirbc 2>&1 | FileCheck %s --check-prefix=DEEPBC
// RUN: not %hp-runner %t.deep.mlirbc 2>&1 | FileCheck %s --check-prefix=DEEPBC
// DEEPBC: deeper.mlir":{{[0-9]+}}:{{[0-9]+}}): 'scf.{{[a-z_]+}}' in bytecode nests deeper than 512 regions; hp refuses it rather than overflow the stack
// RUN: %python %S/Inputs/nested-regions.py 200 | hp-opt --emit-bytecode | hp-opt | FileCheck %s --check-prefix=SHALLOW
// 200 nested regions stay within the bound.
// RUN: %python %S/Inputs/nested-regions.py 200 | hp-opt | FileCheck %s --check-prefix=SHALLOW
// SHALLOW: func.func @deep

// The affine parser also recurses per operator, with no bracket to count: a
// chain of 2,000 unary minuses or additions is refused likewise.
// RUN: %python -c "print('#m = affine_map<(d0) -> (' + '- ' * 2000 + 'd0)>')" > %t.minus.mlir
// RUN: not hp-opt %t.minus.mlir 2>&1 | FileCheck %s --check-prefix=MINUS
// MINUS: minus.mlir:1:2026: an affine expression chains more than 1000 operators; hp refuses it rather than overflow the parser's stack
// RUN: %python -c "print('func.func @f(%%m: memref<4xf32>, %%i: index) -> f32 {\n  %%v = affine.load %%m[%%i' + ' + %%i' * 2000 + '] : memref<4xf32>\n  return %%v : f32\n}')" > %t.plus.mlir
// RUN: not hp-opt %t.plus.mlir 2>&1 | FileCheck %s --check-prefix=PLUS
// PLUS: plus.mlir:2:{{[0-9]+}}: an affine expression chains more than 1000 operators
// A chain within the bound parses.
// RUN: %python -c "print('#m = affine_map<(d0) -> (' + 'd0 + ' * 100 + 'd0)>\nfunc.func private @g() attributes {m = #m}')" | hp-opt | FileCheck %s --check-prefix=CHAIN
// CHAIN: func.func private @g

// --split-input-file parses each chunk apart, so each is scanned apart: 300
// chunks that each leave 3 brackets open (an error in each) are not 900 deep.
// RUN: %python -c "print('\n// -----\n'.join(['// expected-error@+1 {{expected}}\n\"t.op\"() ({ [ (' for _ in range(300)]))" > %t.split.mlir
// RUN: not hp-opt %t.split.mlir 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: hp-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %t.split.mlir -o /dev/null
// WHOLE: input nests deeper than 512 brackets

// An input larger than --max-input-bytes (default 1 GiB) is refused; an
// endless one is read only up to the limit.
// RUN: not hp-opt --max-input-bytes=100 %s 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not hp-opt --max-input-bytes=100 /dev/zero 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not hp-opt --max-input-bytes=100 - < /dev/zero 2>&1 | FileCheck %s --check-prefix=STDIN
// FILE: input '{{.*}}hp-opt-input-limits.mlir' is {{[0-9]+}} bytes, more than the limit of 100 bytes (--max-input-bytes)
// ZERO: input '/dev/zero' is larger than the limit of 100 bytes (--max-input-bytes)
// STDIN: input '<stdin>' is larger than the limit of 100 bytes (--max-input-bytes)
// Within the limit, files, standard input and bytecode read as before.
// RUN: hp-opt --max-input-bytes=100000 %s | FileCheck %s --check-prefix=OK
// RUN: cat %s | hp-opt --max-input-bytes=100000 | FileCheck %s --check-prefix=OK
// RUN: hp-opt %s --emit-bytecode -o %t.mlirbc
// RUN: hp-opt %t.mlirbc | FileCheck %s --check-prefix=OK
// OK: func.func @small

func.func @small() {
  return
}
