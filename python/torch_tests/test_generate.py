"""hp.torch.generate and hp.torch.Generator: greedy decoding of transformers
causal LMs (tiny configs built here) as one decode step on one session, the
key/value cache resident on the ranks and split by heads; the tokens must be
transformers' own model.generate(do_sample=False) tokens.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import copy
import os
import sys
import time

import pytest
import torch

import hp
import hp.torch

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import hf_causal_lm  # noqa: E402
from hf_causal_lm import VOCAB  # noqa: E402

TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
TP2 = hp.DeviceMesh("tp", [2], mesh_dim_names=("tp",))
NEW = 6


def model_plan(model):
    """torch's plan for ``model`` (module paths inside it)."""
    plan = hf_causal_lm.plan_for(hf_causal_lm.Logits(model))
    return {k[len("model."):]: v for k, v in plan.items()}


def eager_tokens(model, ids, new=NEW):
    return model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                          max_new_tokens=new)


def make(name, kv_heads=4):
    torch.manual_seed(0)
    model = hf_causal_lm.make_model(name, layers=2)
    if kv_heads != 4:
        config = model.config
        config.num_key_value_heads = kv_heads
        model = type(model)(config).eval()
    return model


@pytest.mark.parametrize("name,kv_heads", [("llama", 4), ("llama", 8), ("mistral", 4),
                                           ("qwen2", 4)])
def test_generate_equals_transformers_greedy_tokens(name, kv_heads):
    # kv_heads 4 of 8 query heads: grouped-query attention; 8: without.
    model = make(name, kv_heads)
    torch.manual_seed(1)
    ids = torch.randint(0, VOCAB, (2, 5))
    expected = eager_tokens(model, ids)
    assert expected.shape == (2, 5 + NEW)
    out = hp.torch.generate(model, ids, TP4, plan=model_plan(model), max_new_tokens=NEW)
    assert out.tolist() == expected.tolist()


def test_a_generator_serves_requests_with_its_cache_split_by_heads():
    model = make("llama")
    with hp.torch.Generator(model, batch=2, max_len=12, mesh=TP4, plan="auto") as gen:
        # A decode step moves what torch's plan moves: the embedding's
        # all_reduce, two per layer, the logits' all_gather; the cache
        # is never gathered.
        assert hp.torch.collectives(gen.program)["counts"] == \
            {"all_reduce": 1 + 2 * 2, "all_gather": 1}
        for seed, length in ((2, 4), (3, 6), (4, 1)):
            torch.manual_seed(seed)
            ids = torch.randint(0, VOCAB, (2, length))
            new = 12 - length
            assert gen(ids, new).tolist() == eager_tokens(model, ids, new).tolist()
        with pytest.raises(ValueError, match="exceed this Generator's max_len=12"):
            gen(ids, 12)
        with pytest.raises(ValueError, match="holds 3 sequences; this Generator was built "
                                             "for batch=2"):
            gen(torch.zeros(3, 2, dtype=torch.int64), 2)
    assert gen.closed


def test_generation_stops_at_the_end_of_sequence_token_as_transformers_does():
    model = make("llama")
    torch.manual_seed(5)
    ids = torch.randint(0, VOCAB, (2, 4))
    free = eager_tokens(model, ids, 8)
    # The first sequence's third new token ends it; the other goes on, then
    # both are padded as transformers pads them (or both stop).
    model.generation_config.eos_token_id = int(free[0, 4 + 2])
    model.generation_config.pad_token_id = 0
    expected = eager_tokens(model, ids, 8)
    out = hp.torch.generate(model, ids, TP4, plan=model_plan(model), max_new_tokens=8)
    assert out.tolist() == expected.tolist()


def test_generate_reads_a_checkpoint(tmp_path):
    model = make("llama")
    model.save_pretrained(str(tmp_path))
    torch.manual_seed(6)
    ids = torch.randint(0, VOCAB, (1, 3))
    out = hp.torch.generate(model, ids, TP4, plan=model_plan(model), max_new_tokens=4,
                            params=tmp_path)
    assert out.tolist() == eager_tokens(model, ids, 4).tolist()


