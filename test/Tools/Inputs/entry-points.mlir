// Entry points of several signatures, for hp-runner-checks.mlir.
func.func @answer() -> i32 {
  %c = arith.constant 42 : i32
  return %c : i32
}

func.func @takes(%x: i32) {
  return
}

func.func @main() {
  vector.print str "ran\n"
  return
}
