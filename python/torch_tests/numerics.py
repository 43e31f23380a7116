"""How the torch tests compare hp's outputs with torch eager's."""
import torch


def check_close(out, expected, rtol=1e-5, atol=1e-5):
    """Same shape, and every element within rtol/atol of eager's."""
    assert out.shape == expected.shape
    assert torch.allclose(out, expected, rtol=rtol, atol=atol), \
        f"max error {(out - expected).abs().max()}"
