// HP_TIMEOUT_S must be a positive finite number of seconds; anything else is
// refused when the runtime starts, on one rank or many, instead of silently
// disabling the watchdog or firing it at once.
// REQUIRES: mpi
// RUN: env HP_TIMEOUT_S=abc not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=ABC
// RUN: env HP_TIMEOUT_S=inf not %hp-runner -np 2 %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=INF
// RUN: env HP_TIMEOUT_S=nan not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: env HP_TIMEOUT_S=0 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: env HP_TIMEOUT_S=-5 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: env HP_TIMEOUT_S=2.5 %hp-runner -np 2 %s -e main --entry-point-result=void | FileCheck %s --check-prefix=OK
// ABC: hp: HP_TIMEOUT_S must be a positive number of seconds, got 'abc'
// INF: hp: HP_TIMEOUT_S must be a positive number of seconds, got 'inf'
// NAN: hp: HP_TIMEOUT_S must be a positive number of seconds, got 'nan'
// ZERO: hp: HP_TIMEOUT_S must be a positive number of seconds, got '0'
// NEG: hp: HP_TIMEOUT_S must be a positive number of seconds, got '-5'
// OK-COUNT-2: done

func.func @main() {
  vector.print str "done\n"
  return
}
