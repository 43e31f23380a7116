// hp-runner compiles a program once per job, in the launcher, and keeps the
// object in a cache per node (HP_CACHE_DIR): every rank loads that one
// object, and a later job of the same program, options, host and build
// takes it from the cache instead of lowering and generating code again.
// REQUIRES: mpi
// RUN: rm -rf %t.cache %t.tmp && mkdir %t.tmp

// The first job misses, compiles and stores; both ranks run the object.
// RUN: env HP_CACHE_DIR=%t.cache TMPDIR=%t.tmp %hp-runner -np 2 --compile-report %S/Inputs/two-ranks.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=MISS < %t.err
// RUN: FileCheck %s --check-prefix=RAN < %t.out
// MISS: hp-runner: compile: cache miss, {{[0-9]+}} bytes: parse {{[0-9.]+}} s, lower {{[0-9.]+}} s, codegen {{[0-9.]+}} s ({{.*}}.cache/llvmcache-hp-{{[0-9a-f]+}}.o)
// RAN-COUNT-2: ( 0, 1, 2, 3, 4, 5, 6, 7 )
// RUN: ls %t.cache | grep -c '^llvmcache-hp-' | FileCheck %s --check-prefix=ONE
// ONE: {{^1$}}
// Nothing is left in TMPDIR: the job's own copy of the object, which its
// ranks read, is gone.
// RUN: ls %t.tmp | count 0

// The second job hits, and runs the same.
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report %S/Inputs/two-ranks.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=HIT < %t.err
// RUN: FileCheck %s --check-prefix=RAN < %t.out
// HIT: hp-runner: compile: cache hit, {{[0-9]+}} bytes in {{[0-9.]+}} s ({{.*}}.cache/llvmcache-hp-{{[0-9a-f]+}}.o)
// HIT-NOT: miss
// The object does not depend on -np: one rank without mpirun hits what a
// job of two ranks stored.
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report %S/Inputs/entry-points.mlir 2>&1 | FileCheck %s --check-prefix=MISS2
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner --compile-report %S/Inputs/entry-points.mlir 2>&1 | FileCheck %s --check-prefixes=HIT,ONCE
// ONCE: ran
// ONCE-NOT: ran

// Another input, option or flag of LLVM's misses (the key's other parts,
// the target, chip, host and build, are HPUnitTests' ObjectCacheTest).
// RUN: sed 's/1.0, 2.0/1.5, 2.0/' %S/Inputs/two-ranks.mlir > %t.changed.mlir
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report %t.changed.mlir 2>&1 | FileCheck %s --check-prefix=MISS2
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report --check-bounds %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=MISS2
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report -O2 %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=MISS2
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report --fast-isel %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=MISS2
// The same bytes under another name miss too: run-time checks print source
// locations, which carry the name.
// RUN: cp %S/Inputs/two-ranks.mlir %t.copy.mlir
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report %t.copy.mlir 2>&1 | FileCheck %s --check-prefix=MISS2
// --input-name names the input instead (hp.torch writes each program to a
// new temporary file): the same bytes under two paths and one name hit.
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report --input-name=program.mlir %t.copy.mlir 2>&1 | FileCheck %s --check-prefix=MISS2
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report --input-name=program.mlir %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=HIT
// MISS2: hp-runner: compile: cache miss
// RUN: ls %t.cache | grep -c '^llvmcache-hp-' | FileCheck %s --check-prefix=EIGHT
// EIGHT: {{^8$}}

// A damaged entry (here cut short) is not an object of hp's: it is compiled
// again and replaced.
// RUN: for f in %t.cache/llvmcache-hp-*; do head -c 100 $f > $f.cut && mv $f.cut $f; done
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report %S/Inputs/two-ranks.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=MISS2 < %t.err
// RUN: FileCheck %s --check-prefix=RAN < %t.out
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=HIT

// What a compile prints (a warning, a remark) is kept with the object and
// printed again by a hit, as the miss printed it.
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner --compile-report %S/Inputs/typo-warning.mlir > %t.warn.out 2>&1
// RUN: FileCheck %s --check-prefixes=WARN,WARN-MISS < %t.warn.out
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner --compile-report %S/Inputs/typo-warning.mlir > %t.warn.out 2>&1
// RUN: FileCheck %s --check-prefixes=WARN,WARN-HIT < %t.warn.out
// WARN: typo-warning.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: in_placements names 'hiden'
// WARN-MISS: hp-runner: compile: cache miss, {{.*}}.o)
// WARN-HIT: hp-runner: compile: cache hit,
// WARN-NOT: warning


