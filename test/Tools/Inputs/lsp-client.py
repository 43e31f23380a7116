#!/usr/bin/env python3
"""Talks to a language server over stdio (Content-Length framing): sends
`initialize` and opens FILE, then prints the server name and every
diagnostic the server publishes for it, one per line: LINE: SEVERITY: MESSAGE.

Usage: lsp-client.py SERVER FILE
"""
import json
import os
import subprocess
import sys
import threading


def send(proc, message):
    body = json.dumps(message).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive(proc):
    length = None
    while True:
        line = proc.stdout.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))


def main():
    server, path = sys.argv[1], sys.argv[2]
    proc = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    timer = threading.Timer(60, proc.kill)
    timer.start()
    uri = "file://" + os.path.abspath(path)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    while True:
        msg = receive(proc)
        if msg is None:
            sys.exit("server closed before answering initialize")
        if msg.get("id") == 1:
            print("server:", msg["result"].get("serverInfo", {}).get("name"))
            break
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "mlir",
                                            "version": 1, "text": open(path).read()}}})
    while True:
        msg = receive(proc)
        if msg is None:
            sys.exit("server closed before publishing diagnostics")
        if msg.get("method") == "textDocument/publishDiagnostics":
            for d in msg["params"]["diagnostics"]:
                severity = {1: "error", 2: "warning", 3: "info", 4: "hint"}.get(
                    d.get("severity"), "?")
                print(f"{d['range']['start']['line'] + 1}: {severity}: {d['message']}")
            break
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    send(proc, {"jsonrpc": "2.0", "method": "exit"})
    proc.wait(timeout=30)
    timer.cancel()


if __name__ == "__main__":
    main()
