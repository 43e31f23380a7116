"""Serving a transformers model: a tiny LlamaForCausalLM (grouped-query
attention, built here, nothing downloaded) saved as a safetensors
checkpoint, then served by one hp.torch.Generator on 4 CPU ranks under
transformers' own tensor-parallel plan (plan="auto"): the ranks read their
own pieces of the checkpoint in place, a prefill and a decode step share
them and the key/value cache, which stays on the ranks split by heads, and
each request's greedy tokens are checked against transformers'
model.generate on one device.

Run: python examples/torch/generate.py   (with build/python on PYTHONPATH)
"""
import tempfile
import time

import torch

import hf_causal_lm
import hp
import hp.torch


def main():
    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    torch.manual_seed(0)
    model = hf_causal_lm.make_model("llama", layers=2)
    with tempfile.TemporaryDirectory() as checkpoint:
        model.save_pretrained(checkpoint)
        # Prompts' first 4 tokens in one prefill step, the rest a token per
        # decode step: two entries of one session, sharing weights and cache.
        with hp.torch.Generator(model, batch=2, max_len=24, mesh=mesh, plan="auto",
                                params=checkpoint, prefill=4) as gen:
            print("a decode step moves:", hp.torch.collectives(gen.program)["counts"])
            for request in range(3):
                ids = torch.randint(0, hf_causal_lm.VOCAB, (2, 4 + 2 * request))
                t0 = time.perf_counter()
                out = gen(ids, max_new_tokens=8)
                took = time.perf_counter() - t0
                expected = model.generate(ids, attention_mask=torch.ones_like(ids),
                                          do_sample=False, max_new_tokens=8)
                same = out.tolist() == expected.tolist()
                first = " (with the ranks' start and compilation)" if request == 0 else ""
                print(f"request {request}: {ids.shape[1]} prompt tokens -> "
                      f"{out[0, ids.shape[1]:].tolist()} ... in {took:.2f} s{first}; "
                      f"equals model.generate: {same}")
                assert same
            peaks = [p >> 20 for p in gen.peak_memory()]
            print(f"peak memory per rank (MiB, the compiled program included): {peaks}")


if __name__ == "__main__":
    main()
