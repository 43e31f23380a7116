// A session (dtensor-add-driver{session-inputs=1}) on 2 ranks, driven by a
// bare client of the protocol: argument 1 is read once, argument 0 per
// call from the call's directory; each result comes back in that
// directory and the answer on the replies FIFO names the call. A 'memory'
// request gets every rank's peak resident memory.
// REQUIRES: mpi
// RUN: rm -rf %t && mkdir -p %t
// RUN: hp-opt %s -dtensor-add-driver=session-inputs=1 -o %t/p.mlir
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/s calls | FileCheck %s
// CHECK: call 0: (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0) (7, 8, 9)
// CHECK: call 1: (20.0, 22.0, 24.0, 26.0, 28.0, 30.0, 32.0, 34.0) (7, 8, 9)
// CHECK: call 2: (40.0, 42.0, 44.0, 46.0, 48.0, 50.0, 52.0, 54.0) (7, 8, 9)
// CHECK: memory: 2 ranks, each above 1 MiB: True
// CHECK: exit 0
//
// The requests' own directories apart from the session directory
// (HP_SESSION_CALLS, where hp.torch puts them on /dev/shm): the same calls.
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/a calls-apart | FileCheck %s --check-prefix=APART
// APART: call 0: (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0) (7, 8, 9)
// APART: call 2: (40.0, 42.0, 44.0, 46.0, 48.0, 50.0, 52.0, 54.0) (7, 8, 9)
// APART: memory: 2 ranks, each above 1 MiB: True
// APART: requests in DIR-calls: ['0', '1', '2', '3'], in DIR: []
// APART: exit 0
//
// A client that ends without stopping the session: the ranks see it, end,
// and remove the session directory (the client asked: HP_SESSION_REMOVE_DIR=1).
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/o orphan | FileCheck %s --check-prefix=ORPHAN
// ORPHAN: hp: the session's client (pid {{[0-9]+}}) ended without closing it: the ranks end and remove {{.*}}/o
// ORPHAN: exit 0
// ORPHAN: directory removed
// Both directories go when they are apart.
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/oa orphan-apart | FileCheck %s --check-prefix=ORPHAN-APART
// ORPHAN-APART: hp: the session's client (pid {{[0-9]+}}) ended without closing it: the ranks end and remove {{.*}}/oa and {{.*}}/oa-calls
// ORPHAN-APART: exit 0
// ORPHAN-APART: directory removed
// ORPHAN-APART: calls directory removed
//
// Idle past HP_TIMEOUT_S: the job ends, saying why.
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/i idle | FileCheck %s --check-prefix=IDLE
// IDLE: hp_session_next (waiting for the session's next call) timed out after {{.*}}the session was idle that long
// IDLE-NOT: exit 0
//
// A request that is not a call number ends the job, naming it.
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/g garbage | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: hp_session_next: a request is '<n>', '<n> <entry>', 'state <n>', 'memory <n>' or 'stop' (n a request number, entry an entry's index, both in decimal without a sign or a leading zero), got 'seven'
// GARBAGE-NOT: exit 0
//
// A number has one spelling: '00', '+1' and an entry '01' are no requests
// (a reply echoing '0' would answer another request than the client's).
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/z garbage 00 | FileCheck %s --check-prefix=ZEROS
// ZEROS: a request is {{.*}} got '00'
// ZEROS-NOT: exit 0
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/p garbage +1 | FileCheck %s --check-prefix=PLUS
// PLUS: a request is {{.*}} got '+1'
// PLUS-NOT: exit 0
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/e garbage "0 01" | FileCheck %s --check-prefix=ENTRY
// ENTRY: a request is {{.*}} got '0 01'
// ENTRY-NOT: exit 0

dtensor.mesh @tp shape = [2]

func.func @forward(%x: !dtensor.tensor<2x4xf32, @tp, [shard<1>]>,
                   %n: !dtensor.tensor<3xi64, @tp, [replicate]>)
    -> (!dtensor.tensor<2x4xf32, @tp, [shard<0>]>, !dtensor.tensor<3xi64, @tp, [replicate]>) {
  %d = dtensor.local_region on @tp args(%x as "x") in_placements = {x = [shard<1>]}
      out_placements = [shard<1>] : (!dtensor.tensor<2x4xf32, @tp, [shard<1>]>)
      -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]> {
  ^bb0(%l: tensor<2x2xf32>):
    %y = arith.addf %l, %l : tensor<2x2xf32>
    dtensor.yield %y : tensor<2x2xf32>
  }
  %r = dtensor.redistribute %d : !dtensor.tensor<2x4xf32, @tp, [shard<1>]> -> !dtensor.tensor<2x4xf32, @tp, [shard<0>]>
  return %r, %n : !dtensor.tensor<2x4xf32, @tp, [shard<0>]>, !dtensor.tensor<3xi64, @tp, [replicate]>
}
