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
from hp._session import Session
from hp._torch_export import export


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
    sequence: ``forward(ids [B, 1], position [1], mask [B, max_len],
    positions [B, 1])`` writes the token's keys and values at cache column
    ``position`` and returns the next-token logits [B, vocab] and every
    layer's updated keys, then values; ``mask`` is transformers' 2-D
    attention mask over the cache's columns (0 at a left pad) and
    ``positions`` each sequence's position id. Buffers ``cache_k<i>``,
    ``cache_v<i>`` [B, kv heads, max_len, head dim] hold the cache (zeros at
    the start). With ``prefill=True`` it is the prefill step instead:
    ``forward(ids [B, n], mask [B, max_len], positions [B, n])`` takes the
    first n tokens into columns 0 to n - 1, the same buffers and outputs."""

    def __init__(self, model, batch, max_len, prefill=False):
        super().__init__()
        self.model = model
        self.prefill = prefill
        shapes = _cache_shapes(model)
        self.layers = len(shapes)
        for i, layer in enumerate(shapes):
            for kind, (heads, dim, dtype) in zip("kv", layer):
                self.register_buffer(f"cache_{kind}{i}",
                                     torch.zeros(batch, heads, max_len, dim, dtype=dtype))

    def cache_names(self):
        """The cache buffers, in output order (after the logits)."""
        return [f"cache_{kind}{i}" for kind in "kv" for i in range(self.layers)]

    def forward(self, ids, *rest):
        from transformers.cache_utils import Cache
        blend, fill = _static_layer()
        caches = [(getattr(self, f"cache_k{i}"), getattr(self, f"cache_v{i}"))
                  for i in range(self.layers)]
        if self.prefill:
            mask, positions = rest
            layers = [fill(k, v) for k, v in caches]
        else:
            position, mask, positions = rest
            layers = [blend(k, v, position) for k, v in caches]
        out = self.model(ids, attention_mask=mask, position_ids=positions,
                         cache=Cache(layers=layers), use_cache=True)
        return (out.logits[:, -1],) + tuple(l.keys for l in layers) + \
            tuple(l.values for l in layers)


def _cache_shapes(model):
    """Each layer's (heads, head dim, dtype) of its keys, then of its values,
    as its attention computes them: one token run with transformers' own
    cache. The config can say otherwise (Falcon's ``multi_query`` attention
    shares one key/value head where its ``num_kv_heads`` says 8)."""
    with torch.no_grad():
        out = model(torch.zeros(1, 1, dtype=torch.int64), use_cache=True)
    cache = out.get("cache")
    if cache is None:
        cache = out.get("past_key_values")
    layers = getattr(cache, "layers", None)
    if not layers or any(getattr(l, "keys", None) is None for l in layers):
        raise ValueError(f"{type(model).__name__} keeps no key/value cache hp can hold (its "
                         f"forward returned {type(cache).__name__}); hp decodes models whose "
                         f"attention caches keys and values per layer")
    return [[(t.shape[1], t.shape[-1], t.dtype) for t in (l.keys, l.values)] for l in layers]


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


# The generation_config fields hp's decoding honours: the special tokens
# (eos ends a sequence, pad fills ended ones), the lengths (generate's
# max_new_tokens decides), the logits processors and sampling (do_sample
# and its warpers), which transformers' own processors apply to the step's
# logits before its argmax or its sampler's draw, and those that leave
# tokens as they are: the cache's and compilation's settings, beam search's
# and an assistant model's settings (neither runs), bookkeeping. Every
# other field that differs from transformers' default is refused by name,
# before anything compiles.
_HONOURED = {
    "repetition_penalty", "encoder_repetition_penalty", "no_repeat_ngram_size",
    "bad_words_ids", "min_length", "min_new_tokens", "suppress_tokens",
    "begin_suppress_tokens", "forced_bos_token_id", "forced_eos_token_id", "sequence_bias",
    "exponential_decay_length_penalty", "remove_invalid_values",
    "bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id",
    "max_length", "max_new_tokens", "use_cache", "cache_implementation", "cache_config",
    "max_cache_len", "disable_compile", "low_memory", "do_sample", "temperature", "top_k",
    "top_p", "min_p", "top_h", "typical_p", "epsilon_cutoff", "eta_cutoff", "early_stopping",
    "length_penalty", "renormalize_logits", "output_scores", "output_logits",
    "is_assistant", "num_assistant_tokens", "num_assistant_tokens_schedule",
    "assistant_confidence_threshold", "assistant_lookbehind", "target_lookbehind",
    "max_matching_ngram_size", "_from_model_config", "transformers_version",
}


def _effective(config, field, defaults):
    """What transformers' generate uses for ``field``: the config's value,
    else its global default; a flag left unset is off (models' configs
    write ``output_attentions: false``)."""
    value = getattr(config, field, None)
    if value is None or (isinstance(value, (list, dict, tuple)) and not value):
        value = defaults.get(field)  # an empty list of suppressed tokens: none
    return False if value is None else value


def _same(a, b):
    """Whether two settings are the same: numbers by value (1 is 1.0), a
    flag only as a flag (token id 0 is not off)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def _check_generation_config(model):
    """Refuses every generation_config field that differs from what
    transformers' generate does by default and that hp does not honour."""
    from transformers import GenerationConfig
    config = getattr(model, "generation_config", None)
    if config is None:
        return
    defaults = GenerationConfig._get_default_generation_params()
    plain = GenerationConfig()
    changed = [f for f in plain.to_dict() if f not in _HONOURED and
               not _same(_effective(config, f, defaults), _effective(plain, f, defaults))]
    if changed:
        raise ValueError(f"the model's generation_config sets {', '.join(changed)}, which hp "
                         f"does not implement: hp decodes greedily or samples, one "
                         f"sequence per prompt (no beams, no guidance, no assistant, no "
                         f"stop strings, tokens only); reset them to their defaults")