// --compile-report=FILE writes the same as a JSON object (hp.torch reads
// it into Session.compile_report); it is not part of the key. A file that
// cannot be written, or no file, is an error.
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report=%t.report.json %S/Inputs/two-ranks.mlir > /dev/null
// RUN: FileCheck %s --check-prefix=JSON-HIT < %t.report.json
// JSON-HIT: {"bytes":{{[0-9]+}},"cache":"hit","codegen_s":0,"lower_s":0,"parse_s":0,"stored":"{{.*}}.cache/llvmcache-hp-{{[0-9a-f]+}}.o","total_s":{{[0-9.e-]+}}}
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --compile-report=%t.report.json --compile-report -O1 %S/Inputs/two-ranks.mlir > /dev/null 2> %t.err
// RUN: FileCheck %s --check-prefix=JSON-MISS < %t.report.json
// RUN: FileCheck %s --check-prefix=MISS2 < %t.err
// JSON-MISS: {"bytes":{{[0-9]+}},"cache":"miss","codegen_s":{{[0-9.e-]+}},"lower_s":{{[0-9.e-]+}},"parse_s":{{[0-9.e-]+}},"stored":"{{.*}}","total_s":{{[0-9.e-]+}}}
// RUN: not %hp-runner -np 2 --compile-report=%t.none/report.json %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=JSON-UNWRITABLE
// JSON-UNWRITABLE: hp-runner: cannot write the compile report to {{.*}}none/report.json: No such file or directory
// RUN: not %hp-runner -np 2 --compile-report= %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=JSON-EMPTY
// JSON-EMPTY: hp-runner: --compile-report= needs a file

// HP_CACHE=0 compiles without the cache, into a temporary file that goes
// when the job ends.
// RUN: env HP_CACHE=0 HP_CACHE_DIR=%t.none TMPDIR=%t.tmp %hp-runner -np 2 --compile-report %S/Inputs/two-ranks.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OFF < %t.err
// RUN: FileCheck %s --check-prefix=RAN < %t.out
// RUN: not ls %t.none
// RUN: ls %t.tmp | count 0
// OFF: hp-runner: compile: cache off, {{.*}} (not cached)

// A cache that cannot be used (here a file stands where its directory
// would be) is a warning; the job runs.
// RUN: touch %t.file
// RUN: env HP_CACHE_DIR=%t.file/objects %hp-runner -np 2 %S/Inputs/two-ranks.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=UNWRITABLE < %t.err
// RUN: FileCheck %s --check-prefix=RAN < %t.out
// UNWRITABLE: hp-runner: warning: compiling without the cache: cannot inspect the cache directory {{.*}}.file/objects: Not a directory

// A cache directory other users could write to is not used: an entry is
// code that runs as whoever loads it. A new one is its owner's alone.
// RUN: mkdir -p %t.shared && chmod 777 %t.shared
// RUN: env HP_CACHE_DIR=%t.shared %hp-runner -np 2 --compile-report %S/Inputs/two-ranks.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=SHARED < %t.err
// RUN: FileCheck %s --check-prefix=RAN < %t.out
// SHARED: hp-runner: warning: compiling without the cache: the cache directory {{.*}}.shared is writable by other users (chmod go-w)
// SHARED: hp-runner: compile: cache off
// RUN: stat -c %%a %t.cache | FileCheck %s --check-prefix=MODE
// MODE: {{^700$}}
// A relative HP_CACHE_DIR is the same directory for the ranks.
// RUN: cd %t.cache/.. && env HP_CACHE_DIR=%basename_t.tmp.cache %hp-runner -np 2 --compile-report %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=HIT

// Diagnostics carry the name given.
// RUN: echo 'func.func @main() { return %%x : i32 }' > %t.bad.mlir
// RUN: not %hp-runner --input-name=named.mlir %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=NAMED
// NAMED: named.mlir:1:28: error: use of undeclared SSA value name
// RUN: not %hp-runner --input-name= %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=NONAME
// NONAME: hp-runner: --input-name needs a name

// Malformed settings are refused before anything is compiled.
// RUN: env HP_CACHE=maybe not %hp-runner %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=BADON
// BADON: hp-runner: HP_CACHE must be 1, on, yes, 0, off or no, not 'maybe'
// RUN: env HP_CACHE_MAX_MB=lots not %hp-runner %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=BADMAX
// BADMAX: hp-runner: HP_CACHE_MAX_MB must be a positive number of megabytes, not 'lots'
// RUN: env HP_CACHE_DIR= not %hp-runner %S/Inputs/two-ranks.mlir 2>&1 | FileCheck %s --check-prefix=BADDIR
// BADDIR: hp-runner: HP_CACHE_DIR is empty: name a directory, or set HP_CACHE=0 to compile without a cache

// --dump-object-file writes the object as mlir-runner does, hit or miss.
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner -np 2 --dump-object-file --object-filename=%t.o %S/Inputs/two-ranks.mlir
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=NM
// NM-DAG: T __hp_program_entry
// NM-DAG: T main
// NM-DAG: U ncclAllGather
