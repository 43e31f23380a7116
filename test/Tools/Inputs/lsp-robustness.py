#!/usr/bin/env python3
"""Sends a language server malformed input and checks it answers and keeps
serving. Prints one line per error response (`CASE: error CODE id=ID:
MESSAGE`), per answered probe (`CASE: initialize answered`) and per
published diagnostic, then the server's exit code after shutdown and exit.

Usage: lsp-robustness.py SERVER framing|memory|document|after-exit
                        [NESTED_REGIONS_PY]
"""
import json
import os
import queue
import random
import subprocess
import sys
import threading

TIMEOUT_S = 30


class Server:
    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.timer = threading.Timer(120, self.proc.kill)
        self.timer.start()
        self.messages = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 100

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.messages.put(json.loads(out.read(length)))

    def raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        body = json.dumps(message).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def receive(self):
        try:
            msg = self.messages.get(timeout=TIMEOUT_S)
        except queue.Empty:
            sys.exit("no answer within %d s" % TIMEOUT_S)
        if msg is None:
            sys.exit("server closed its output (exit code %s)" % self.proc.wait())
        return msg

    def request(self, method, params, label):
        """Sends a request; prints the error responses that come before its
        answer and returns the answer."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": params})
        while True:
            msg = self.receive()
            if msg.get("id") == self.next_id:
                return msg
            if "error" in msg:
                err = msg["error"]
                print(f"{label}: error {err['code']} id={json.dumps(msg['id'])}: "
                      f"{err['message']}")

    def probe(self, label):
        reply = self.request("initialize", {"processId": None, "rootUri": None,
                                            "capabilities": {}}, label)
        if "result" in reply:
            print(f"{label}: initialize answered")

    def finish(self):
        self.request("shutdown", None, "shutdown")
        self.send({"jsonrpc": "2.0", "method": "exit"})
        print("exit code", self.proc.wait(timeout=TIMEOUT_S))
        self.timer.cancel()

    def peak_memory_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
        return 0


def frame(body):
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request_without(field, value=None):
    message = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}}
    if value is None:
        del message[field]
    else:
        message[field] = value
    return frame(json.dumps(message).encode())


FRAMING_CASES = [
    ("negative", b"Content-Length: -5\r\n\r\n{}"),
    ("non-numeric", b"Content-Length: abc\r\n\r\n{}"),
    ("max-uint64", b"Content-Length: 18446744073709551615\r\n\r\n{}"),
    ("overflow", b"Content-Length: 99999999999999999999999\r\n\r\n{}"),
    ("typed-non-numeric", b"Content-Type: a\r\nContent-Length: x\r\n\r\n{}"),
    ("typed-too-large",
     b"Content-Type: a\r\nContent-Length: 99999999999\r\n\r\n{}"),
    ("glued", b"{}garbageContent-Length: 2\r\n\r\n{}"),
    ("many-headers", b"X-A: 1\r\n" * 100 + b"Content-Length: 2\r\n\r\n{}"),
    ("no-length", b"Content-Type: text/plain\r\n\r\n{}"),
    ("bad-header", b"hello there\r\n\r\n{}"),
    ("long-line", b"x" * 10000),
    ("binary", random.Random(1).randbytes(8192)),
    ("not-json", frame(b"{not json")),
    ("deep-json", frame(b"[" * 100000)),
    ("no-jsonrpc", request_without("jsonrpc")),
    ("jsonrpc-1.0", request_without("jsonrpc", "1.0")),
    ("batch", frame(b"[]")),
    ("empty-object", frame(b'{"jsonrpc": "2.0"}')),
    ("method-not-string", request_without("method", 5)),
    # Ids a response could not repeat as JSON-RPC: 1e400 parses as an
    # infinity, which JSON cannot spell.
    ("infinite-id",
     frame(b'{"jsonrpc":"2.0","id":1e400,"method":"initialize","params":{}}')),
    ("infinite-id-no-jsonrpc", frame(b'{"id":-1e400,"method":"initialize"}')),
    ("fraction-id",
     frame(b'{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{}}')),
]


def framing(server):
    server.probe("start")
    for label, data in FRAMING_CASES:
        server.raw(data)
        server.probe(label)


def memory(server):
    server.probe("start")
    # A 1 GiB claim is refused at once, nothing allocated for it.
    server.raw(b"Content-Length: 1073741824\r\n\r\n{}")
    server.probe("1GiB")
    # A body just over the 64 MiB bound is skipped, then serving goes on.
    size = (64 << 20) + 1
    server.raw(b"Content-Length: %d\r\n\r\n" % size + b"x" * size)
    server.probe("64MiB+1")
    print("peak memory below 256 MiB:", server.peak_memory_mib() < 256)


def diagnostics(server, label):
    while True:
        msg = server.receive()
        if msg.get("method") == "textDocument/publishDiagnostics":
            for d in msg["params"]["diagnostics"]:
                start = d["range"]["start"]
                print(f"{label}: {start['line'] + 1}:{start['character'] + 1}: "
                      f"{d['message']}")
            print(f"{label}: {len(msg['params']['diagnostics'])} diagnostics")
            return


def document(server, generator):
    server.probe("start")
    deep = subprocess.run([sys.executable, generator, "5000"], check=True,
                          capture_output=True, text=True).stdout
    shallow = subprocess.run([sys.executable, generator, "2"], check=True,
                             capture_output=True, text=True).stdout
    uri = "file:///tmp/hp-deep.mlir"
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": uri, "languageId": "mlir",
                                             "version": 1, "text": deep}}})
    diagnostics(server, "open deep")

    def change(version, changes):
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": version},
                                "contentChanges": changes}})

    change(2, [{"text": shallow}])
    diagnostics(server, "change to shallow")
    # An incremental edit that nests the body 600 regions deeper.
    nest = '"scf.execute_region"() ({\n' * 600
    change(3, [{"range": {"start": {"line": 1, "character": 0},
                          "end": {"line": 1, "character": 0}},
                "text": nest}])
    diagnostics(server, "edit to deep")
    # A change to a document never opened: upstream's server adds it from a
    # full text, so that text is checked as if opened; an incremental edit
    # has no text to apply to and goes no further.
    unopened = "file:///tmp/hp-unopened.mlir"
    server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                 "params": {"textDocument": {"uri": unopened, "version": 4},
                            "contentChanges": [{"text": deep}]}})
    diagnostics(server, "change unopened to deep")
    server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                 "params": {"textDocument": {"uri": "file:///tmp/hp-other.mlir",
                                             "version": 1},
                            "contentChanges": [{
                                "range": {"start": {"line": 0, "character": 0},
                                          "end": {"line": 0, "character": 0}},
                                "text": nest * 5}]}})
    server.probe("edit unopened")
    server.probe("after documents")


def after_exit(path):
    """The client keeps writing after `exit`: the server must still end
    cleanly while its input filter is busy answering."""
    for _ in range(20):
        server = Server(path)
        server.probe("start")
        server.request("shutdown", None, "shutdown")
        server.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            for _ in range(2000):
                server.raw(frame(b"[]") + frame(b'{"jsonrpc":"2.0"}'))
        except (BrokenPipeError, ConnectionResetError):
            pass
        code = server.proc.wait(timeout=TIMEOUT_S)
        server.timer.cancel()
        if code != 0:
            print("exit code", code)
            return
    print("exit code 0 each time")


def main():
    mode = sys.argv[2]
    if mode == "after-exit":
        after_exit(sys.argv[1])
        return
    server = Server(sys.argv[1])
    if mode == "framing":
        framing(server)
    elif mode == "memory":
        memory(server)
    else:
        document(server, sys.argv[3])
    server.finish()


if __name__ == "__main__":
    main()
