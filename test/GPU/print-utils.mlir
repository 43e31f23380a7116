// libhp_print_utils (the vector.print calls of ahead-of-time GPU
// executables, scripts/device-bundle.sh) prints what upstream's
// libmlir_c_runner_utils prints: the same module run by hp-runner (upstream
// library) and linked ahead of time against hp's gives the same output.
// REQUIRES: gpu-runtime
// RUN: %hp-runner %s -e main --entry-point-result=void > %t.jit
// RUN: hp-opt --hp-lower-to-cpu %s | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: llc -filetype=obj -relocation-model=pic %t.ll -o %t.o
// RUN: llvm-objcopy --redefine-sym main=hp_example_main %t.o
// RUN: echo 'void hp_example_main(void); int main(void) { hp_example_main(); return 0; }' | cc -x c -c - -o %t.entry.o
// RUN: c++ -fuse-ld=lld %t.o %t.entry.o -o %t.exe -L%hp_lib_dir -lhp_print_utils -Wl,-rpath,%hp_lib_dir -Wl,--no-undefined
// RUN: %t.exe > %t.aot
// RUN: diff %t.jit %t.aot
// RUN: FileCheck %s < %t.aot

// CHECK: text
// CHECK-NEXT: 1.5
// CHECK-NEXT: -0.25
// CHECK-NEXT: 1e+20
// CHECK-NEXT: inf
// CHECK-NEXT: -nan
// CHECK-NEXT: 0.1
// CHECK-NEXT: -7
// CHECK-NEXT: ( 1, 2.5, -3 )
func.func @main() {
  vector.print str "text\n"
  %a = arith.constant 1.5 : f32
  vector.print %a : f32
  %b = arith.constant -0.25 : f32
  vector.print %b : f32
  %c = arith.constant 1.0e20 : f32
  vector.print %c : f32
  %inf = arith.constant 0x7F800000 : f32
  vector.print %inf : f32
  %nan = arith.constant 0xFFC00000 : f32
  vector.print %nan : f32
  %d = arith.constant 0.1 : f64
  vector.print %d : f64
  %i = arith.constant -7 : i64
  vector.print %i : i64
  %v = arith.constant dense<[1.0, 2.5, -3.0]> : vector<3xf32>
  vector.print %v : vector<3xf32>
  return
}
