"""Device selection and the facts a result record carries about it.

Every driver query sits behind `_probe` so a fact the driver or NVML cannot
give (a virtual machine without clocks, an older cuda.core) becomes None
instead of an error: facts are for the record, never a reason to stop.
"""

from __future__ import annotations

from typing import Any, Callable

from graphbench.errors import DeviceError
from graphbench.record.model import DeviceInfo

NO_DRIVER_REMEDY = ("graphbench run needs an NVIDIA GPU and its driver; "
                    "`graphbench kernels --arch sm_90` checks the kernels without one")


def _probe(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - any missing fact is recorded as None
        return None


def list_devices() -> list:
    """All CUDA devices, or DeviceError naming what is missing."""
    try:
        from cuda.core import Device

        devices = list(Device.get_all_devices())
    except Exception as exc:  # DynamicLibNotFoundError, CUDAError: both mean "no usable GPU"
        if "driver" in str(exc).lower() or type(exc).__name__ == "DynamicLibNotFoundError":
            raise DeviceError("no NVIDIA driver found (libcuda could not be loaded)",
                              NO_DRIVER_REMEDY) from None
        raise DeviceError(f"the CUDA driver reports no usable GPU ({exc})", NO_DRIVER_REMEDY) from None
    if not devices:
        raise DeviceError("the NVIDIA driver is loaded but reports no GPU", NO_DRIVER_REMEDY)
    return devices


def gpu_in_use(index: int) -> bool:
    """Whether this process already holds device `index`'s primary context:
    it has run GPU work there (an earlier graphbench run, torch, CuPy). Such
    a process can read GPU-bound figures higher than a fresh one
    (graphbench.runner.measure_one says by how much). False where the driver
    cannot tell: the run then fails, or not, as it would have."""
    def active() -> bool:
        from cuda.bindings import driver

        ok = driver.CUresult.CUDA_SUCCESS
        error, handle = driver.cuDeviceGet(index)  # NOT_INITIALIZED: nothing ran here yet
        if error != ok:
            return False
        error, _flags, is_active = driver.cuDevicePrimaryCtxGetState(handle)
        return error == ok and bool(is_active)

    return bool(_probe(active))


def open_device(index: int):
    """Make device `index` current and return the cuda.core Device."""
    devices = list_devices()
    if index >= len(devices):
        names = ", ".join(f"{d.device_id}: {_probe(lambda d=d: d.name) or '?'}" for d in devices)
        raise DeviceError(f"--device {index} is out of range",
                          f"this machine has {len(devices)} device(s): {names}")
    device = devices[index]
    device.set_current()
    return device


def near_cpus(index: int) -> list[int]:
    """The CPUs near the GPU (NVML's affinity set) that this process may use,
    else every CPU it may use; empty where the platform cannot tell."""
    import os

    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    near = _probe(lambda: _system().Device(index=index).get_cpu_affinity()) or []
    return [c for c in near if c in allowed] or allowed


# the CPUs this process could run on before its first pinning
_UNPINNED: set[int] = set()


def unpinned_cpus() -> set[int]:
    """The CPUs the process could use before pin_host_thread pinned it
    (empty: it never pinned): where host work in threads may spread."""
    return set(_UNPINNED)


def pin_host_thread(cpus: list[int]) -> int | None:
    """Pin this thread, and the CUDA driver threads created after it, to the
    first of `cpus` (near_cpus).

    Why: on a virtual machine, unpinned processes sometimes paid several times
    the usual cost per graph launch for their whole life, apparently for
    cross-CPU wake-ups between the launching thread and the driver's threads;
    pinned processes never did (docs/measurement.md#the-hosts-speed-states).
    Returns the CPU, or None."""
    import os

    if not cpus:
        return None
    try:
        allowed = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpus[0]})
    except OSError:
        return None
    if not _UNPINNED:
        _UNPINNED.update(allowed)
    return cpus[0]


def _version_string(code: int) -> str:
    return f"{code // 1000}.{(code % 1000) // 10}"


def free_and_total_memory() -> tuple[int, int]:
    from cuda.bindings import driver

    err, free, total = driver.cuMemGetInfo()
    if err != driver.CUresult.CUDA_SUCCESS:
        raise DeviceError(f"could not read the device's free memory ({err})")
    return int(free), int(total)


def describe(device) -> DeviceInfo:
    """Facts about the current device, for the record and the table header."""
    from cuda.bindings import driver, nvrtc

    cc = device.compute_capability
    nvml = _probe(device.to_system_device)
    free_total = _probe(free_and_total_memory) or (None, None)
    return DeviceInfo(
        index=device.device_id,
        name=device.name,
        compute_capability=f"{cc.major}.{cc.minor}",
        arch=f"sm_{device.arch}",
        uuid=_probe(lambda: str(device.uuid)),
        multiprocessors=_probe(lambda: device.properties.multiprocessor_count),
        l2_bytes=_probe(lambda: device.properties.l2_cache_size),
        total_memory_bytes=free_total[1],
        free_memory_bytes=free_total[0],
        driver_version=_probe(_driver_version),
        cuda_driver_version=_probe(lambda: _version_string(driver.cuDriverGetVersion()[1])),
        cuda_runtime_version=_probe(_cupy_runtime_version),
        nvrtc_version=_probe(lambda: "{}.{}".format(*nvrtc.nvrtcVersion()[1:])),
        sm_clock_mhz=_probe(lambda: nvml.get_clock("sm").get_current_mhz()),
        sm_clock_max_mhz=_probe(lambda: nvml.get_clock("sm").get_max_mhz()),
        memory_clock_mhz=_probe(lambda: nvml.get_clock("memory").get_current_mhz()),
    )


def _driver_version() -> str:
    """The display driver's version (580.159.04), not the CUDA version it supports."""
    system = _system()
    for name in ("get_kernel_mode_driver_version", "get_driver_version_full", "get_driver_version"):
        version = _probe(getattr(system, name, lambda: None))
        if version:
            return version if isinstance(version, str) else _driver_string(version)
    return None


def _driver_string(parts) -> str:
    """(580, 159, 4) -> '580.159.04', as nvidia-smi prints it."""
    head, *rest = parts
    return ".".join([str(head)] + [f"{int(p):02d}" for p in rest])


def _system():
    from cuda.core import system

    return system


def _cupy_runtime_version() -> str:
    import cupy

    return _version_string(cupy.cuda.runtime.runtimeGetVersion())
