"""Whole transformers models as the library builds them (tiny random configs,
nothing downloaded, default SDPA attention and the library's own masks):
LlamaForCausalLM, MistralForCausalLM and Qwen2ForCausalLM, and BertModel,
under torch's tensor-parallel plan (the token embedding row-wise, q/k/v
and gate/up column-wise, o and down row-wise, the LM head column-wise).
Exported by hp.torch, run on 4 CPU ranks, checked against torch eager.

Run: python examples/torch/hf_causal_lm.py   (with build/python on PYTHONPATH)
"""
import torch
from torch.distributed.tensor import Replicate
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

VOCAB, SEQ, BATCH = 128, 16, 2


def make_model(name, layers=2):
    """A causal LM with 8 query heads and 4 key/value heads (grouped-query
    attention), as ``from_config`` builds it."""
    import transformers
    config_class, model_class = {
        "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
        "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM),
        "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM),
    }[name]
    config = config_class(hidden_size=64, intermediate_size=128, num_attention_heads=8,
                          num_key_value_heads=4, num_hidden_layers=layers,
                          max_position_embeddings=64, vocab_size=VOCAB)
    return model_class(config).eval()


def make_moe(name):
    """A tiny MixtralForCausalLM ("mixtral") or Qwen2MoeForCausalLM
    ("qwen2_moe"): 4 experts, top 2, one layer, as from_config builds it
    (its experts default to ``grouped_mm``)."""
    import transformers
    common = dict(hidden_size=64, intermediate_size=128, num_attention_heads=8,
                  num_key_value_heads=4, num_hidden_layers=1, max_position_embeddings=64,
                  vocab_size=VOCAB, num_experts_per_tok=2)
    torch.manual_seed(0)
    if name == "mixtral":
        model = transformers.MixtralForCausalLM(
            transformers.MixtralConfig(num_local_experts=4, **common))
    else:
        model = transformers.Qwen2MoeForCausalLM(transformers.Qwen2MoeConfig(
            num_experts=4, moe_intermediate_size=32, shared_expert_intermediate_size=64,
            **common))
    return model.eval()


class Logits(torch.nn.Module):
    """model(input_ids, attention_mask=...).logits: the tensors hp exports."""

    def __init__(self, model, use_cache=False):
        super().__init__()
        self.model = model
        self.use_cache = use_cache

    def forward(self, input_ids, attention_mask=None):
        return self.model(input_ids, attention_mask=attention_mask,
                          use_cache=self.use_cache).logits


def make_inputs(with_mask=False):
    """Token ids, and with ``with_mask`` an attention mask whose second
    sequence is right-padded by 3."""
    ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    if not with_mask:
        return (ids,)
    mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    mask[1, -3:] = 0
    return (ids, mask)


def plan_for(wrapped):
    """torch's tensor-parallel plan for ``wrapped`` (a Logits): the token
    embedding row-wise (vocabulary-parallel), each decoder layer's q/k/v and
    gate/up column-wise and o/down row-wise, the LM head column-wise with
    its logits gathered."""
    return causal_lm_plan("model.")


def causal_lm_plan(prefix=""):
    """That plan for a Llama-style causal LM at ``prefix`` (its path, with a
    trailing dot, inside the module the plan is applied to)."""
    layer = {"self_attn.q_proj": ColwiseParallel(), "self_attn.k_proj": ColwiseParallel(),
             "self_attn.v_proj": ColwiseParallel(), "self_attn.o_proj": RowwiseParallel(),
             "mlp.gate_proj": ColwiseParallel(), "mlp.up_proj": ColwiseParallel(),
             "mlp.down_proj": RowwiseParallel()}
    plan = {f"{prefix}model.layers.*.{k}": v for k, v in layer.items()}
    plan[f"{prefix}model.embed_tokens"] = RowwiseParallel(input_layouts=Replicate())
    plan[f"{prefix}lm_head"] = ColwiseParallel(output_layouts=Replicate())
    return plan


class BertHidden(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask=None):
        return self.model(input_ids, attention_mask=attention_mask).last_hidden_state


def make_bert(layers=2):
    from transformers import BertConfig, BertModel
    config = BertConfig(hidden_size=64, intermediate_size=128, num_attention_heads=8,
                        num_hidden_layers=layers, max_position_embeddings=64,
                        vocab_size=VOCAB)
    return BertHidden(BertModel(config, add_pooling_layer=False).eval())


BERT_PLAN = {f"model.encoder.layer.*.{k}": v for k, v in {
    "attention.self.query": ColwiseParallel(), "attention.self.key": ColwiseParallel(),
    "attention.self.value": ColwiseParallel(), "attention.output.dense": RowwiseParallel(),
    "intermediate.dense": ColwiseParallel(), "output.dense": RowwiseParallel()}.items()}
BERT_PLAN["model.embeddings.word_embeddings"] = RowwiseParallel(input_layouts=Replicate())


def make_gpt2(layers=2):
    """GPT2LMHeadModel with its default config but for the sizes: SDPA
    attention, tanh GELU, ``Conv1D`` layers (weights stored [in, out]) and
    the LM head tied to the token embedding."""
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(n_embd=64, n_head=8, n_layer=layers, n_positions=64,
                        vocab_size=VOCAB, bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config).eval()


# GPT-2's layers under torch's styles, with the meaning hp gives them for
# Conv1D (docs/Torch.md): c_attn and c_fc column-wise, the two c_proj
# row-wise; the tied embedding and head split by vocabulary rows.
GPT2_PLAN = {f"model.transformer.h.*.{k}": v for k, v in {
    "attn.c_attn": ColwiseParallel(), "attn.c_proj": RowwiseParallel(),
    "mlp.c_fc": ColwiseParallel(), "mlp.c_proj": RowwiseParallel()}.items()}
GPT2_PLAN["model.transformer.wte"] = RowwiseParallel(input_layouts=Replicate())
GPT2_PLAN["model.lm_head"] = ColwiseParallel(output_layouts=Replicate())


def main():
    import hp
    import hp.torch
    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    for name in ("llama", "mistral", "qwen2"):
        torch.manual_seed(0)
        wrapped = Logits(make_model(name))
        args = make_inputs(with_mask=True)
        prog = hp.torch.export(wrapped, args, mesh, plan=plan_for(wrapped))
        out = hp.torch.run(prog, args, dict(wrapped.named_parameters()), np=4)
        with torch.no_grad():
            err = (out - wrapped(*args)).abs().max().item()
        print(f"{name}: {hp.torch.collectives(prog)}, max |hp - torch| = {err:.1e}")
        assert err < 1e-5


if __name__ == "__main__":
    main()
