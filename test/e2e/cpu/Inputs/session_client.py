"""A bare client of hp's session protocol (docs/Runtime.md, "Sessions"),
for test/e2e/cpu/session.mlir: no hp Python, only the files and FIFOs.

  session_client.py RUNNER PROGRAM DIR MODE

MODE calls: three calls with other inputs, every rank's peak memory
('memory <n>'), then stop; prints each result.
MODE orphan: the client named to the ranks (HP_SESSION_CLIENT) is a child
that ends at once; the ranks must end by themselves and remove DIR.
MODE idle: no call at all under HP_TIMEOUT_S=1.
MODE garbage [LINE]: a request line that is not a call number (default
'seven').
MODE state: a program whose argument 1 (2x4 f32) is resident and updated
by result 1 (session-state.mlir): three calls, the state fetched, one more
call, the state again.
MODE entries: that program with an extra entry 1 (session-entries.mlir):
three calls, a call of entry 1 ('<n> 1'), the state, then a call naming
entry 7.
MODE badentry: a call naming entry 1 of a program with one entry.
A MODE ending in '-apart' (calls-apart, orphan-apart) keeps the requests'
own directories apart from DIR, in DIR-calls (HP_SESSION_CALLS).
"""
import os
import select
import struct
import subprocess
import sys
import time

runner, program, directory, mode = sys.argv[1:5]
garbage = sys.argv[5] if len(sys.argv) > 5 else "seven"
calls = directory
if mode.endswith("-apart"):
    mode = mode[:-len("-apart")]
    calls = directory + "-calls"
    os.makedirs(calls)
os.makedirs(directory)
os.mkfifo(os.path.join(directory, "requests"))
os.mkfifo(os.path.join(directory, "replies"))
# Argument 1 (read once) lives in the session directory itself.
with open(os.path.join(directory, "arg1.bin"), "wb") as f:
    if mode in ("state", "entries", "badentry"):
        f.write(struct.pack("<8f", *range(1, 9)))
    else:
        f.write(struct.pack("<3q", 7, 8, 9))

env = dict(os.environ, HP_TENSOR_DIR=directory)
if calls != directory:
    env["HP_SESSION_CALLS"] = calls
client = None
if mode == "orphan":
    client = subprocess.Popen(["true"])
    client.wait()
    env["HP_SESSION_CLIENT"] = str(client.pid)
    env["HP_SESSION_REMOVE_DIR"] = "1"
else:
    env["HP_SESSION_CLIENT"] = str(os.getpid())
if mode == "idle":
    env["HP_TIMEOUT_S"] = "1"
ranks = subprocess.Popen([runner, "-np", "2", program], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

requests = os.open(os.path.join(directory, "requests"), os.O_RDWR)
replies = os.open(os.path.join(directory, "replies"), os.O_RDWR)


def request(name, values=None, line=None):
    """Sends request number `name` (the line `line`, by default the number),
    its argument 0 in its directory, and waits for the answer; the
    directory."""
    work = os.path.join(calls, f"{name}.tmp")
    os.mkdir(work)
    if values is not None:
        with open(os.path.join(work, "arg0.bin"), "wb") as f:
            f.write(struct.pack("<8f", *values))
    os.rename(work, os.path.join(calls, str(name)))
    os.write(requests, f"{line or name}\n".encode())
    answer = b""
    while not answer.endswith(b"\n"):
        if ranks.poll() is not None:
            return None  # the job ended instead of answering
        ready, _, _ = select.select([replies], [], [], 0.2)
        if ready:
            answer += os.read(replies, 64)
    assert answer == f"{name}\n".encode(), answer
    return os.path.join(calls, str(name))


def read(path, fmt):
    with open(path, "rb") as f:
        return struct.unpack(fmt, f.read())


def call(number, values):
    out = request(number, values)
    if mode in ("state", "entries"):
        print(f"call {number}: {read(os.path.join(out, 'result0.bin'), '<8f')} "
              f"result1 written: {os.path.exists(os.path.join(out, 'result1.bin'))}")
        return
    doubled = read(os.path.join(out, "result0.bin"), "<8f")
    kept = read(os.path.join(out, "result1.bin"), "<3q")
    print(f"call {number}: {doubled} {kept}")


def state(number):
    out = request(number, line=f"state {number}")
    print(f"state: {read(os.path.join(out, 'result1.bin'), '<8f')}")


if mode in ("calls", "state", "entries"):
    for n in range(3):
        call(n, [n * 10 + i for i in range(8)])
    if mode == "entries":
        out = request(3, [2.0] * 8, line="3 1")
        print(f"entry 1: {read(os.path.join(out, 'result0.bin'), '<8f')}")
        state(4)
        request(5, [0.0] * 8, line="5 7")
    elif mode == "state":
        state(3)
        call(4, [1] * 8)
        state(5)
    else:
        out = request(3, line="memory 3")
        with open(os.path.join(out, "memory.txt")) as f:
            peaks = [int(line) for line in f]
        print(f"memory: {len(peaks)} ranks, each above 1 MiB: "
              f"{all(p > 1 << 20 for p in peaks)}")
    os.write(requests, b"stop\n")
elif mode == "garbage":
    os.makedirs(os.path.join(calls, "0"))  # what '00' would wrongly name
    os.write(requests, f"{garbage}\n".encode())
elif mode == "badentry":
    request(0, [0.0] * 8, line="0 1")
output, _ = ranks.communicate(timeout=120)
if calls != directory and os.path.exists(directory):
    print(f"requests in DIR-calls: {sorted(os.listdir(calls), key=int)}, in DIR: "
          f"{[n for n in os.listdir(directory) if n[0].isdigit()]}")
print(output.strip())
print(f"exit {ranks.returncode}")
print("directory left" if os.path.exists(directory) else "directory removed")
if calls != directory:
    print("calls directory left" if os.path.exists(calls) else "calls directory removed")
