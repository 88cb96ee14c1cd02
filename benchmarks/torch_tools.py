"""What the tools a torch user reaches for report for the same chain
(torch add, mul, sub writing preallocated outputs), to set beside
graphbench's rungs: triton.testing.do_bench (CUDA events after an L2 flush,
eager), triton.testing.do_bench_cudagraph (calls unrolled into one graph),
and torch.utils.benchmark.Timer (host clock). Imports nothing from
graphbench. Prints JSON, us per iteration of the chain.

    python3 benchmarks/torch_tools.py
"""

import json

import torch
import triton.testing
from torch.utils import benchmark

SIZES = (4096, 1 << 20)


def chain_at(n):
    a, b, c = (torch.rand(n, device="cuda") for _ in range(3))
    r1, r2, r3 = (torch.empty(n, device="cuda") for _ in range(3))

    def chain():
        torch.add(a, b, out=r1)
        torch.mul(r1, c, out=r2)
        torch.sub(r2, a, out=r3)
    return chain


def main() -> None:
    out = {}
    for n in SIZES:
        chain = chain_at(n)
        chain()
        torch.cuda.synchronize()
        timer = benchmark.Timer(stmt="chain(); torch.cuda.synchronize()",
                                globals={"chain": chain, "torch": torch})
        out[str(n)] = {
            "do_bench_us": 1e3 * triton.testing.do_bench(chain, warmup=100, rep=500),
            "do_bench_cudagraph_us": 1e3 * triton.testing.do_bench_cudagraph(chain, rep=500),
            "torch_utils_benchmark_us": 1e6 * timer.blocked_autorange(min_run_time=1).median,
        }
    print(json.dumps({"torch": torch.__version__, "triton": triton.__version__, **out}))


if __name__ == "__main__":
    main()
