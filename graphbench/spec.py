"""The public API of kernel pipeline files, kept at its first import path:
`from graphbench.spec import Pipeline, Stage, buffer, count, scalar` (it
lives in graphbench.pipeline.spec)."""

from graphbench.pipeline.spec import (AUTO, ROLES, Buffer, Count, Pipeline, Scalar,  # noqa: F401
                                      SpecError, Stage, buffer, count, evaluate_size, scalar)
