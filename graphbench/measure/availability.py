"""Which rungs of the ladder this device, driver and kernel source can run.

A rung that cannot run is not a failure: `--modes all` reports it as
unavailable with the reason; naming it in --modes is refused with the same
reason (graphbench.measure.session)."""

from __future__ import annotations

import importlib.util
from dataclasses import replace

from graphbench.errors import DeviceError
from graphbench.ladder import KERNELS, RUNG

PDL_MIN_CC = (9, 0)
CONDITIONAL_MIN_DRIVER = (12, 3)  # CUDA version whose driver runs conditional nodes


def _version(text: str | None) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in (text or "").split("."))
    except ValueError:
        return None


def unavailable_modes(modes, info, kernel_sets, plan) -> dict[str, str]:
    """Reasons, by mode, why `modes` cannot run the pipeline `plan` on the
    device `info` with each of `kernel_sets` (the candidate build and any
    A/B base build)."""
    offline = offline_reasons(modes, kernel_sets, plan)
    device = {m: r for m in modes if m not in offline and (r := _device_reason(m, info))}
    return {m: offline.get(m) or device[m] for m in modes if m in offline or m in device}


def offline_reasons(modes, kernel_sets, plan) -> dict[str, str]:
    """What the pipeline and the compiled kernels alone rule out, decided
    before the driver is asked (graphbench.preflight): a backend that cannot
    run the rung, a need of the rung's (graphbench.ladder.Rung.needs) that
    is missing, PDL kernels the pipeline does not name or the source does
    not define."""
    reasons: dict[str, str] = {}
    backend = getattr(plan, "framework", KERNELS)
    stages = plan.stages if backend == KERNELS else ()  # callables: no kernels to look up
    unnamed = [s.kernel for s in stages if not s.pdl_kernel]
    missing = sorted({s.pdl_kernel for kernels in kernel_sets for s in stages
                      if s.pdl_kernel and s.pdl_kernel not in kernels})
    for mode in modes:
        rung = RUNG[mode]
        unmet = (OFFLINE_NEEDS[need](plan) for need in rung.needs if need in OFFLINE_NEEDS)
        reason = rung.unavailable_for(backend, plan.name) or next(
            (why for why in unmet if why), None)
        if reason is None and rung.pdl and unnamed:
            reason = (f"the {plan.name} pipeline names no PDL-aware kernel for "
                      f"{', '.join(sorted(set(unnamed)))} (Stage pdl_kernel=...)")
        elif reason is None and rung.pdl and missing:
            reason = f"the kernel source defines no PDL-aware kernel {', '.join(missing)}"
        if reason:
            reasons[mode] = reason
    return reasons


def _device_reason(mode: str, info) -> str | None:
    cc = _version(info.compute_capability)
    if RUNG[mode].pdl and cc is not None and cc < PDL_MIN_CC:
        return (f"programmatic dependent launch needs compute capability 9.0+, "
                f"this GPU is {info.compute_capability}")
    return next((why for need in RUNG[mode].needs if need in DEVICE_NEEDS
                 if (why := DEVICE_NEEDS[need](info))), None)


def _fused_stage(plan) -> str | None:
    return None if plan.fused is not None else f"the {plan.name} pipeline defines no fused stage"


def _triton(plan) -> str | None:
    if importlib.util.find_spec("triton") is None:
        return "torch.compile's CUDA backend needs triton, which is not installed"
    return None


def _conditions_in_cuda_core(plan) -> str | None:
    return None if _builder_has_conditions() else "this cuda.core has no GraphBuilder.create_condition"


def _conditions_in_driver(info) -> str | None:
    driver = _version(info.cuda_driver_version)
    if driver is not None and driver < CONDITIONAL_MIN_DRIVER:
        return (f"device-side loops (conditional graph nodes) need a CUDA 12.3+ "
                f"driver, this one supports CUDA {info.cuda_driver_version}")
    return None


def _builder_has_conditions() -> bool:
    from cuda.core.graph import GraphBuilder

    return hasattr(GraphBuilder, "create_condition") and hasattr(GraphBuilder, "while_loop")


# each need a rung can have (graphbench.ladder.Rung.needs): what rules it out
# before the driver is asked, and what the device rules out
OFFLINE_NEEDS = {"fused-stage": _fused_stage, "triton": _triton,
                 "conditional-nodes": _conditions_in_cuda_core}
DEVICE_NEEDS = {"conditional-nodes": _conditions_in_driver}


def choose_modes(config, reasons: dict[str, str]):
    """The configuration with the rungs that can run, and every rung left
    out with why. --modes all (and the default) skip what cannot run; a
    rung named in --modes that cannot run is refused with its reason
    (exit 2)."""
    if reasons and not config.implied_modes:
        mode, reason = next(iter(reasons.items()))
        raise DeviceError(f"--modes {mode} cannot run here: {reason}",
                          f"leave {mode} out, or use --modes all to skip what cannot run")
    kept = tuple(m for m in config.run_modes if m not in reasons)
    return replace(config, modes=kept), reasons
