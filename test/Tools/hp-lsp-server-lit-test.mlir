// --lit-test (upstream's `// -----`-delimited test input) goes through the
// same filter as LSP framing: JSON nested 100,000 deep, which would
// overflow the JSON parser's stack, is answered with an error and the
// session goes on.
// RUN: %python -c "print('{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"processId\":1,\"rootUri\":\"test:///workspace\",\"capabilities\":{}}}\n// -----\n' + '[' * 100000 + ']' * 100000 + '\n// -----\n// a comment line\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}\n// -----\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}')" > %t.in
// RUN: hp-lsp-server --lit-test < %t.in | FileCheck %s
// RUN: hp-lsp-server --input-style=delimited < %t.in | FileCheck %s
// The filter's answer may overtake the server's.
// CHECK-DAG: "id":{{ ?}}0
// CHECK-DAG: "message":"the message nests deeper than 512 arrays and objects (line 1, column 513)"
// CHECK: "id":{{ ?}}3
