"""transformers' LlamaDecoderLayer with a tiny random config (nothing is
downloaded), under torch's tensor-parallel plan for Llama: q/k/v and
gate/up projections column-wise, o and down projections row-wise. Exported
by hp.torch, run on 4 CPU ranks, checked against torch eager.

Run: python examples/torch/hf_llama_layer.py   (with build/python on PYTHONPATH)
"""
import torch
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel


def make_layer(seq=16):
    """The decoder layer (default SDPA attention) with its rotary table and
    causal mask as buffers, called the way LlamaModel calls it."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import (LlamaDecoderLayer,
                                                          LlamaRotaryEmbedding)
    config = LlamaConfig(hidden_size=64, intermediate_size=128, num_attention_heads=8,
                         num_key_value_heads=4, num_hidden_layers=1,
                         max_position_embeddings=64, vocab_size=128)

    class Layer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = LlamaDecoderLayer(config, layer_idx=0)
            cos, sin = LlamaRotaryEmbedding(config)(torch.zeros(1, seq, 64),
                                                    torch.arange(seq)[None])
            self.register_buffer("cos", cos)
            self.register_buffer("sin", sin)
            self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1)[None, None])

        def forward(self, x):
            out = self.layer(x, attention_mask=self.mask, position_embeddings=(self.cos, self.sin))
            return out[0] if isinstance(out, tuple) else out

    return Layer().eval()


PLAN = {
    "layer.self_attn.q_proj": ColwiseParallel(),
    "layer.self_attn.k_proj": ColwiseParallel(),
    "layer.self_attn.v_proj": ColwiseParallel(),
    "layer.self_attn.o_proj": RowwiseParallel(),
    "layer.mlp.gate_proj": ColwiseParallel(),
    "layer.mlp.up_proj": ColwiseParallel(),
    "layer.mlp.down_proj": RowwiseParallel(),
}


def main():
    import hp
    import hp.torch
    torch.manual_seed(0)
    model = make_layer()
    x = torch.randn(2, 16, 64)
    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    prog = hp.torch.export(model, (x,), mesh, plan=PLAN)
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)
    with torch.no_grad():
        expected = model(x)
    ok = torch.allclose(out, expected, rtol=1e-4, atol=1e-5)
    print(f"transformers LlamaDecoderLayer TP: {hp.torch.collectives(prog)}; matches torch: "
          f"{ok} (max error {(out - expected).abs().max():.2e})")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
