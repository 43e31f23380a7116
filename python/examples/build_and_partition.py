"""Build a dtensor program from Python, check it, and lower it to SPMD code.

Run with the built package on the path:
    PYTHONPATH=build/python python3 python/examples/build_and_partition.py
(docs/Embedding.md shows this file; python/tests runs it.)
"""
import hp

ctx = hp.Context()
mesh = hp.DeviceMesh("tp", (4,), ("tp",))
module = hp.Module.create(ctx)
mesh.add_to(module)

# f(x: 16x8 sharded on rows) -> x + x, replicated.
sharded = hp.dtensor_type(ctx, (16, 8), "f32", mesh, [hp.Shard(0)])
replicated = hp.dtensor_type(ctx, (16, 8), "f32", mesh, [hp.Replicate()])
entry = hp.add_function(module, "f", [sharded], [replicated])
(x,) = entry.arguments
region, body = hp.local_region(
    ctx, entry, mesh, args=[(x, "x")], results=[replicated],
    in_placements={"x": [hp.Replicate()]}, out_placements=[hp.Replicate()],
    redistribute_inputs=True)
(local,) = body.arguments                     # tensor<16x8xf32>: the whole x
doubled = hp.add_op(body, "arith.addf", [local, local], [local.type])
hp.yield_(body, doubled.results)
hp.add_op(entry, "func.return", region.results, [])

module.verify()                               # the placement contract is checked
module.run("hp-partition")                    # ValueError with diagnostics on failure
print(module)
