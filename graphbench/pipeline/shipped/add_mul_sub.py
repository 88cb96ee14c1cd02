"""graphbench's built-in pipeline: r1 = a + b, r2 = r1 * c, r3 = r2 - a.

--stages picks the chain from add, mul and sub; --depth repeats it, each
stage reading the previous stage's output, so depth K launches 3K kernels
and writes 3K outputs. The fused kernel exists for add,mul,sub at depth 1.
It is defined exactly as a user's pipeline file is; `graphbench run` with
no --pipeline runs this file."""

import operator

from graphbench.spec import Pipeline, SpecError, Stage, buffer, count

OPERATIONS = {"add": ("vec_add", "b", operator.add), "mul": ("vec_mul", "c", operator.mul),
              "sub": ("vec_sub", "a", operator.sub)}
DEFAULT = ("add", "mul", "sub")


def chain(stages, depth):
    unknown = [s for s in stages if s not in OPERATIONS]
    if unknown or not stages:
        raise SpecError(f"--stages has unknown stage(s) {', '.join(unknown) or '(none)'}",
                        f"choose from {', '.join(OPERATIONS)}")
    return list(stages) * depth


def pipeline(depth=1, stages=DEFAULT):
    names = chain(stages, depth)
    outputs = [f"r{i + 1}" for i in range(len(names))]

    def reference(inputs, n):
        value = inputs["a"]
        for name in names:
            value = OPERATIONS[name][2](value, inputs[OPERATIONS[name][1]])
        return {outputs[-1]: value}

    steps, previous = [], "a"
    for name, out in zip(names, outputs):
        kernel, operand, _ = OPERATIONS[name]
        steps.append(Stage(kernel, args=(previous, operand, out, count("n")),
                           pdl_kernel=kernel + "_pdl"))
        previous = out
    fused = Stage("fused", args=("a", "b", "c", outputs[-1], count("n"))) \
        if names == list(DEFAULT) else None
    return Pipeline(
        name="add_mul_sub", source="pipeline.cu", description=" -> ".join(names),
        buffers=[buffer(x, role="input") for x in "abc"] + [buffer(o) for o in outputs],
        stages=steps, fused=fused, reference=reference,
        params={"depth": depth, "stages": ",".join(stages)})
