"""A cross-check of `run --attribute`: per-stage GPU time against the bytes
the stage's buffer arguments hold, over the H200's bandwidth. A stage that
reads or writes each of its buffers once moves those bytes; at 2^24
elements (64 MiB per float32 array, beyond the 50 MB L2) its time is then
that traffic at the achieved bandwidth, below the 4.8 TB/s peak.

    python benchmarks/stage_bandwidth.py RECORD.json...   (prints a table)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphbench.stats.stage_figures import all_rung_figures  # noqa: E402
from graphbench.pipeline.files import load_pipeline  # noqa: E402
from graphbench.pipeline.plan import plan  # noqa: E402
from graphbench.record.codec import read_run  # noqa: E402

PEAK_TB_S = 4.8  # H200 HBM3e


def stage_bytes(record) -> dict[str, int]:
    """Bytes of every buffer argument of each stage (and its PDL variant), at the record's size."""
    spec = load_pipeline(None if record.pipeline.file == "built-in" else record.pipeline.file,
                         record.config.depth).spec
    made = plan(spec, record.config.elements)
    sizes = {name: b.nbytes for name, b in made.buffers.items()}
    out = {}
    for stage in made.stages:
        moved = sum(sizes[a] for a in stage.args if isinstance(a, str))
        out[stage.kernel] = moved
        if stage.pdl_kernel:
            out[stage.pdl_kernel] = moved
    return out


def main(paths):
    print(f"{'record':34} {'rung':10} {'kernel':16} {'MiB':>7} {'GPU us':>8} {'TB/s':>6} {'of peak':>7}")
    for path in paths:
        record = read_run(path)
        moved = stage_bytes(record)
        for figures in all_rung_figures(record):
            for s in figures.stages:
                name = s.kernels[0] if s.kernels else s.stage
                if name in moved and s.gpu_us > 0:
                    rate = moved[name] / (s.gpu_us * 1e-6) / 1e12
                    print(f"{Path(path).name:34} {figures.mode:10} {name:16} "
                          f"{moved[name] / 2**20:7.0f} {s.gpu_us:8.2f} {rate:6.2f} "
                          f"{rate / PEAK_TB_S:7.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
