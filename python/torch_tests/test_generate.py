"""hp.torch.generate and hp.torch.Generator: greedy decoding of transformers
causal LMs (tiny configs built here) as one decode step on one session, the
key/value cache resident on the ranks and split by heads; the tokens must be
transformers' own model.generate(do_sample=False) tokens.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import os
import sys

import pytest
import torch

import hp
import hp.torch

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import hf_causal_lm  # noqa: E402
from hf_causal_lm import VOCAB  # noqa: E402

TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
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
    model.generation_config.repetition_penalty = 1.3
    with pytest.raises(ValueError, match="sets repetition_penalty, which change greedy tokens"):
        hp.torch.generate(model, torch.zeros(1, 2, dtype=torch.int64), TP4)
    model.generation_config.repetition_penalty = 1.0
    with pytest.raises(ValueError, match="exceed the model's max_position_embeddings \\(64\\)"):
        hp.torch.generate(model, torch.zeros(1, 60, dtype=torch.int64), TP4,
                          max_new_tokens=10)
