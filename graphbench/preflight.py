"""Everything `run`, `sweep` and `kernels --pipeline` can check without a
GPU, in one place, before the driver is asked: the pipeline file loads,
every size and launch shape holds at every size the run uses, every kernel
source compiles with NVRTC and defines the kernels the stages name (with
the argument counts they pass), and every rung named in --modes can exist.

The device's arch is unknown before the driver is asked, so sources are
compiled for sm_90 (or `kernels --arch`); the cubin lands in the compile
cache, and a run on an sm_90 device loads it from there instead of
compiling again.
"""

from __future__ import annotations

from graphbench.errors import UsageError
from graphbench.measure.availability import offline_reasons
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.pipeline.spec import SpecError

DEFAULT_ARCH = "sm_90"  # Hopper's; any arch NVRTC knows finds the same missing kernels


def as_flag(flag: str) -> str:
    """An option as the command line names it in messages: its flag. The
    API passes its own namer (graphbench.api.keyword: --ab is ab_source)."""
    return flag


def preflight(configs, arch: str = DEFAULT_ARCH, name=as_flag) -> list:
    """Check every configuration; return the plans (one per configuration,
    at its --elements). `name`: an option's name in messages (as_flag)."""
    compiled: dict[str, dict] = {}
    plans = []
    for config in configs:
        loaded = load_pipeline(config.pipeline, config.depth, config.stages, name("--pipeline"),
                               params=config.params)
        where = str(loaded.path)
        sizes = dict.fromkeys((config.elements, *config.gate_sizes))
        plans.append([plan(loaded.spec, size, where) for size in sizes][0])
        kernel_sets = [_checked_kernels(label, text, build_plan, where, arch, compiled)
                       for label, text, build_plan in builds(config, loaded, plans[-1], name)]
        check_rungs(config, plans[-1], kernel_sets, where, name)
        check_launch_shape(config, plans[-1], bool(loaded.source), name)
    return plans


def check_object(settings, spec, name=as_flag) -> None:
    """What preflight checks of a pipeline file, for an object: its kernels
    compile and take the stages' arguments, the rungs named can run, the
    launch shape fits."""
    from graphbench.pipeline.objects import WHERE, loaded_object

    loaded = loaded_object(spec)
    found = plan(loaded.spec, settings.elements, WHERE)
    kernels = [_checked_kernels(label, text, build_plan, WHERE, DEFAULT_ARCH, {})
               for label, text, build_plan in builds(settings, loaded, found, name)]
    check_rungs(settings, found, kernels, WHERE, name)
    check_launch_shape(settings, found, bool(loaded.source), name)


def check_launch_shape(config, found, kernels: bool, name=as_flag) -> None:
    """--grid and --block apply to kernel stages that loop over their work:
    refused where nothing would take them, rather than silently ignored."""
    from graphbench.launch_shape import AUTO, with_launch_shape

    if config.grid == AUTO and config.block is None:
        return
    if not kernels:
        both = f"{name('--grid')} and {name('--block')}"
        raise UsageError(f"the {found.name} pipeline is {found.framework} callables: {both} "
                         "shape CUDA kernel stages", f"leave out {both}")
    with_launch_shape(found, config.grid, config.block)


def check_configs(configs, name=as_flag) -> None:
    """Every configuration's pipeline file, sizes, launch shapes and kernel
    sources, before any GPU work. The largest first: a sweep whose largest
    point no GPU can hold is refused at once, not after planning its
    hundreds of smaller points (a depth of 1024 is 3,000 stages to plan)."""
    preflight(sorted(configs, key=lambda c: (c.elements, c.depth), reverse=True), name=name)