def test_generate_errors():
    model = make("llama")
    with pytest.raises(TypeError, match="must be a transformers causal LM"):
        hp.torch.generate(torch.nn.Linear(2, 2), torch.zeros(1, 2, dtype=torch.int64), TP4)
    with pytest.raises(ValueError, match="input_ids must be a \\[batch, length\\] integer"):
        hp.torch.generate(model, torch.zeros(4), TP4)
    with pytest.raises(ValueError, match="max_new_tokens"):
        hp.torch.generate(model, torch.zeros(1, 2, dtype=torch.int64), TP4, max_new_tokens=0)
    model.generation_config.guidance_scale = 1.5
    with pytest.raises(ValueError, match="sets guidance_scale, which hp does not "
                                         "implement"):
        hp.torch.generate(model, torch.zeros(1, 2, dtype=torch.int64), TP4)
    model.generation_config.guidance_scale = None
    with pytest.raises(ValueError, match="exceed the model's max_position_embeddings \\(64\\)"):
        hp.torch.generate(model, torch.zeros(1, 60, dtype=torch.int64), TP4,
                          max_new_tokens=10)


# A value other than transformers' default for every GenerationConfig field
# (a field this table lacks fails the walk below: each new one is classified).
NON_DEFAULT = {
    "max_length": 30, "max_new_tokens": 9, "min_length": 3, "min_new_tokens": 2,
    "early_stopping": True, "max_time": 100.0, "stop_strings": ["x"], "do_sample": True,
    "num_beams": 3, "use_mtp": True, "use_cache": False, "cache_implementation": "static",
    "cache_config": {"max_cache_len": 32}, "max_cache_len": 32, "temperature": 0.7,
    "top_k": 20, "top_p": 0.9, "min_p": 0.1, "top_h": 0.5, "typical_p": 0.9,
    "epsilon_cutoff": 3e-4, "eta_cutoff": 3e-4, "repetition_penalty": 1.3,
    "encoder_repetition_penalty": 1.3, "length_penalty": 2.0, "no_repeat_ngram_size": 2,
    "bad_words_ids": [[5]], "renormalize_logits": True, "forced_bos_token_id": 5,
    "forced_eos_token_id": 5, "remove_invalid_values": True,
    "exponential_decay_length_penalty": (2, 1.5), "suppress_tokens": [5],
    "begin_suppress_tokens": [5], "sequence_bias": {(5,): 3.0}, "token_healing": True,
    "guidance_scale": 1.5, "watermarking_config": {"greenlist_ratio": 0.5},
    "num_return_sequences": 2, "output_attentions": True, "output_hidden_states": True,
    "output_scores": True, "output_logits": True, "return_dict_in_generate": True,
    "pad_token_id": 3, "bos_token_id": 1, "eos_token_id": 2,
    "encoder_no_repeat_ngram_size": 2, "decoder_start_token_id": 1, "is_assistant": True,
    "num_assistant_tokens": 5, "num_assistant_tokens_schedule": "heuristic",
    "assistant_confidence_threshold": 0.2, "prompt_lookup_num_tokens": 3,
    "max_matching_ngram_size": 3, "assistant_early_exit": 1, "assistant_lookbehind": 5,
    "target_lookbehind": 5, "assistant_ensemble_weight": 0.5, "speculation_type": "x",
    "compile_config": {"fullgraph": False}, "disable_compile": True,
    "continuous_batching_config": {"x": 1}, "low_memory": True, "penalty_alpha": 0.6,
    "dola_layers": "low", "diversity_penalty": 0.5, "num_beam_groups": 3,
    "constraints": ["x"], "force_words_ids": [[5]], "prefill_chunk_size": 2,
}
# Honoured fields whose tokens the walk does not compare: the special
# tokens (tested above and below, with their effect on ending sequences),
# and settings whose transformers generate would take another path (a
# static cache of its own, an encoder-decoder's start token).
NOT_COMPARED = {"pad_token_id", "bos_token_id", "eos_token_id", "_from_model_config",
                "transformers_version", "cache_implementation", "cache_config",
                "max_cache_len", "is_assistant", "decoder_start_token_id", "do_sample"}


