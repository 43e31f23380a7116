"""hp.torch.generate: greedy decoding of a transformers causal LM on one
session, its key/value cache resident on the ranks and split by heads.

The program has two entries on one session: a prefill step (the prompt's
first P tokens in, at positions 0 to P - 1) and a decode step (a token per
sequence at a position in); each returns the next-token logits and the
updated cache. The cache is the step modules' buffers, made state of the
session (dtensor-add-driver's resident state and extra entries), so it never
leaves the ranks.

transformers' StaticLayer writes the cache in place (index_copy_), which an
exported program cannot do to an argument; _BlendLayer writes out of place
instead: the new key and value are selected in at the position (an
elementwise where over the cache), which every rank does on its own heads.
"""

import torch
from torch import nn

import hp
from hp import _torch_plan


def _static_layer():
    from transformers.cache_utils import StaticLayer

    class _BlendLayer(StaticLayer):
        """A static cache layer over given tensors, updated out of place at
        ``position`` (a 1-element tensor): the step's own cache."""

        def __init__(self, keys, values, position):
            super().__init__(max_cache_len=keys.shape[2])
            self.keys, self.values = keys, values
            self.batch_size, self.num_heads = keys.shape[:2]
            self.k_head_dim, self.v_head_dim = keys.shape[-1], values.shape[-1]
            self.device = keys.device
            # The mask's query offset: the tokens seen before this one.
            self.cumulative_length = position.reshape(())
            self.position = position
            self.is_initialized = True

        def update(self, key_states, value_states, *args, **kwargs):
            at = (torch.arange(self.max_cache_len, device=self.device)
                  == self.position).view(1, 1, -1, 1)
            self.keys = torch.where(at, key_states, self.keys)
            self.values = torch.where(at, value_states, self.values)
            return self.keys, self.values

    class _PrefillLayer(StaticLayer):
        """A static cache layer over given tensors whose first update fills
        positions 0 to n - 1 (the prompt, n static) out of place."""

        def __init__(self, keys, values):
            super().__init__(max_cache_len=keys.shape[2])
            self.keys, self.values = keys, values
            self.batch_size, self.num_heads = keys.shape[:2]
            self.k_head_dim, self.v_head_dim = keys.shape[-1], values.shape[-1]
            self.device = keys.device
            self.cumulative_length = torch.zeros((), dtype=torch.int64)
            self.is_initialized = True

        def update(self, key_states, value_states, *args, **kwargs):
            n = key_states.shape[2]
            self.keys = torch.cat([key_states, self.keys[:, :, n:]], dim=2)
            self.values = torch.cat([value_states, self.values[:, :, n:]], dim=2)
            return self.keys, self.values

    return _BlendLayer, _PrefillLayer


class DecodeStep(nn.Module):
    """``model`` (a transformers causal LM) advanced by one token per
    sequence: ``forward(ids [B, 1], position [1])`` returns the next-token
    logits [B, vocab] and every layer's updated keys, then values. Buffers
    ``cache_k<i>``, ``cache_v<i>`` [B, kv heads, max_len, head dim] hold the
    cache (zeros at the start). With ``prefill=True`` it is the prefill
    step instead: ``forward(ids [B, n])`` takes the first n tokens at
    positions 0 to n - 1, the same buffers and outputs."""

    def __init__(self, model, batch, max_len, prefill=False):
        super().__init__()
        self.model = model
        self.prefill = prefill
        config = model.config.get_text_config(decoder=True)
        self.layers = config.num_hidden_layers
        kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        head_dim = getattr(config, "head_dim", None) or \
            config.hidden_size // config.num_attention_heads
        dtype = next(model.parameters()).dtype
        for i in range(self.layers):
            for kind in "kv":
                self.register_buffer(f"cache_{kind}{i}",
                                     torch.zeros(batch, kv_heads, max_len, head_dim, dtype=dtype))

    def cache_names(self):
        """The cache buffers, in output order (after the logits)."""
        return [f"cache_{kind}{i}" for kind in "kv" for i in range(self.layers)]

    def forward(self, ids, position=None):
        from transformers.cache_utils import Cache
        blend, fill = _static_layer()
        caches = [(getattr(self, f"cache_k{i}"), getattr(self, f"cache_v{i}"))
                  for i in range(self.layers)]
        if self.prefill:
            layers = [fill(k, v) for k, v in caches]
            positions = torch.arange(ids.shape[1], device=ids.device).view(1, -1)
        else:
            layers = [blend(k, v, position) for k, v in caches]
            positions = position.view(1, -1)
        out = self.model(ids, position_ids=positions, cache=Cache(layers=layers),
                         use_cache=True)
        return (out.logits[:, -1],) + tuple(l.keys for l in layers) + \
            tuple(l.values for l in layers)


