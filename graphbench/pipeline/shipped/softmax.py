"""Row-wise softmax of a rows x cols matrix (cols = the `cols` parameter,
1024 unless `--param cols=N`; rows = --elements // cols) as three kernels:
the row maxima, the exponentials and their row sums, and the division. One
block of 256 threads per row; the fused rung does all three in one kernel.
The row width moves the work between launches and blocks: narrow rows are
many small blocks, wide rows few long ones (graphbench sweep --param cols=...)."""

from graphbench.spec import Pipeline, SpecError, Stage, buffer, count

COLS = 1024


def reference_for(cols):
    def reference(inputs, n):
        x = inputs["x"].reshape(-1, cols)
        xp = _array_module(x)
        e = xp.exp(x - x.max(axis=1, keepdims=True))
        return {"y": (e / e.sum(axis=1, keepdims=True)).ravel()}
    return reference


def _array_module(x):
    import cupy

    return cupy.get_array_module(x)  # CuPy on the GPU, numpy in CPU tests


def pipeline(cols=COLS):
    if cols < 1:
        raise SpecError(f"cols is {cols}: a row needs 1 column or more", "e.g. --param cols=1024")
    rows, cells = f"n // {cols}", f"n // {cols} * {cols}"

    def stage(kernel, *args):
        return Stage(kernel, args=(*args, count(str(cols), "int32")), grid=rows, block=256,
                     pdl_kernel=kernel + "_pdl")

    return Pipeline(
        name="softmax", source="softmax.cu",
        description=f"row-wise softmax of (n // {cols}) x {cols}: max, exp-and-sum, normalise",
        buffers=[buffer("x", size=cells, role="input", low=-4.0, high=4.0),
                 buffer("row_max", size=rows, role="scratch"),
                 buffer("e", size=cells, role="scratch"),
                 buffer("row_sum", size=rows, role="scratch"),
                 buffer("y", size=cells)],
        stages=[stage("row_max", "x", "row_max"), stage("exp_sum", "x", "row_max", "e", "row_sum"),
                stage("normalise", "e", "row_sum", "y")],
        fused=Stage("softmax_fused", args=("x", "y", count(str(cols), "int32")), grid=rows),
        reference=reference_for(cols), rtol=1e-4, atol=1e-7, params={"cols": cols})