def test_every_generation_setting_is_honoured_or_refused_by_name():
    # Walks GenerationConfig().to_dict(): a field set to a value other than
    # its default is either refused by name before anything compiles, or
    # honoured: hp's tokens equal transformers' with it set (one Generator;
    # the config is read, and checked, per request).
    from transformers import GenerationConfig
    from hp import _generate
    model = make("llama")
    torch.manual_seed(7)
    ids = torch.randint(0, VOCAB, (1, 4))
    fields = [f for f in GenerationConfig().to_dict() if f not in
              ("_from_model_config", "transformers_version")]
    assert set(fields) - set(NON_DEFAULT) == set(), "fields the table does not know"
    refused, compared = [], []
    base = copy.deepcopy(model.generation_config)  # the model's own (its eos token)
    with hp.torch.Generator(model, batch=1, max_len=8, mesh=TP4,
                            plan=model_plan(model)) as gen:
        for field in fields:
            model.generation_config = copy.deepcopy(base)
            setattr(model.generation_config, field, NON_DEFAULT[field])
            try:
                _generate._check_generation_config(model)
            except ValueError as e:
                assert f"sets {field}, which hp does not implement" in str(e)
                assert field not in _generate._HONOURED
                with pytest.raises(ValueError, match=f"sets {field}"):
                    gen(ids, 4)
                refused.append(field)
                continue
            assert field in _generate._HONOURED
            if field in NOT_COMPARED:
                continue
            torch.manual_seed(0)
            expected = model.generate(ids, attention_mask=torch.ones_like(ids),
                                      max_new_tokens=4).tolist()
            torch.manual_seed(0)
            assert gen(ids, 4).tolist() == expected, field
            compared.append(field)
    for field in ("num_beams", "guidance_scale", "watermarking_config",
                  "num_return_sequences", "return_dict_in_generate"):
        assert field in refused
    for field in ("repetition_penalty", "no_repeat_ngram_size", "min_new_tokens",
                  "bad_words_ids", "suppress_tokens", "temperature"):
        assert field in compared
    # The public entry refuses before compiling.
    model.generation_config = GenerationConfig(num_beams=3)
    start = time.monotonic()
    with pytest.raises(ValueError, match="sets num_beams, which hp does not implement"):
        hp.torch.generate(model, ids, TP4, plan=model_plan(model))
    assert time.monotonic() - start < 2


def left_padded(rows, length, pads, pad_id, seed):
    """``rows`` prompts of ``length`` with pads[i] pad tokens on the left."""
    torch.manual_seed(seed)
    ids = torch.randint(3, VOCAB, (rows, length))
    for i, n in enumerate(pads):
        ids[i, :n] = pad_id
    return ids


@pytest.mark.parametrize("name,kv_heads", [("llama", 4), ("llama", 8), ("qwen2", 4),
                                          ("qwen2", 8)])
def test_left_padded_batches_equal_transformers(name, kv_heads):
    # Rows with 0 to 5 pads, the mask inferred from pad_token_id as
    # transformers infers it, or given; batches of 4 rows and of 1.
    # On 2 ranks: the masks and positions are the client's and the same on
    # any mesh, and 2 ranks compile in half the time of 4.
    model = make(name, kv_heads)
    model.generation_config.pad_token_id = 0
    with hp.torch.Generator(model, batch=4, max_len=14, mesh=TP2, plan=model_plan(model),
                            prefill=6) as gen:
        for seed, pads in enumerate([(0, 1, 3, 5), (2, 2, 0, 4), (5, 0, 0, 0)]):
            ids = left_padded(4, 6, pads, 0, seed)
            mask = (ids != 0).long()
            expected = model.generate(ids, attention_mask=mask, do_sample=False,
                                      max_new_tokens=8)
            assert gen(ids, 8).tolist() == expected.tolist(), pads
            assert gen(ids, 8, attention_mask=mask).tolist() == expected.tolist(), pads
        # A prompt longer than the prefill: its last tokens a step each.
        ids = left_padded(4, 8, (3, 0, 1, 7), 0, 9)
        expected = model.generate(ids, attention_mask=(ids != 0).long(), do_sample=False,
                                  max_new_tokens=6)
        assert gen(ids, 6).tolist() == expected.tolist()
    if name == "qwen2":  # one row, through generate (a Generator of its own)
        ids = left_padded(1, 5, (2,), 0, 21)
        expected = model.generate(ids, attention_mask=(ids != 0).long(), do_sample=False,
                                  max_new_tokens=4)
        out = hp.torch.generate(model, ids, TP2, plan=model_plan(model), max_new_tokens=4)
        assert out.tolist() == expected.tolist()


