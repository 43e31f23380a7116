// hp-lsp-server answers malformed input with a JSON-RPC error response (id
// null when the message has none: -32700 for framing and JSON, -32600 for a
// message that is not a JSON-RPC 2.0 request) and keeps serving: after each
// one, an initialize request is still answered. It never waits for a body
// it refuses, nor allocates one: messages are bounded at 64 MiB.
// RUN: %python %S/Inputs/lsp-robustness.py hp-lsp-server framing | FileCheck %s
// CHECK: start: initialize answered
// CHECK-NEXT: negative: error -32700 id=null: Content-Length '-5' is not a byte count
// CHECK-NEXT: negative: initialize answered
// CHECK-NEXT: non-numeric: error -32700 id=null: Content-Length 'abc' is not a byte count
// CHECK-NEXT: non-numeric: initialize answered
// CHECK-NEXT: max-uint64: error -32700 id=null: a message of 18446744073709551615 bytes is larger than the limit of 64 MiB
// CHECK-NEXT: max-uint64: initialize answered
// CHECK-NEXT: overflow: error -32700 id=null: Content-Length '99999999999999999999999' is not a byte count
// CHECK-NEXT: overflow: initialize answered
// A header before a bad Content-Length draws one error, not one per retry;
// a header glued to garbage is still found.
// CHECK-NEXT: typed-non-numeric: error -32700 id=null: Content-Length 'x' is not a byte count
// CHECK-NEXT: typed-non-numeric: initialize answered
// CHECK-NEXT: typed-too-large: error -32700 id=null: a message of 99999999999 bytes is larger than the limit of 64 MiB
// CHECK-NEXT: typed-too-large: initialize answered
// CHECK-NEXT: glued: error -32700 id=null: malformed header line '{}garbageContent-Length: 2' (expected 'Name: value')
// CHECK-NEXT: glued: error -32600 id=null: the message lacks "jsonrpc": "2.0"
// CHECK-NEXT: glued: initialize answered
// CHECK-NEXT: many-headers: error -32700 id=null: more than 64 header lines
// CHECK-NEXT: many-headers: error -32600 id=null: the message lacks "jsonrpc": "2.0"
// CHECK-NEXT: many-headers: initialize answered
// CHECK-NEXT: no-length: error -32700 id=null: a message without a Content-Length header
// CHECK-NEXT: no-length: initialize answered
// CHECK-NEXT: bad-header: error -32700 id=null: malformed header line 'hello there' (expected 'Name: value')
// CHECK-NEXT: bad-header: initialize answered
// CHECK-NEXT: long-line: error -32700 id=null: a header line is longer than 4096 bytes
// CHECK-NEXT: long-line: initialize answered
// CHECK-NEXT: binary: error -32700 id=null: malformed header line
// CHECK: binary: initialize answered
// CHECK-NEXT: not-json: error -32700 id=null: the message is not JSON: [1:2, byte=2]: Expected object key
// CHECK-NEXT: not-json: initialize answered
// CHECK-NEXT: deep-json: error -32700 id=null: the message nests deeper than 512 arrays and objects (line 1, column 513)
// CHECK-NEXT: deep-json: initialize answered
// CHECK-NEXT: no-jsonrpc: error -32600 id=7: the message lacks "jsonrpc": "2.0"
// CHECK-NEXT: no-jsonrpc: initialize answered
// CHECK-NEXT: jsonrpc-1.0: error -32600 id=7: the message lacks "jsonrpc": "2.0"
// CHECK-NEXT: jsonrpc-1.0: initialize answered
// CHECK-NEXT: batch: error -32600 id=null: a JSON-RPC message must be an object
// CHECK-NEXT: batch: initialize answered
// CHECK-NEXT: empty-object: error -32600 id=null: the message has neither a method nor an id
// CHECK-NEXT: empty-object: initialize answered
// CHECK-NEXT: method-not-string: error -32600 id=7: the method must be a string
// CHECK-NEXT: method-not-string: initialize answered
// An id that is not a string or an integer (1e400 parses as an infinity) is
// refused, and answered with id null: the response stays JSON.
// CHECK-NEXT: infinite-id: error -32600 id=null: the id must be a string or an integer
// CHECK-NEXT: infinite-id: initialize answered
// CHECK-NEXT: infinite-id-no-jsonrpc: error -32600 id=null: the id must be a string or an integer
// CHECK-NEXT: infinite-id-no-jsonrpc: initialize answered
// CHECK-NEXT: fraction-id: error -32600 id=null: the id must be a string or an integer
// CHECK-NEXT: fraction-id: initialize answered
// CHECK-NEXT: exit code 0

// A 1 GiB Content-Length is refused at once; a body over the bound is
// skipped without being held, and the next message is served.
// RUN: %python %S/Inputs/lsp-robustness.py hp-lsp-server memory | FileCheck %s --check-prefix=MEMORY
// MEMORY: start: initialize answered
// MEMORY-NEXT: 1GiB: error -32700 id=null: a message of 1073741824 bytes is larger than the limit of 64 MiB
// MEMORY-NEXT: 1GiB: initialize answered
// MEMORY-NEXT: 64MiB+1: error -32700 id=null: a message of 67108865 bytes is larger than the limit of 64 MiB
// MEMORY-NEXT: 64MiB+1: initialize answered
// MEMORY-NEXT: peak memory below 256 MiB: True
// MEMORY-NEXT: exit code 0

// --help and --version still print and exit.
// RUN: hp-lsp-server --help | FileCheck %s --check-prefix=HELP
// HELP: OVERVIEW: MLIR LSP Language Server
// RUN: hp-lsp-server --version | FileCheck %s --check-prefix=VERSION
// VERSION: hp version

// A client that writes on after `exit` does not outlive what the input
// filter uses: the server ends with status 0 each time.
// RUN: %python %S/Inputs/lsp-robustness.py hp-lsp-server after-exit | FileCheck %s --check-prefix=AFTER-EXIT
// AFTER-EXIT: exit code 0 each time
