// Entry points of each result kind mlir-runner prints, and a module's
// constructors and destructors, for hp-runner-object.mlir (LLVM dialect:
// mlir-runner runs it too).
llvm.func @negative() -> i32 {
  %c = llvm.mlir.constant(-7 : i32) : i32
  llvm.return %c : i32
}
llvm.func @large() -> i64 {
  %c = llvm.mlir.constant(9000000000 : i64) : i64
  llvm.return %c : i64
}
llvm.func @half() -> f32 {
  %c = llvm.mlir.constant(2.5 : f32) : f32
  llvm.return %c : f32
}
llvm.func @nothing() {
  llvm.return
}
