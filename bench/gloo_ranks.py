"""torch processes on gloo for the benchmarks that run torch DTensor beside
hp (torch_compare.py, step_compare.py): start them, set each one up, bring
rank 0's results back as JSON."""
import datetime
import json
import os
import socket
import sys
import tempfile
import time


def setup(rank, world, port, examples, timeout_s):
    """In a rank's process: examples/torch importable, one torch thread (as
    hp's ranks), the gloo process group joined. Returns torch.distributed."""
    sys.path.insert(0, examples)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=timeout_s))
    return dist


def finish(rank, results, path):
    """In a rank's process: rank 0 writes `results` (JSON) to `path`, then
    every rank leaves. DTensor leaves functional collectives unwaited, and
    gloo's threads sometimes abort in the interpreter's teardown after the
    results are written: the process exits without it."""
    import torch.distributed as dist

    if rank == 0:
        with open(path, "w") as f:
            json.dump(results, f)
    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(worker, world, timeout, *args):
    """Runs `worker(rank, port, result_path, *args)` on `world` spawned
    processes; rank 0's results, or {"error": why} if a rank fails or the
    ranks run past `timeout` seconds."""
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory(prefix="hp-bench-ranks-") as tmp:
        path = os.path.join(tmp, "results.json")
        ctx = mp.start_processes(worker, args=(free_port(), path) + args,
                                 nprocs=world, join=False, start_method="spawn")
        deadline = time.time() + timeout
        try:
            while not ctx.join(timeout=max(1.0, deadline - time.time())):
                if time.time() > deadline:
                    for p in ctx.processes:
                        if p.is_alive():
                            p.kill()
                    return {"error": f"the torch ranks ran past {timeout} s"}
        except Exception as e:  # pylint: disable=broad-except
            lines = [l for l in str(e).splitlines() if l.strip()]
            return {"error": f"a torch rank failed: {lines[-1] if lines else e}"}
        with open(path) as f:
            return json.load(f)
