"""Why graphbench's torch graph rung and a bare CUDAGraph.replay() loop differ
(issue 21's cross-check). One process; each variant has its own tensors and
graph of the add, mul, sub chain at --elements; rounds rotate the variants:

- ctx:        torch.cuda.graph(g, stream=torch.cuda.Stream()) (torch_crosscheck.py)
- begin:      g.capture_begin()/capture_end() on a torch stream made current
- ext_ctx:    torch.cuda.graph on an ExternalStream of a cuda.core stream
- ext_begin:  capture_begin/end on that ExternalStream made current (graphbench's way)
- rand_alloc: ctx, with tensors made as torch_crosscheck.py makes them
Then graphbench's own graph rung on the same chain, in the same process.

    python benchmarks/torch_bisect.py [elements] [--reverse] [--graphbench]
    (prints JSON, us per replay; --reverse builds the variants in reverse order)
"""

import json
import statistics
import sys
import time

import torch

ROUNDS, ITERS = 15, 1000


def chain(t):
    torch.add(t[0], t[1], out=t[3])
    torch.mul(t[3], t[2], out=t[4])
    torch.sub(t[4], t[0], out=t[5])


def tensors(n, how):
    if how == "rand":
        ins = [torch.rand(n, device="cuda") * 2 - 1 for _ in range(3)]
        return ins + [torch.empty(n, device="cuda") for _ in range(3)]
    out = [torch.empty(n, device="cuda") for _ in range(6)]
    for t in out[:3]:
        t.copy_(torch.rand(n, device="cuda") * 2 - 1)
    return out


def make(n, name, core_stream):
    stream = torch.cuda.ExternalStream(int(core_stream.handle)) if name.startswith("ext") \
        else torch.cuda.Stream()
    torch.cuda.set_stream(stream)
    t = tensors(n, "rand" if name == "rand_alloc" else "empty")
    for _ in range(3):
        chain(t)
    stream.synchronize()
    g = torch.cuda.CUDAGraph()
    if name.endswith("begin"):
        g.capture_begin()
        chain(t)
        g.capture_end()
    else:
        with torch.cuda.graph(g, stream=stream):
            chain(t)
    torch.cuda.set_stream(torch.cuda.default_stream())
    return {"stream": stream, "graph": g, "t": t}


def time_round(v):
    stream, replay = v["stream"], v["graph"].replay
    torch.cuda.set_stream(stream)
    stream.synchronize()
    t0 = time.perf_counter()
    for _ in range(ITERS):
        replay()
    stream.synchronize()
    wall = (time.perf_counter() - t0) / ITERS * 1e6
    torch.cuda.set_stream(torch.cuda.default_stream())
    return wall


def graphbench_graph(n):
    sys.path.insert(0, ".")
    import graphbench
    rec = graphbench.run("benchmarks/torch_chain.py", elements=n, modes="individual,graph")
    walls = rec.samples("graph", "wall")
    return {"wall_us_median": statistics.median(walls), "wall_us_min": min(walls),
            "rounds": len(walls), "verified": rec.verified}


def main():
    from cuda.core import Device
    n = int(next((a for a in sys.argv[1:] if a.isdigit()), 1 << 20))
    dev = Device()
    dev.set_current()
    core_stream = dev.create_stream()
    names = ["ctx", "begin", "ext_ctx", "ext_begin", "rand_alloc"]
    built = names[::-1] if "--reverse" in sys.argv else names  # is it the method, or the addresses?
    variants = {name: make(n, name, core_stream) for name in built}
    walls = {name: [] for name in names}
    for name in names:  # warm
        time_round(variants[name])
    for r in range(ROUNDS):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            walls[name].append(time_round(variants[name]))
    out = {"elements": n, "uuid": str(dev.uuid), "torch": torch.__version__, "built": built,
           "median_us": {k: statistics.median(v) for k, v in walls.items()},
           "min_us": {k: min(v) for k, v in walls.items()},
           "max_us": {k: max(v) for k, v in walls.items()},
           "pointers": {k: [hex(t.data_ptr()) for t in v["t"]] for k, v in variants.items()}}
    if "--graphbench" in sys.argv:  # after the bare variants, in the same process
        out["graphbench_graph"] = graphbench_graph(n)
    print(json.dumps(out, indent=1), flush=True)


if __name__ == "__main__":
    main()