def _checked_model(model):
    if not isinstance(model, nn.Module) or not hasattr(model, "config") or \
            not hasattr(model, "generate"):
        raise TypeError(f"model must be a transformers causal LM (a module with a config "
                        f"and generate()), got {type(model).__name__}")


def _checked_length(model, max_len):
    config = model.config.get_text_config(decoder=True)
    kinds = set(getattr(config, "layer_types", None) or ["full_attention"])
    window = getattr(config, "sliding_window", None)
    if kinds != {"full_attention"} and not (window and max_len <= window):
        raise ValueError(f"the model has {sorted(kinds)} layers; hp's decode step caches "
                         f"full attention only (here the sequence, {max_len} tokens, "
                         f"outgrows the sliding window {window})")
    limit = getattr(config, "max_position_embeddings", None)
    if limit and max_len > limit:
        raise ValueError(f"{max_len} tokens exceed the model's max_position_embeddings "
                         f"({limit})")


# generation_config settings that change greedy tokens (logits processors),
# with the values that leave them off; hp decodes plain argmax and refuses
# the others rather than differ.
_PROCESSORS = {
    "repetition_penalty": (None, 1.0), "encoder_repetition_penalty": (None, 1.0),
    "no_repeat_ngram_size": (None, 0), "min_length": (None, 0),
    "min_new_tokens": (None, 0), "bad_words_ids": (None, []),
    "suppress_tokens": (None, []), "begin_suppress_tokens": (None, []),
    "forced_bos_token_id": (None,), "forced_eos_token_id": (None,),
    "sequence_bias": (None, {}), "exponential_decay_length_penalty": (None,),
}


def _check_processors(model):
    config = getattr(model, "generation_config", None)
    changed = [k for k, off in _PROCESSORS.items()
               if config is not None and getattr(config, k, None) not in off]
    if changed:
        raise ValueError(f"the model's generation_config sets {', '.join(changed)}, which "
                         f"change greedy tokens; hp decodes plain greedy (argmax): reset "
                         f"them to their defaults")


def _eos_ids(model):
    eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    if eos is None:
        return []
    return [eos] if isinstance(eos, int) else list(eos)


