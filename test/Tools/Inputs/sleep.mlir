// Every rank sleeps for 100 s: a job that is still running when the user
// interrupts hp-runner.
func.func private @sleep(i32) -> i32
func.func @main() {
  %s = arith.constant 100 : i32
  %r = func.call @sleep(%s) : (i32) -> i32
  return
}
