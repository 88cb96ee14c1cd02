"""GPU tests of the replay check (graphbench.check_replay) over a corpus of
torch callables: each buggy one flagged with its class, no correct one
flagged, and the time a check takes. Needs torch and a GPU.

Run: python -m pytest -q -p no:cacheprovider tests/test_gpu_replay_corpus.py -rs -s"""

from __future__ import annotations

import time

import pytest

import graphbench

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
N = 1 << 16


def _x():
    return torch.randn(N, device="cuda")


def _matrix(rows=256, cols=256):
    return torch.randn(rows, cols, device="cuda")


def mlp(x, w1, w2):
    return torch.relu(x @ w1) @ w2


def scale_into(x, out):
    torch.mul(x, 2.0, out=out)


def by_device_scalar(x, alpha):
    return x * alpha  # alpha a tensor: refilled on the device, read by every replay


def by_host_scalar(x, alpha):
    return x * alpha  # a Python float: baked into the graph at capture


def head(x, n):
    out = torch.zeros_like(x)
    out[:n] = x[:n] * 2  # the slice's size is the one seen at capture
    return out


class Stepper:
    """Python-side state advanced by every eager call, frozen in the graph."""

    def __init__(self):
        self.step = 0

    def __call__(self, x):
        self.step += 1
        return x * self.step


def writes_its_own(x, out):
    """Writes a tensor it allocates under capture instead of the caller's."""
    if torch.cuda.is_current_stream_capturing():
        torch.mul(x, 2.0, out=torch.empty_like(out))
    else:
        torch.mul(x, 2.0, out=out)


def side_stream_unjoined(x):
    """Work forked onto a side stream and never joined back."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
    return y


def decode_attention(q, k, v):
    """One decode step: a query against the cached keys and values."""
    scores = (q @ k.T) / k.shape[1] ** 0.5
    return torch.softmax(scores, dim=-1) @ v


def linear_gelu(x, w, b):
    return torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b))


def gather_rows(table, index_source):
    index = (index_source.abs() * 100).long() % table.shape[0]  # indices made on the device
    return table[index]


def full_of(x, alpha):
    return x + torch.full_like(x, alpha)  # a Python float: baked at capture


def arange_n(x, n):
    return x[:n] + torch.arange(n, device=x.device)  # n: a launch shape seen at capture


def reads_to_host(x):
    return x * len([v for v in x[:4].tolist() if v > 0])  # a host read inside


def synchronises(x):
    torch.cuda.synchronize()
    return x * 2


def to_cpu_and_back(x):
    return x.cpu().cuda() * 2  # a copy to the host inside


class Counter:
    """A call counter read as a scalar: frozen at capture."""

    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x + self.calls


class CachedWorkspace:
    """Allocates its result under capture and copies it out only outside it."""

    def __call__(self, x, out):
        work = x * 2
        if not torch.cuda.is_current_stream_capturing():
            out.copy_(work)


CORRECT = {
    "elementwise": (lambda x: x * 2 + 1, lambda: (_x(),), {}),
    "matmul": (lambda a, b: a @ b, lambda: (_matrix(), _matrix()), {}),
    "mlp": (mlp, lambda: (_matrix(64, 256), _matrix(), _matrix(256, 64)), {}),
    "softmax": (lambda x: torch.softmax(x, -1), lambda: (_matrix(),), {}),
    "in place": (scale_into, lambda: (_x(), torch.empty(N, device="cuda")), {"outputs": (1,)}),
    "device scalar": (by_device_scalar, lambda: (_x(), torch.randn(1, device="cuda")), {}),
    "data-dependent on the device": (lambda x: torch.where(x > 0, x, -x), lambda: (_x(),), {}),
    "cumsum": (lambda x: torch.cumsum(x, 0), lambda: (_x(),), {}),
    "reduction": (lambda x: x.sum(dim=0), lambda: (_matrix(),), {}),
    "layer norm": (lambda x: torch.nn.functional.layer_norm(x, (256,)), lambda: (_matrix(),), {}),
    "decode attention": (decode_attention, lambda: (_matrix(1, 64), _matrix(512, 64),
                                                   _matrix(512, 64)), {}),
    "linear and gelu": (linear_gelu, lambda: (_matrix(64, 256), _matrix(128, 256),
                                              torch.randn(128, device="cuda")), {}),
    "batched matmul": (torch.bmm, lambda: (torch.randn(8, 64, 32, device="cuda"),
                                           torch.randn(8, 32, 16, device="cuda")), {}),
    "gather by device indices": (gather_rows, lambda: (_matrix(512, 64), _x()[:256]), {}),
    "sort": (lambda x: torch.sort(x).values, lambda: (_x(),), {}),
    "einsum": (lambda a, b: torch.einsum("ij,jk->ik", a, b), lambda: (_matrix(), _matrix()),
               {}),
    "conv1d": (lambda x, w: torch.nn.functional.conv1d(x, w, padding=1),
               lambda: (torch.randn(4, 8, 256, device="cuda"),
                        torch.randn(16, 8, 3, device="cuda")), {}),
    "half precision": (lambda x: (x.half() * 2).float(), lambda: (_x(),), {}),
    "two outputs": (lambda x: (x + 1, x * 3), lambda: (_x(),), {}),
    "in place, two steps": (lambda x, out: torch.add(torch.mul(x, 2), 1, out=out),
                            lambda: (_x(), torch.empty(N, device="cuda")), {"outputs": (1,)}),
}
BUGGY = {
    "host scalar": (by_host_scalar, lambda: (_x(),), {"scalars": {"alpha": 2.0}},
                    "host-scalar"),
    "size seen at capture": (head, lambda: (_x(),), {"scalars": {"n": N}, "sizes": ("n",)},
                             "frozen-shape"),
    # eager's results change from call to call on the same inputs: read as a repeat
    "python-side state": (Stepper(), lambda: (_x(),), {}, "repeating-random"),
    "side stream never joined": (side_stream_unjoined, lambda: (_x(),), {}, "side-stream"),
    "full of a host scalar": (full_of, lambda: (_x(),), {"scalars": {"alpha": 0.5}},
                              "host-scalar"),
    "arange of a size": (arange_n, lambda: (_x(),), {"scalars": {"n": N}, "sizes": ("n",)},
                         "frozen-shape"),
    "host read inside": (reads_to_host, lambda: (_x(),), {}, "host-sync"),
    "synchronise inside": (synchronises, lambda: (_x(),), {}, "host-sync"),
    "copy to the host inside": (to_cpu_and_back, lambda: (_x(),), {}, "host-sync"),
    "a call counter": (Counter(), lambda: (_x(),), {}, "repeating-random"),
    "result copied out only eagerly": (CachedWorkspace(), lambda: (_x(), torch.empty(
        N, device="cuda")), {"outputs": (1,)}, "capture-allocation"),
    "own tensor under capture": (writes_its_own, lambda: (_x(), torch.empty(N, device="cuda")),
                                 {"outputs": (1,)}, "capture-allocation"),
}


@pytest.mark.parametrize("name", CORRECT)
def test_a_correct_callable_is_never_flagged(name):
    fn, args, options = CORRECT[name]
    start = time.perf_counter()
    check = graphbench.check_replay(fn, *args(), **options)
    print(f"\n{name}: {time.perf_counter() - start:.2f} s, {len(check.record.cases)} cases")
    assert check.passed, check.judgement


@pytest.mark.parametrize("name", BUGGY)
def test_a_buggy_callable_is_flagged_with_its_class(name):
    fn, args, options, kind = BUGGY[name]
    start = time.perf_counter()
    check = graphbench.check_replay(fn, *args(), **options)
    print(f"\n{name}: {time.perf_counter() - start:.2f} s: "
          + "; ".join(f"{f.kind}: {f.evidence}" for f in check.judgement.findings))
    assert kind in [f.kind for f in check.judgement.findings], check.judgement


def test_a_callable_that_synchronises_inside_is_flagged_by_its_capture_s_error():
    check = graphbench.check_replay(lambda x: x * float(x.sum().item()), _x())
    assert [f.kind for f in check.judgement.findings] == ["host-sync"], check.judgement


try:
    import cupy
except ImportError:  # the torch cases above still run
    cupy = None
needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


def cupy_scale_into(x, out):
    cupy.multiply(x, 2.0, out=out)


def cupy_allocating(x, out):
    out[...] = x * 2  # x * 2 allocates a temporary while capturing


@needs_cupy
@pytest.mark.parametrize("fn, kind", [(cupy_scale_into, None),
                                      (cupy_allocating, "capture-allocation")])
def test_cupy_callables_are_checked_too(fn, kind):
    x, out = cupy.random.standard_normal(N, dtype=cupy.float32), cupy.empty(N, cupy.float32)
    check = graphbench.check_replay(fn, x, out, outputs=(1,))
    assert [f.kind for f in check.judgement.findings] == ([kind] if kind else []), \
        check.judgement


@needs_cupy
@pytest.mark.parametrize("pipeline", ["torch_mlp", "cupy_chain"])
def test_the_command_passes_the_shipped_callable_pipelines(pipeline, capsys):
    from graphbench.cli import main

    assert main(["replay", "--pipeline", pipeline]) == 0, capsys.readouterr()


SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + 1.0f;
}
"""


