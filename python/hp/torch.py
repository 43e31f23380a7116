"""hp.torch: PyTorch modules in, placed by torch's own parallel plans.

>>> prog = hp.torch.export(model, (x,), mesh, plan={"up": ColwiseParallel(),
...                                                 "down": RowwiseParallel()})
>>> out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)

``export`` imports the module through torch-mlir's FX importer (linalg on
tensors) as a function of its inputs, parameters and buffers, annotates it
with placements (``dtensor-globalize``'s attributes) and builds hp's global
view: one ``dtensor.global_region`` that ``dtensor-propagate`` places.
``run`` feeds each rank its shards and returns full torch tensors.
docs/Torch.md has the API, how plans map to placements and what is imported.
"""

from hp._torch_export import export
from hp._torch_program import Program, collectives, run, time_step
from hp._session import Session
from hp._checkpoint import Checkpoint
from hp._generate import Generator, generate
from hp._train import Trainer

__all__ = ["Checkpoint", "Generator", "Program", "Session", "Trainer", "collectives", "export",
           "generate", "run", "time_step"]
