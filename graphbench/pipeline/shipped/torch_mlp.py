"""A transformer-style MLP block at decode batch sizes, in torch bf16:
y = LayerNorm(x + W2 GELU(W1 x + b1) + b2), hidden 1024 -> 4096 -> 1024.

--elements counts the activation elements x holds, as every pipeline's
--elements counts a vector's elements: batch = n // 1024 rows, so
--elements 8192 is batch 8 (the default 4096 is batch 4; below 1024 is
refused). Each op writes a preallocated tensor (out=, or copy_ of the
op's result: torch's capture pools that temporary), the launch-bound
chain CUDA graphs are used for in LLM serving. The reference runs in
float32 on the same bf16 inputs; the tolerance covers bf16 rounding of
the intermediates (about 0.4% relative, amplified by the LayerNorm)."""

from graphbench._version import install_command
from graphbench.callables import CallablePipeline, array
from graphbench.spec import SpecError

try:  # an optional extra: without it this file loads and says what to install
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None

D, H = 1024, 4096
ROWS = "n // 1024"


def up(b):
    torch.addmm(b["b1"], b["x"], b["w1"], out=b["h"])


def gelu(b):
    b["g"].copy_(F.gelu(b["h"]))


def down(b):
    torch.addmm(b["b2"], b["g"], b["w2"], out=b["o"])


def residual(b):
    torch.add(b["x"], b["o"], out=b["r"])


def layer_norm(b):
    b["y"].copy_(F.layer_norm(b["r"], (D,), b["gamma"], b["beta"]))


def reference(inputs, n):
    f = {name: t.float() for name, t in inputs.items()}
    h = F.gelu(torch.addmm(f["b1"], f["x"], f["w1"]))
    r = f["x"] + torch.addmm(f["b2"], h, f["w2"])
    return {"y": F.layer_norm(r, (D,), f["gamma"], f["beta"])}


def pipeline():
    if torch is None:
        raise SpecError("the torch_mlp pipeline needs torch, which is not installed",
                        install_command("torch"))
    bf16 = "bfloat16"
    weights = [array("w1", (D, H), bf16, "input", -D ** -0.5, D ** -0.5),
               array("b1", (H,), bf16, "input", -0.1, 0.1),
               array("w2", (H, D), bf16, "input", -H ** -0.5, H ** -0.5),
               array("b2", (D,), bf16, "input", -0.1, 0.1),
               array("gamma", (D,), bf16, "input", 0.5, 1.5),
               array("beta", (D,), bf16, "input", -0.1, 0.1)]
    scratch = [array(name, (ROWS, width), bf16, "scratch")
               for name, width in (("h", H), ("g", H), ("o", D), ("r", D))]
    return CallablePipeline(
        name="torch_mlp", framework="torch", stages=[up, gelu, down, residual, layer_norm],
        reference=reference, rtol=2e-2, atol=2e-2,
        arrays=[array("x", (ROWS, D), bf16, "input"), *weights, *scratch,
                array("y", (ROWS, D), bf16)],
        description="bf16 linear 1024->4096, GELU, linear 4096->1024, residual, LayerNorm")