def _check_prompt(input_ids):
    """``input_ids`` checked before anything compiles: a [batch, length]
    integer tensor of at least one token."""
    if not isinstance(input_ids, torch.Tensor) or input_ids.dim() != 2 or \
            input_ids.dtype not in (torch.int64, torch.int32) or input_ids.shape[1] < 1 or \
            input_ids.shape[0] < 1:
        raise ValueError("input_ids must be a [batch, length] integer tensor with at "
                         "least one token")


def _prompt_mask(model, input_ids, attention_mask):
    """The prompt's attention mask (int64, 1 at a token, 0 at a pad) as
    generate takes or infers it: ``attention_mask`` as given, else
    ``input_ids != pad_token_id`` where the prompt holds the pad token and
    it is not an eos token, else ones."""
    _check_prompt(input_ids)
    if attention_mask is None:
        pad = getattr(getattr(model, "generation_config", None), "pad_token_id", None)
        if pad is not None and pad not in _eos_ids(model) and bool((input_ids == pad).any()):
            return (input_ids != pad).to(torch.int64)
        return torch.ones(input_ids.shape, dtype=torch.int64)
    if not isinstance(attention_mask, torch.Tensor) or \
            attention_mask.shape != input_ids.shape or attention_mask.dtype.is_floating_point \
            or bool(((attention_mask != 0) & (attention_mask != 1)).any()):
        raise ValueError(f"attention_mask must be a tensor of 0 and 1 shaped as input_ids "
                         f"{tuple(input_ids.shape)}")
    return attention_mask.to(torch.int64)