def builds(config, loaded, found, name=as_flag) -> list[tuple[str, str, object]]:
    """(what to call it in a message, CUDA text, its plan) for each build the
    run compiles: the candidate, and the --ab base side where it has CUDA
    text (graphbench.pipeline.revision reads it: a file, or a revision's
    copy). Callables (torch, CuPy) have none."""
    from graphbench.measure.kernels import load_source
    from graphbench.pipeline.revision import load_base

    out = []
    if config.kernel_source:
        flag = name("--kernel-source")
        out.append((f"{flag} {config.kernel_source}", load_source(config.kernel_source, flag),
                    found))
    elif loaded.source:
        out.append((f"its source {loaded.spec.source[:60]!r}" if "\n" not in loaded.spec.source
                    else "its source", loaded.source, found))
    ab = getattr(config, "ab_source", None)
    if ab:
        base = load_base(config, loaded)
        base_plan = plan(base.loaded.spec, found.elements) if base.loaded else found
        if base.source:
            out.append((f"{name('--ab')} {ab}", base.source, base_plan))
    return out


def _checked_kernels(label, text, plan_, where, arch, compiled) -> dict:
    from graphbench.measure.cubin import entry_kernels
    from graphbench.measure.kernels import compile_cubin, source_digest

    digest = source_digest(text)
    if digest not in compiled:
        compiled[digest] = entry_kernels(compile_cubin(text, arch, label=label).code)
    kernels = compiled[digest]
    if kernels is not None:
        check_kernels(plan_, kernels, label, where)
    return kernels or {}


def _uses(plan_):
    """(stage label, stage plan, kernel name, required) for every kernel a stage names."""
    for i, stage in enumerate(plan_.stages):
        yield f"stage {i + 1} ({stage.kernel})", stage, stage.kernel, True
        if stage.pdl_kernel:
            yield f"stage {i + 1} ({stage.kernel})", stage, stage.pdl_kernel, False
    if plan_.fused:
        yield "stage fused", plan_.fused, plan_.fused.kernel, True


def check_kernels(plan_, kernels: dict, label: str, where: str) -> None:
    """Each kernel a stage needs is defined, and takes as many arguments as it passes."""
    for stage_label, stage, name, required in _uses(plan_):
        field = "kernel" if name == stage.kernel else "pdl_kernel"
        if name not in kernels:
            if required:
                raise SpecError(f"{where}: {stage_label}: {field}: {label} defines no kernel "
                                f"named {name}", 'define it as extern "C" __global__')
            continue
        takes = kernels[name]
        if takes is not None and takes != len(stage.args):
            raise SpecError(f"{where}: {stage_label}: args gives {len(stage.args)} arguments, "
                            f"{field} {name} in {label} takes {takes}",
                            "make the stage's args match the kernel's parameters")


def check_rungs(config, plan_, kernel_sets, where: str, name=as_flag) -> None:
    """A rung named in --modes that cannot exist is refused; --modes all and
    the default leave it out at run time, with the reason."""
    if config.implied_modes:
        return
    reasons = offline_reasons(config.run_modes, kernel_sets, plan_)
    if reasons:
        mode, reason = next(iter(reasons.items()))
        modes = name("--modes")
        raise UsageError(f"{where}: {modes} {mode} cannot run: {reason}",
                         f"leave {mode} out, or use {modes} all to skip what cannot run")


def kernels_preflight(pipeline: str | None, kernel_source: str | None, arch: str,
                      params: dict[str, str] | None = None):
    """`graphbench kernels`: every check `run` makes at its default size
    (without rungs: kernels takes no --modes); the kernels the stages
    require and the source to report on."""
    from graphbench.config import RunConfig

    config = RunConfig(pipeline=pipeline, kernel_source=kernel_source, params=params or {})
    loaded = load_pipeline(config.pipeline, config.depth, config.stages, params=config.params)
    if not loaded.source:
        plan(loaded.spec, config.elements, str(loaded.path))  # a bad file says what is wrong
        raise UsageError(f"the {loaded.spec.name} pipeline is {loaded.spec.framework} "
                         "callables, with no CUDA kernels to compile",
                         f"graphbench run --pipeline {pipeline}")
    found = preflight([config], arch)[0]
    required = [s.kernel for s in found.stages] + ([found.fused.kernel] if found.fused else [])
    return required, builds(config, loaded, found)[0][1]
