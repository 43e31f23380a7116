"""Writes the arguments of add-driver-block-reads.mlir into DIR: distinct
values everywhere, so that a misplaced block shows; argument 0 as a range of
a larger file (ckpt.bin, after 16 bytes of noise) named by arg0.ref, its
bytes alone in ckpt.part for comparison."""
import struct
import sys

d = sys.argv[1]
a = struct.pack("<15f", *[i + 0.5 for i in range(15)])
open(f"{d}/ckpt.bin", "wb").write(b"x" * 16 + a + b"tail")
open(f"{d}/ckpt.part", "wb").write(a)
open(f"{d}/arg0.ref", "w").write(f"16 {d}/ckpt.bin\n")
open(f"{d}/arg1.bin", "wb").write(struct.pack("<6f", *[10 + i for i in range(6)]))
open(f"{d}/arg2.bin", "wb").write(struct.pack("<24f", *[100 + i for i in range(24)]))
open(f"{d}/arg3.bin", "wb").write(struct.pack("<8q", *[-(1 << 40) + i for i in range(8)]))
open(f"{d}/arg4.bin", "wb").write(struct.pack("<8d", *[1.25 * i for i in range(8)]))
open(f"{d}/arg5.bin", "wb").write(struct.pack("<12i", *[-5 + i for i in range(12)]))
open(f"{d}/arg6.bin", "wb").write(struct.pack("<3b", -1, 0, 1))
