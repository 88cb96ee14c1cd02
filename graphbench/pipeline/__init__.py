"""What a pipeline is, in one package: the kernel pipeline spec users write
(spec), torch and CuPy callable pipelines (callables), finding and running a
pipeline file (files) or an object (objects), checking every field (checks)
and planning it at an element count (plan). The shipped pipelines live in
shipped/. A new framework adds a callable backend in
graphbench/measure/backends/ and its name in graphbench/ladder.py."""
