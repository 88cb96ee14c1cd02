"""The `driver` rung: cuLaunchKernel through cuda.bindings, every launch's
arguments packed once before timing.

cuda.core's launch() packs its arguments anew on every call; this is the
cheapest launch Python can reach. The argument values and the pointer array
that cuLaunchKernel reads are ctypes objects owned by a DriverLaunches, which
must outlive every launch that may still read them.
"""

from __future__ import annotations

import ctypes

import numpy as np

from graphbench.errors import DeviceError
from graphbench.measure.steps import written_step

# cuda.core packs a Python int as a pointer-sized value; numpy scalars by their type
_CTYPES = {np.uint64: ctypes.c_uint64, np.int64: ctypes.c_int64, np.uint32: ctypes.c_uint32,
           np.int32: ctypes.c_int32, np.float32: ctypes.c_float, np.float64: ctypes.c_double}


def ctypes_value(arg):
    """One kernel argument as the ctypes value cuLaunchKernel reads."""
    if isinstance(arg, (bool, np.bool_)):
        return ctypes.c_bool(bool(arg))
    if isinstance(arg, int):
        return ctypes.c_void_p(arg)
    if type(arg) in _CTYPES:
        return _CTYPES[type(arg)](arg.item())
    if isinstance(arg, float):
        return ctypes.c_double(arg)
    raise TypeError(f"cannot pack a kernel argument of type {type(arg).__name__}")


class PackedArguments:
    """The void* array of one launch's argument addresses, and the values."""

    def __init__(self, args) -> None:
        self.values = [ctypes_value(a) for a in args]
        self.array = (ctypes.c_void_p * max(1, len(self.values)))(
            *[ctypes.addressof(v) for v in self.values])
        self.address = ctypes.addressof(self.array)


def _dims(value) -> tuple[int, int, int]:
    dims = tuple(value) if isinstance(value, tuple) else (int(value),)
    return (*dims, 1, 1, 1)[:3]


def driver_enqueuer(stream, launches):
    """A function that enqueues one iteration with cuLaunchKernel, one call
    per stage written out one after another (see pipeline.unrolled_launches),
    raising DeviceError if the driver refuses a launch."""
    from cuda.bindings import driver

    handle = driver.CUstream(int(stream.handle))
    packed = [PackedArguments(one.args) for one in launches]
    calls = [(driver.CUfunction(int(one.kernel.handle)), *_dims(one.config.grid),
              *_dims(one.config.block), int(one.config.shmem_size or 0), handle, p.address, 0)
             for one, p in zip(launches, packed)]
    statements = [line for i in range(len(calls))
                  for line in (f"if (error := L(*c{i})[0]):", "    fail(error)")]
    step = written_step("driver launches", statements,
                        {"L": driver.cuLaunchKernel, "fail": _launch_failed,
                         **{f"c{i}": call for i, call in enumerate(calls)}})
    step.packed = packed  # the argument memory lives as long as the step
    return step


def _launch_failed(error) -> None:
    raise DeviceError(f"cuLaunchKernel failed: {error}",
                      "check the driver and the kernel's arguments")
