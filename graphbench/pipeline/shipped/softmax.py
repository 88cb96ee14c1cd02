"""Row-wise softmax of a rows x 1024 matrix (rows = --elements // 1024) as
three kernels: the row maxima, the exponentials and their row sums, and the
division. One block of 256 threads per row; the fused rung does all three in
one kernel."""

from graphbench.spec import Pipeline, Stage, buffer, count

COLS = 1024
ROWS = f"n // {COLS}"
CELLS = f"n // {COLS} * {COLS}"


def reference(inputs, n):
    import cupy

    x = inputs["x"].reshape(-1, COLS)
    xp = cupy.get_array_module(x)  # CuPy on the GPU, numpy in CPU tests
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return {"y": (e / e.sum(axis=1, keepdims=True)).ravel()}


def stage(kernel, *args):
    return Stage(kernel, args=(*args, count(str(COLS), "int32")), grid=ROWS, block=256,
                 pdl_kernel=kernel + "_pdl")


def pipeline():
    return Pipeline(
        name="softmax", source="softmax.cu",
        description=f"row-wise softmax of (n // {COLS}) x {COLS}: max, exp-and-sum, normalise",
        buffers=[buffer("x", size=CELLS, role="input", low=-4.0, high=4.0),
                 buffer("row_max", size=ROWS, role="scratch"),
                 buffer("e", size=CELLS, role="scratch"),
                 buffer("row_sum", size=ROWS, role="scratch"),
                 buffer("y", size=CELLS)],
        stages=[stage("row_max", "x", "row_max"), stage("exp_sum", "x", "row_max", "e", "row_sum"),
                stage("normalise", "e", "row_sum", "y")],
        fused=Stage("softmax_fused", args=("x", "y", count(str(COLS), "int32")), grid=ROWS),
        reference=reference, rtol=1e-4, atol=1e-7)
