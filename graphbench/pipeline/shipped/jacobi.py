"""K Jacobi steps of the 2-D Laplace equation per iteration (K = --depth)
on a 1024-wide grid of --elements // 1024 rows, the case NVIDIA's
jacobiCudaGraphs sample is about. Step 1 reads the initial field u0; the
steps then alternate between buffers a and b, so each iteration recomputes
the same K steps and its result lands in a (K odd) or b (K even). Small
grids and many steps are where launch cost dominates."""

from graphbench.spec import Pipeline, Stage, buffer, count

WIDTH = 1024
HEIGHT = f"n // {WIDTH}"
CELLS = f"n // {WIDTH} * {WIDTH}"


def pipeline(depth=1):
    def reference(inputs, n):
        u = inputs["u0"].reshape(-1, WIDTH)
        for _ in range(depth):
            nxt = u.copy()
            nxt[1:-1, 1:-1] = 0.25 * ((u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:]))
            u = nxt
        return {"a" if depth % 2 else "b": u.ravel()}

    stages, source = [], "u0"
    for k in range(depth):
        target = "a" if k % 2 == 0 else "b"
        stages.append(Stage("jacobi_step", args=(source, target, count(str(WIDTH), "int32"),
                                                  count(HEIGHT, "int32")),
                            work=CELLS, pdl_kernel="jacobi_step_pdl"))
        source = target
    return Pipeline(
        name="jacobi", source="jacobi.cu",
        description=f"{depth} Jacobi step(s) on a (n // {WIDTH}) x {WIDTH} grid",
        buffers=[buffer("u0", size=CELLS, role="input"), buffer("a", size=CELLS),
                 buffer("b", size=CELLS)],
        stages=stages, reference=reference, rtol=1e-5, atol=1e-6, params={"depth": depth})
