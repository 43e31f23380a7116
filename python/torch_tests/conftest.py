"""Every rank these tests launch (hp.run, hp.torch.run) compares each NCCL
call across its ranks (docs/Runtime.md): a mismatched collective fails the
test instead of completing silently."""
import os

os.environ["HP_CHECK_COLLECTIVES"] = "1"
