"""A reduction followed by a kernel that uses its result: y = x - mean(x).
Block partial sums (256 blocks), then one block turns them into the mean,
then every element is centred on it, the mean passing through device
memory. Sums are kept in double, so the result matches CuPy's to float32
rounding."""

from graphbench.spec import Pipeline, Stage, buffer, count

PARTS = 256


def reference(inputs, n):
    x = inputs["x"]
    return {"y": (x - x.astype("float64").mean().astype("float32"))}


def pipeline():
    n = count("n")
    return Pipeline(
        name="reduction", source="reduction.cu",
        description=f"y = x - mean(x): {PARTS} partial sums, their mean, then the centring",
        buffers=[buffer("x", role="input"), buffer("partial", "float64", str(PARTS), "scratch"),
                 buffer("mean", size="1", role="scratch"), buffer("y")],
        stages=[Stage("partial_sums", args=("x", "partial", n), grid=PARTS,
                      pdl_kernel="partial_sums_pdl"),
                Stage("mean_of", args=("partial", count(str(PARTS), "int32"), "mean", n), grid=1,
                      pdl_kernel="mean_of_pdl"),
                Stage("centre", args=("x", "mean", "y", n), pdl_kernel="centre_pdl")],
        reference=reference, rtol=1e-5, atol=1e-6)
