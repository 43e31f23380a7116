// A module whose constructors and destructors print their number, for
// hp-runner-object.mlir: constructors run by ascending priority (1 at 10,
// 2 at 20), then the entry point (3), then destructors by descending
// priority (5 at 20, 4 at 10), as a loader runs them (LangRef).
llvm.func @printI64(i64)
llvm.func @printNewline()
llvm.func @say(%v: i64) {
  llvm.call @printI64(%v) : (i64) -> ()
  llvm.call @printNewline() : () -> ()
  llvm.return
}
llvm.func @one() {
  %c = llvm.mlir.constant(1 : i64) : i64
  llvm.call @say(%c) : (i64) -> ()
  llvm.return
}
llvm.func @two() {
  %c = llvm.mlir.constant(2 : i64) : i64
  llvm.call @say(%c) : (i64) -> ()
  llvm.return
}
llvm.func @four() {
  %c = llvm.mlir.constant(4 : i64) : i64
  llvm.call @say(%c) : (i64) -> ()
  llvm.return
}
llvm.func @five() {
  %c = llvm.mlir.constant(5 : i64) : i64
  llvm.call @say(%c) : (i64) -> ()
  llvm.return
}
llvm.mlir.global_ctors ctors = [@two, @one], priorities = [20 : i32, 10 : i32], data = [#llvm.zero, #llvm.zero]
llvm.mlir.global_dtors dtors = [@four, @five], priorities = [10 : i32, 20 : i32], data = [#llvm.zero, #llvm.zero]
llvm.func @main() {
  %c = llvm.mlir.constant(3 : i64) : i64
  llvm.call @say(%c) : (i64) -> ()
  llvm.return
}