class Generator:
    """``hp.torch.Generator(model, batch, max_len, mesh, plan=None, np=None,
    params=None)``: ``model`` (a transformers causal LM: Llama, Mistral,
    Qwen2, ...) compiled as one decode step and served by one
    :class:`hp.torch.Session` on ``np`` ranks (default: the mesh's size),
    for ``batch`` sequences of at most ``max_len`` tokens. ``plan`` is the
    model's tensor-parallel plan (module paths in ``model``, or
    ``"auto"``); the key/value cache is split by heads on the plan's mesh
    dim and stays on the ranks between tokens and between requests.
    ``params``: the model's parameters (default: its own), or a safetensors
    checkpoint (:class:`hp.torch.Checkpoint`) read in place. ``prefill=P``
    adds a prefill entry to the session (the same parameters and cache):
    a prompt of at least P tokens has its first P run in one step, the rest
    a token per step, as are shorter prompts.

    ``gen(input_ids, max_new_tokens)`` decodes greedily, as
    ``model.generate(input_ids, do_sample=False, max_new_tokens=N)`` does;
    ``gen.program`` is the step's :class:`hp.torch.Program`;
    ``gen.peak_memory()`` every rank's peak resident bytes; ``close()``
    (or leaving a ``with`` block) stops the ranks."""

    def __init__(self, model, batch, max_len, mesh, plan=None, np=None, params=None,
                 prefill=None):
        from hp import torch as hpt
        from hp._checkpoint import Checkpoint, is_checkpoint
        from torch.distributed.tensor import Replicate, Shard

        _checked_model(model)
        _check_processors(model)
        hp._check_int(batch, "batch", 1)
        hp._check_int(max_len, "max_len", 2)
        _checked_length(model, max_len)
        if prefill is not None:
            hp._check_int(prefill, "prefill", 1)
            if prefill >= max_len:
                raise ValueError(f"prefill={prefill} leaves no room for a new token in "
                                 f"max_len={max_len}")
        self.prefill = prefill
        self._model, self.batch, self.max_len = model, batch, max_len
        step = DecodeStep(model, batch, max_len).eval()
        if isinstance(plan, dict):
            plan = {("model." + k if k else "model"): v for k, v in plan.items()}
        dim = _torch_plan._plan_dim(mesh, None)
        split = [Replicate()] * len(mesh.shape)
        split[dim] = Shard(1)
        names = step.cache_names()
        ids = torch.zeros(batch, 1, dtype=torch.int64)
        position = torch.zeros(1, dtype=torch.int64)
        placements = dict(params={n: split for n in names},
                          outputs=[[Replicate()] * len(mesh.shape)] + [split] * len(names))
        placements["context"] = hp.Context()  # one for both entries
        self.program = hpt.export(step, (ids, position), mesh, plan=plan, **placements)
        entries = {}
        if prefill:
            # The prompt's first `prefill` tokens in one step: an entry of
            # the same session, sharing the parameters and the cache.
            fill = DecodeStep(model, batch, max_len, prefill=True).eval()
            entries["prefill"] = hpt.export(
                fill, (torch.zeros(batch, prefill, dtype=torch.int64),), mesh, plan=plan,
                **placements)
        if params is None:
            params = dict(model.named_parameters())
        if is_checkpoint(params):
            ckpt = params if isinstance(params, Checkpoint) else Checkpoint(params)
            params = Checkpoint(ckpt.path, "model." + ckpt.prefix)
        elif isinstance(params, dict):
            params = {"model." + k: v for k, v in params.items()}
        self._session = hpt.Session(self.program, params, np=np,
                                    state={n: 1 + k for k, n in enumerate(names)},
                                    entries=entries)

    def __call__(self, input_ids, max_new_tokens=16):
        if not isinstance(input_ids, torch.Tensor) or input_ids.dim() != 2 or \
                input_ids.dtype not in (torch.int64, torch.int32) or input_ids.shape[1] < 1:
            raise ValueError("input_ids must be a [batch, length] integer tensor with at "
                             "least one token (every prompt the same length, no padding)")
        hp._check_int(max_new_tokens, "max_new_tokens", 1)
        if input_ids.shape[0] != self.batch:
            raise ValueError(f"input_ids holds {input_ids.shape[0]} sequences; this "
                             f"Generator was built for batch={self.batch}")
        length = input_ids.shape[1] + max_new_tokens
        if length > self.max_len:
            raise ValueError(f"{input_ids.shape[1]} prompt tokens and {max_new_tokens} new "
                             f"ones exceed this Generator's max_len={self.max_len}")
        # The cache needs no reset between requests: a token's step writes
        # its position before any query reads it, and later positions are
        # masked.
        eos = torch.tensor(_eos_ids(self._model), dtype=torch.int64)
        pad = getattr(self._model.generation_config, "pad_token_id", None)
        if pad is None and len(eos):
            pad = int(eos[0])
        tokens = input_ids.to(torch.int64)
        prompt = tokens.shape[1]
        unfinished = torch.ones(self.batch, dtype=torch.bool)
        start = 0
        if self.prefill and prompt >= self.prefill:
            # The first `prefill` tokens in one step; the rest of the prompt,
            # if any, a token per step.
            logits = self._session.call("prefill", tokens[:, :self.prefill])
            start = self.prefill
        for p in range(start - 1, length - 1):
            if p >= start:
                logits = self._session(tokens[:, p:p + 1], torch.tensor([p]))
            if p < prompt - 1:
                continue  # the prompt: the cache fills, the logits are not needed
            nxt = logits.argmax(-1)
            if len(eos):
                nxt = torch.where(unfinished, nxt, torch.full_like(nxt, pad))
                unfinished &= ~torch.isin(nxt, eos)
            tokens = torch.cat([tokens, nxt[:, None]], 1)
            if not unfinished.any():
                break
        return tokens.to(input_ids.dtype)

    def peak_memory(self):
        """Every rank's peak resident memory so far, in bytes (rank 0
        first)."""
        return self._session.peak_memory()

    def close(self):
        self._session.close()

    @property
    def closed(self):
        return self._session.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def generate(model, input_ids, mesh, plan=None, max_new_tokens=16, np=None, params=None):
    """Greedy decoding as ``model.generate(input_ids, do_sample=False,
    max_new_tokens=N)`` computes it, on ``np`` ranks (default: the mesh's
    size): the prompt and the new tokens, [batch, length + N] (fewer when
    every sequence ended; ended ones padded as transformers pads them). One
    :class:`Generator` for this request (the prompt in one prefill step),
    closed after it."""
    if not isinstance(input_ids, torch.Tensor) or input_ids.dim() != 2:
        raise ValueError("input_ids must be a [batch, length] integer tensor with at least "
                         "one token (every prompt the same length, no padding)")
    hp._check_int(max_new_tokens, "max_new_tokens", 1)
    prompt = input_ids.shape[1]
    with Generator(model, input_ids.shape[0], prompt + max_new_tokens, mesh,
                   plan=plan, np=np, params=params,
                   prefill=prompt if prompt > 1 else None) as gen:
        return gen(input_ids, max_new_tokens)
