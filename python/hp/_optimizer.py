"""What hp reads of a torch optimizer (SGD, Adam, AdamW) for
hp.torch.Trainer: its kind and groups, each step's scalars, and its update
as tensor ops with torch's single-tensor formulas (docs/Training.md)."""

import torch

# The optimizer's state entries per kind, in the order the program holds them.
_STATE_KEYS = {"sgd": ("momentum_buffer",), "adam": ("exp_avg", "exp_avg_sq")}


class _Optimizer:
    """What hp reads of a torch optimizer: its kind, its parameter groups
    (each parameter's name and group), and per step each group's scalars;
    ``update`` is its formula as tensor ops, traced into the program."""

    def __init__(self, opt, names_by_id):
        if isinstance(opt, torch.optim.SGD):
            self.kind = "sgd"
        elif isinstance(opt, torch.optim.Adam):  # AdamW is an Adam
            self.kind = "adam"
        else:
            raise TypeError(f"optimizer: hp.torch.Trainer takes torch.optim.SGD, Adam or "
                            f"AdamW, got {type(opt).__name__}")
        self.opt = opt
        self.group_of = {}  # parameter name -> group index
        for g, group in enumerate(opt.param_groups):
            for p in group["params"]:
                name = names_by_id.get(id(p))
                if name is None:
                    raise ValueError("optimizer: it holds a tensor that is not a parameter "
                                     "of the model")
                if name in self.group_of:
                    raise ValueError(f"optimizer: '{name}' is in two parameter groups")
                self.group_of[name] = g
            self._check_group(g, group)
        # What the traced update is built for: checked again at every step.
        self.shape = self._shape()

    def _check_group(self, g, group):
        where = f"optimizer: param_groups[{g}]"
        if group.get("differentiable"):
            raise ValueError(f"{where}: differentiable=True is not supported")
        if self.kind == "sgd":
            if group["momentum"] == 0 and g > 0 and self.momentum != 0 or \
                    group["momentum"] != 0 and g > 0 and self.momentum == 0:
                raise ValueError(f"{where}: every group must use momentum or none does")
            if g == 0:
                self.momentum = group["momentum"]
        else:
            if group.get("amsgrad"):
                raise ValueError(f"{where}: amsgrad=True is not supported yet")
            if torch.is_tensor(group["lr"]) or any(torch.is_tensor(b) for b in group["betas"]):
                raise ValueError(f"{where}: tensor lr or betas are not supported")

    def _shape(self):
        """Per group, what the traced formula depends on beyond its scalars:
        for SGD whether momentum is used and Nesterov's form, for Adam which
        of torch's two lerp forms (its weight 1 - beta1 below 0.5 or not)."""
        if self.kind == "sgd":
            return [(group["momentum"] != 0, bool(group["nesterov"]))
                    for group in self.opt.param_groups]
        return [1 - float(group["betas"][0]) >= 0.5 for group in self.opt.param_groups]

    def check_shape(self):
        """Raises if a group changed what the traced step computes (momentum
        turned on or off, Nesterov, beta1 across 0.5): a new Trainer traces
        the new formula."""
        now = self._shape()
        for g, (was, is_) in enumerate(zip(self.shape, now)):
            if was != is_:
                what = "momentum on or off, or nesterov" if self.kind == "sgd" else \
                    "betas[0] across 0.5"
                raise ValueError(f"optimizer: param_groups[{g}] changed {what} after the "
                                 "Trainer traced its step; build a new Trainer")
        if len(now) != len(self.shape):
            raise ValueError("optimizer: its parameter groups changed after the Trainer "
                             "traced its step; build a new Trainer")

    def state_keys(self):
        if self.kind == "sgd" and self.momentum == 0:
            return ()
        return _STATE_KEYS[self.kind]

    def scalars(self, step, dtype=torch.float32):
        """[groups, 6 (SGD) or 9 (Adam)] of ``dtype``: each group's scalars for step
        ``step`` (1 for the first), computed in double as torch computes
        them; a group's hyperparameters are read each step, so a scheduler's
        or the user's changes apply."""
        rows = []
        for group in self.opt.param_groups:
            lr, wd = float(group["lr"]), float(group["weight_decay"])
            sign = -1.0 if group.get("maximize") else 1.0
            if self.kind == "sgd":
                m, damp = float(group["momentum"]), float(group["dampening"])
                # torch's first step copies the gradient into the buffer.
                keep, take = (0.0, 1.0) if step == 1 else (m, 1.0 - damp)
                rows.append([sign, wd, keep, take, -lr, m])
                continue
            beta1, beta2 = (float(b) for b in group["betas"])
            decoupled = group.get("decoupled_weight_decay",
                                  isinstance(self.opt, torch.optim.AdamW))
            bias1 = 1 - beta1 ** step
            bias2 = 1 - beta2 ** step
            rows.append([sign, 1.0 - lr * wd if decoupled else 1.0,
                         0.0 if decoupled else wd, 1.0 - beta1, beta2, 1.0 - beta2,
                         -(lr / bias1), bias2 ** 0.5, float(group["eps"])])
        return torch.tensor(rows, dtype=dtype)

    def update(self, g, p, grad, state, s):
        """The new value and state of a parameter of group ``g`` from its
        gradient ``grad``, its state (a list, in :meth:`state_keys` order)
        and its group's scalars ``s`` (a row of :meth:`scalars`), as torch's
        single-tensor step computes them."""
        grad = grad * s[0]
        if self.kind == "sgd":
            d = grad + p * s[1]
            if not state:
                return p + d * s[4], []
            buf = state[0] * s[2] + d * s[3]
            if self.opt.param_groups[g]["nesterov"]:
                d = d + buf * s[5]
            else:
                d = buf
            return p + d * s[4], [buf]
        p = p * s[1]                               # AdamW's decoupled decay
        grad = grad + p * s[2]                     # Adam's weight decay
        # lerp(m, grad, 1 - beta1), in torch's form for that weight.
        if self.shape[g]:
            m = grad - (grad - state[0]) * (1 - s[3])
        else:
            m = state[0] + (grad - state[0]) * s[3]
        v = state[1] * s[4] + grad * grad * s[5]
        denom = v.sqrt() / s[7] + s[8]
        return p + (m / denom) * s[6], [m, v]


def _state_name(key, name):
    """The program's name for optimizer state ``key`` of parameter ``name``."""
    return f"{key}({name})"
