// HP_TIMEOUT_S must be a positive plain decimal number of seconds, at most a
// week;
// anything else (malformed, overflowing, out of range) is refused when the
// runtime starts, on one rank or many, instead of silently disabling the
// watchdog or firing it at once.
// REQUIRES: mpi
// RUN: env HP_TIMEOUT_S=abc not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=ABC
// RUN: env HP_TIMEOUT_S=inf not %hp-runner -np 2 %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=INF
// RUN: env HP_TIMEOUT_S=nan not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: env HP_TIMEOUT_S=0 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: env HP_TIMEOUT_S=-5 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: env HP_TIMEOUT_S=1e9 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: env HP_TIMEOUT_S=1e999 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// Only plain decimals (digits, an optional fraction): no hexadecimal, no
// blanks, no exponent.
// RUN: env HP_TIMEOUT_S=0x10 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=HEX
// RUN: env HP_TIMEOUT_S=' 5' not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=BLANK
// RUN: env HP_TIMEOUT_S=1e-7 not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=EXP
// RUN: env HP_TIMEOUT_S=5. not %hp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=DOT
// HEX: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got '0x10'
// BLANK: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got ' 5'
// EXP: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got '1e-7'
// DOT: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got '5.'
// RUN: env HP_TIMEOUT_S=604800 %hp-runner %s -e main --entry-point-result=void | FileCheck %s --check-prefix=WEEK
// RUN: env HP_TIMEOUT_S=2.5 %hp-runner -np 2 %s -e main --entry-point-result=void | FileCheck %s --check-prefix=OK
// ABC: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got 'abc'
// INF: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got 'inf'
// NAN: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got 'nan'
// ZERO: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got '0'
// NEG: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got '-5'
// LONG: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got '1e9'
// OVERFLOW: hp: HP_TIMEOUT_S must be a positive number of seconds, at most 604800 (one week), got '1e999'
// OK-COUNT-2: done
// WEEK: done

func.func @main() {
  vector.print str "done\n"
  return
}
