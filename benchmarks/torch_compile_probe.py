"""Does torch.compile(mode="reduce-overhead") make CUDA graphs of graphbench's
torch_mlp iteration? graphbench's torch-compile rung read 1.17x of eager at
batch 8 on the H200, where its own graph rung read 6.7x. This prints, for
each way of writing the iteration, inductor's cudagraph skip counters and the
wall time per call (1000 calls, synchronised).

    python benchmarks/torch_compile_probe.py   (prints JSON)
"""

import json
import time

import torch
import torch.nn.functional as F

D, H, B = 1024, 4096, 8


def buffers():
    bf = torch.bfloat16
    r = lambda *s: (torch.rand(*s, device="cuda") * 2 - 1).to(bf)  # noqa: E731
    b = {"x": r(B, D), "w1": r(D, H) * D ** -0.5, "b1": r(H) * 0.1, "w2": r(H, D) * H ** -0.5,
         "b2": r(D) * 0.1, "gamma": r(D) * 0.5 + 1, "beta": r(D) * 0.1}
    for name, w in (("h", H), ("g", H), ("o", D), ("r", D), ("y", D)):
        b[name] = torch.empty(B, w, device="cuda", dtype=bf)
    return b


def stages_out(b):  # graphbench's torch_mlp, stage by stage
    torch.addmm(b["b1"], b["x"], b["w1"], out=b["h"])
    b["g"].copy_(F.gelu(b["h"]))
    torch.addmm(b["b2"], b["g"], b["w2"], out=b["o"])
    torch.add(b["x"], b["o"], out=b["r"])
    b["y"].copy_(F.layer_norm(b["r"], (D,), b["gamma"], b["beta"]))


def stages_functional(b):  # no out=: results copied into the buffers
    h = torch.addmm(b["b1"], b["x"], b["w1"])
    b["h"].copy_(h)
    g = F.gelu(h)
    b["g"].copy_(g)
    o = torch.addmm(b["b2"], g, b["w2"])
    b["o"].copy_(o)
    r = b["x"] + o
    b["r"].copy_(r)
    b["y"].copy_(F.layer_norm(r, (D,), b["gamma"], b["beta"]))


def timed(fn, calls=1000, mark=False):
    import torch.compiler
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        if mark:
            torch.compiler.cudagraph_mark_step_begin()
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


def launches(fn, calls=10):
    """Host-side launch events per call, from torch.profiler: a replayed graph
    is one cudaGraphLaunch; eager work is one cudaLaunchKernel per kernel."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    names = {}
    for event in prof.events():
        if "Launch" in event.name or "Graph" in event.name:
            names[event.name] = names.get(event.name, 0) + 1
    return {k: v / calls for k, v in sorted(names.items())}


def variant(name, body, static, as_argument):
    import torch._dynamo
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()
    b = buffers()
    if static:
        for t in b.values():
            torch._dynamo.mark_static_address(t)
    if as_argument:
        compiled = torch.compile(body, mode="reduce-overhead")
        step = lambda: compiled(b)  # noqa: E731
    else:
        def iteration():
            body(b)
        compiled = torch.compile(iteration, mode="reduce-overhead")
        step = compiled
    t0 = time.perf_counter()
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - t0
    return {"name": name, "static": static, "as_argument": as_argument,
            "compile_s": round(compile_s, 2), "compiled_us": sorted(timed(step) for _ in range(3))[1],
            "compiled_marked_us": sorted(timed(step, mark=True) for _ in range(3))[1],
            "eager_us": sorted(timed(lambda: body(b)) for _ in range(3))[1],
            "launches_compiled": launches(step), "launches_eager": launches(lambda: body(b)),
            "counters": {k: dict(v) for k, v in counters.items() if v}}


def main():
    import logging
    logging.basicConfig(level=logging.INFO)
    torch._logging.set_logs(perf_hints=True, cudagraphs=True)
    out = {"torch": torch.__version__, "rows": []}
    for name, body in (("out=", stages_out), ("functional", stages_functional)):
        for static, as_argument in ((True, False), (True, True), (False, True)):
            try:
                out["rows"].append(variant(name, body, static, as_argument))
            except Exception as exc:  # noqa: BLE001 - a probe reports every way
                out["rows"].append({"name": name, "static": static,
                                    "as_argument": as_argument, "error": repr(exc)[:300]})
            print(json.dumps(out["rows"][-1]), flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
