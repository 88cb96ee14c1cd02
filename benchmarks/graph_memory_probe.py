"""How much device memory an executable graph takes, read as free device
memory (cuMemGetInfo) before and after instantiating and uploading K copies
of one captured graph of N kernel nodes: one copy moves free memory by
less than its 2 MiB granularity, so graphbench's single-graph read says 0.

    python benchmarks/graph_memory_probe.py   (prints JSON)
"""

import json

import numpy as np
from cuda.bindings import driver
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

SOURCE = r'''
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}'''


def free_bytes():
    err, free, _ = driver.cuMemGetInfo()
    assert err == driver.CUresult.CUDA_SUCCESS
    return int(free)


def main():
    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    kernel = Program(SOURCE, "c++", ProgramOptions(arch=f"sm_{dev.arch}")).compile("cubin") \
        .get_kernel("vec_add")
    n = 4096
    bufs = [dev.allocate(n * 4, stream=stream) for _ in range(3)]
    config = LaunchConfig(grid=n // 256, block=256)
    out = {"uuid": str(dev.uuid), "rows": []}
    for nodes in (3, 48, 300):
        builder = stream.create_graph_builder()
        builder.begin_building()
        for _ in range(nodes):
            launch(builder, config, kernel, bufs[0], bufs[1], bufs[2], np.uint64(n))
        builder.end_building()
        for copies in (1, 16, 256):
            stream.sync()
            before = free_bytes()
            graphs = []
            for _ in range(copies):
                g = builder.complete()
                g.upload(stream)
                graphs.append(g)
            stream.sync()
            after_upload = free_bytes()
            for g in graphs:
                g.launch(stream)
            stream.sync()
            after_launch = free_bytes()
            for g in graphs:
                g.close()
            stream.sync()
            after_close = free_bytes()
            out["rows"].append({"nodes": nodes, "copies": copies,
                                "upload_delta_per_copy": (before - after_upload) / copies,
                                "launch_delta_per_copy": (before - after_launch) / copies,
                                "left_after_close": before - after_close})
        builder.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