@pytest.fixture(scope="module")
def saxpy_kernel():
    from cuda.core import Device, Program, ProgramOptions

    device = Device()
    device.set_current()
    arch = "sm_" + "".join(str(v) for v in device.compute_capability)
    code = Program(SAXPY, "c++", ProgramOptions(arch=arch)).compile("cubin")
    return code.get_kernel("saxpy")


def _saxpy(kernel, x, y, a, n, stream):
    import numpy as np
    from cuda.core import LaunchConfig, launch

    launch(stream, LaunchConfig(grid=(n + 255) // 256, block=256), kernel,
           np.float32(a), x.data.ptr, y.data.ptr, np.uint64(n))


@needs_cupy
def test_cuda_core_callables_are_checked_too(saxpy_kernel):
    x, y = cupy.random.standard_normal(N, dtype=cupy.float32), cupy.empty(N, cupy.float32)

    def right(x, y, *, stream):
        _saxpy(saxpy_kernel, x, y, 2.0, N, stream)

    def baked(x, y, *, stream, alpha):
        _saxpy(saxpy_kernel, x, y, alpha, N, stream)  # alpha packed at capture

    def shaped(x, y, *, stream, n):
        _saxpy(saxpy_kernel, x, y, 2.0, n, stream)  # grid and bound from the size then

    assert graphbench.check_replay(right, x, y, outputs=(1,), stream="stream").passed
    check = graphbench.check_replay(baked, x, y, outputs=(1,), stream="stream",
                                    scalars={"alpha": 2.0})
    assert [f.kind for f in check.judgement.findings] == ["host-scalar"], check.judgement
    check = graphbench.check_replay(shaped, x, y, outputs=(1,), stream="stream",
                                    scalars={"n": N}, sizes=("n",))
    assert [f.kind for f in check.judgement.findings] == ["frozen-shape"], check.judgement