def test_a_bad_attention_mask_is_refused_before_compiling():
    model = make("llama")
    ids = torch.ones(2, 4, dtype=torch.int64)
    start = time.monotonic()
    for mask in (torch.ones(2, 3, dtype=torch.int64), torch.full((2, 4), 2),
                 torch.ones(2, 4)):
        with pytest.raises(ValueError, match="attention_mask must be a tensor of 0 and 1"):
            hp.torch.generate(model, ids, TP4, plan=model_plan(model), attention_mask=mask)
    assert time.monotonic() - start < 2


@pytest.mark.parametrize("ids", [torch.zeros(1, 0, dtype=torch.int64),
                                 torch.zeros(0, 3, dtype=torch.int64),
                                 torch.zeros(1, 3), torch.zeros(3, dtype=torch.int64)])
def test_a_bad_prompt_is_refused_before_compiling(ids):
    model = make("llama")
    start = time.monotonic()
    with pytest.raises(ValueError, match="input_ids must be a \\[batch, length\\] integer"):
        hp.torch.generate(model, ids, TP4, plan=model_plan(model))
    assert time.monotonic() - start < 2


def test_falcon_multi_query_generates_transformers_tokens():
    # Falcon's multi_query attention shares one key/value head while its
    # config reports num_kv_heads=8: the cache is sized from the attention.
    import transformers
    torch.manual_seed(0)
    config = transformers.FalconConfig(hidden_size=64, num_attention_heads=8,
                                       num_hidden_layers=2, vocab_size=VOCAB,
                                       multi_query=True, new_decoder_architecture=False,
                                       max_position_embeddings=64)
    assert config.num_kv_heads == 8
    model = transformers.FalconForCausalLM(config).eval()
    ids = torch.randint(0, VOCAB, (2, 4))
    out = hp.torch.generate(model, ids, hp.DeviceMesh("tp", [2]), max_new_tokens=NEW)
    assert out.tolist() == eager_tokens(model, ids).tolist()


def test_sampling_draws_transformers_tokens_for_the_same_seed():
    # do_sample with temperature, top-k and top-p: transformers' own
    # processors on hp's logits and its sampler's draws, so a seed gives
    # transformers' tokens; 5 seeds x 32 tokens on one Generator.
    model = make("qwen2")
    config = model.generation_config
    config.do_sample, config.temperature, config.top_k, config.top_p = True, 0.7, 20, 0.9
    torch.manual_seed(8)
    ids = torch.randint(0, VOCAB, (2, 4))
    with hp.torch.Generator(model, batch=2, max_len=36, mesh=TP4, plan=model_plan(model),
                            prefill=4) as gen:
        for seed in range(5):
            torch.manual_seed(seed)
            expected = model.generate(ids, attention_mask=torch.ones_like(ids),
                                      max_new_tokens=32)
            torch.manual_seed(seed)
            out = gen(ids, 32)
            assert out.tolist() == expected.tolist(), seed
        # Greedy again on the same Generator: the setting is read per request,
        # and so checked per request.
        config.do_sample = False
        assert gen(ids, 8).tolist() == eager_tokens(model, ids, 8).tolist()
        config.num_beams = 3
        with pytest.raises(ValueError, match="sets num_beams, which hp does not implement"):
            gen(ids, 4)