def _token_chooser(model, input_ids, max_new_tokens):
    """How transformers' generate picks each next token for this request:
    its own logits processors for the model's generation_config (sampling's
    warpers too when ``do_sample`` is set; _check_generation_config refused
    what they cannot do), then the argmax, or a draw from the softmax as its
    sampler draws
    (``torch.multinomial``, so a seed gives transformers' tokens). A
    function of (tokens so far, the step's logits)."""
    config, _ = model._prepare_generation_config(None, max_new_tokens=max_new_tokens)
    model._prepare_special_tokens(config, True, device=input_ids.device)
    # The lengths as generate sets them: max_new_tokens (the argument) and
    # min_new_tokens count from the prompt's end.
    config.max_length = input_ids.shape[1] + max_new_tokens
    if config.min_new_tokens is not None:
        config.min_length = input_ids.shape[1] + config.min_new_tokens
    processors = model._get_logits_processor(
        config, input_ids_seq_length=input_ids.shape[1], encoder_input_ids=input_ids,
        device=input_ids.device, model_kwargs={})

    def choose(tokens, logits):
        scores = processors(tokens, logits.to(torch.float32))
        if config.do_sample:
            return torch.multinomial(torch.softmax(scores, dim=-1), num_samples=1).squeeze(1)
        return scores.argmax(-1)
    return choose


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

    ``gen(input_ids, max_new_tokens, attention_mask=None)`` decodes as
    ``model.generate(input_ids, attention_mask=..., max_new_tokens=N)``
    does (left-padded prompts: the mask given, or inferred from
    pad_token_id as transformers infers it) under the model's
    generation_config, read per request: greedily, or sampling
    (``do_sample`` with temperature, top-k, top-p, ...: after the same
    ``torch.manual_seed`` the same tokens);
    ``gen.program`` is the step's :class:`hp.torch.Program`;
    ``gen.peak_memory()`` every rank's peak resident bytes; ``close()``
    (or leaving a ``with`` block) stops the ranks."""

    def __init__(self, model, batch, max_len, mesh, plan=None, np=None, params=None,
                 prefill=None):
        from hp._checkpoint import Checkpoint, is_checkpoint
        from torch.distributed.tensor import Replicate, Shard

        _checked_model(model)
        _check_generation_config(model)
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
        mask = torch.ones(batch, max_len, dtype=torch.int64)
        placements = dict(params={n: split for n in names},
                          outputs=[[Replicate()] * len(mesh.shape)] + [split] * len(names))
        placements["context"] = hp.Context()  # one for both entries
        self.program = export(step, (ids, position, mask, torch.zeros_like(ids)), mesh,
                              plan=plan, **placements)
        entries = {}
        if prefill:
            # The prompt's first `prefill` tokens in one step: an entry of
            # the same session, sharing the parameters and the cache.
            fill = DecodeStep(model, batch, max_len, prefill=True).eval()
            # Distinct tensors: torch.export takes one tensor passed twice as
            # one input.
            prompt = torch.zeros(batch, prefill, dtype=torch.int64)
            entries["prefill"] = export(fill, (prompt, mask, torch.zeros_like(prompt)),
                                        mesh, plan=plan, **placements)
        if params is None:
            params = dict(model.named_parameters())
        if is_checkpoint(params):
            ckpt = params if isinstance(params, Checkpoint) else Checkpoint(params)
            params = Checkpoint(ckpt.path, "model." + ckpt.prefix)
        elif isinstance(params, dict):
            params = {"model." + k: v for k, v in params.items()}
        self._session = Session(self.program, params, np=np,
                                state={n: 1 + k for k, n in enumerate(names)},
                                entries=entries)

    def __call__(self, input_ids, max_new_tokens=16, attention_mask=None):
        _check_generation_config(self._model)  # read per request, so checked per request
        mask = _prompt_mask(self._model, input_ids, attention_mask)
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
        choose = _token_chooser(self._model, tokens, max_new_tokens)
        # The cache's mask (left pads 0, the rest 1: later columns are
        # hidden by causality) and the position ids as generate makes them:
        # the prompt's count its real tokens (1 at a pad), each new token
        # the last one's plus 1.
        full = torch.ones(self.batch, self.max_len, dtype=torch.int64)
        full[:, :prompt] = mask
        positions = mask.cumsum(-1) - 1
        positions = positions.masked_fill(mask == 0, 1)
        after = positions[:, -1:] + torch.arange(1, self.max_len - prompt + 1)
        positions = torch.cat([positions, after], 1)
        unfinished = torch.ones(self.batch, dtype=torch.bool)
        start = 0
        if self.prefill and prompt >= self.prefill:
            # The first `prefill` tokens in one step; the rest of the prompt,
            # if any, a token per step.
            logits = self._session.call("prefill", tokens[:, :self.prefill], full,
                                        positions[:, :self.prefill].contiguous())
            start = self.prefill
        for p in range(start - 1, length - 1):
            if p >= start:
                logits = self._session(tokens[:, p:p + 1], torch.tensor([p]), full,
                                       positions[:, p:p + 1].contiguous())
            if p < prompt - 1:
                continue  # the prompt: the cache fills, the logits are not needed
            nxt = choose(tokens, logits)
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


def generate(model, input_ids, mesh, plan=None, max_new_tokens=16, np=None, params=None,
             attention_mask=None):
    """Decoding as ``model.generate(input_ids, max_new_tokens=N)`` computes
    it under the model's generation_config (greedy, or sampling with the
    same draws for the same seed), on ``np`` ranks (default: the mesh's
    size): the prompt and the new tokens, [batch, length + N] (fewer when
    every sequence ended; ended ones padded as transformers pads them). One
    :class:`Generator` for this request (the prompt in one prefill step),
    closed after it."""
    # Everything the request can get wrong is checked before compiling.
    _checked_model(model)
    _check_generation_config(model)
    _prompt_mask(model, input_ids, attention_mask)
    hp._check_int(max_new_tokens, "max_new_tokens", 1)
    prompt = input_ids.shape[1]
    with Generator(model, input_ids.shape[0], prompt + max_new_tokens, mesh,
                   plan=plan, np=np, params=params,
                   prefill=prompt if prompt > 1 else None) as gen:
        return gen(input_ids, max_new_tokens, attention_mask)
