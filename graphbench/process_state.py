"""What graphbench may change in the process that calls it, kept and put back.

graphbench runs inside other people's processes: the Python API inside a
training script, the pytest fixture inside a whole test session, `main()`
called from a test. A run pins the process to a CPU near the GPU
(graphbench.measure.device.pin_host_thread), moves it between CPUs
(graphbench.measure.cpu_seek), makes a device and a stream current and may
touch anything else a library can. `kept()` snapshots all of it before a
call and restores it on every way out: success, a user error, a GPU error,
an interrupt. Snapshots read only modules already imported, so keeping the
state never imports CuPy or CUDA into a process that had not."""

from __future__ import annotations

import os
import signal
import sys
import threading
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator


def threads() -> list[int]:
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return [0]  # the calling thread alone


def thread_affinities() -> dict[int, set[int]]:
    """Each thread's CPU set now (restore_affinities puts them back); empty
    where the platform has no CPU affinity."""
    if not hasattr(os, "sched_getaffinity"):
        return {}
    saved = {}
    for thread in threads():
        try:
            saved[thread] = os.sched_getaffinity(thread)
        except OSError:  # a thread that ended meanwhile
            continue
    return saved


def restore_affinities(saved: dict[int, set[int]], newcomers: set[int]) -> None:
    """Put every thread back on its saved CPUs, and a thread started since on
    `newcomers` (the CUDA driver's threads, started while the process was
    pinned, would otherwise stay on one CPU)."""
    for thread in threads():
        try:
            os.sched_setaffinity(thread, saved.get(thread, newcomers))
        except OSError:  # a thread that ended, or a set the thread may no longer use
            continue


def _affinity() -> Callable[[], None]:
    saved = thread_affinities()
    if not saved:
        return lambda: None
    caller = saved.get(threading.get_native_id()) or saved.get(os.getpid()) or set()
    return lambda: restore_affinities(saved, caller)


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the folder was removed under the process: nothing to go back to
        return None


def _environment() -> Callable[[], None]:
    saved, cwd = dict(os.environ), _cwd()

    def restore() -> None:
        if dict(os.environ) != saved:
            os.environ.clear()
            os.environ.update(saved)
        if cwd is not None and _cwd() != cwd:
            try:
                os.chdir(cwd)
            except OSError:  # removed meanwhile
                pass
    return restore


def _signals() -> Callable[[], None]:
    if threading.current_thread() is not threading.main_thread():
        return lambda: None  # only the main thread may read or set handlers
    saved = {}
    for number in signal.valid_signals():
        try:
            saved[number] = signal.getsignal(number)
        except (OSError, ValueError):
            continue

    def restore() -> None:
        for number, handler in saved.items():
            if handler is not None and signal.getsignal(number) is not handler:
                try:
                    signal.signal(number, handler)
                except (OSError, ValueError, TypeError):
                    continue
    return restore


def _warnings() -> Callable[[], None]:
    saved = list(warnings.filters)

    def restore() -> None:
        warnings.filters[:] = saved
        warnings._filters_mutated()  # type: ignore[attr-defined]  # as catch_warnings does
    return restore


def _cupy() -> Callable[[], None]:
    """CuPy's current device and stream, where CuPy is already imported."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return lambda: None
    try:
        device, stream = cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream()
    except Exception:  # no driver: there is nothing of CuPy's to keep
        return lambda: None

    def restore() -> None:
        try:
            cupy.cuda.runtime.setDevice(device)
            stream.use()
        except Exception:
            pass
    return restore


def _cuda_context() -> Callable[[], None]:
    """The calling thread's current CUDA context, where the bindings are loaded
    (cuda.core's Device.set_current makes its own current)."""
    def current(driver: Any) -> Any:
        try:
            err, context = driver.cuCtxGetCurrent()
        except Exception:  # no driver library: no context to keep
            return None
        return context if err == driver.CUresult.CUDA_SUCCESS else None

    driver = sys.modules.get("cuda.bindings.driver")
    before = current(driver) if driver is not None else None

    def restore() -> None:
        now_driver = sys.modules.get("cuda.bindings.driver")
        if now_driver is None:
            return
        now = current(now_driver)
        if now is None or int(now) == int(before or 0):
            return
        try:
            now_driver.cuCtxSetCurrent(before if before is not None else now_driver.CUcontext(0))
        except Exception:
            pass
    return restore


SNAPSHOTS = (_affinity, _environment, _signals, _warnings, _cupy, _cuda_context)


@contextmanager
def kept() -> Iterator[None]:
    """Run the body, then put back every piece of process state in SNAPSHOTS,
    whichever way the body ends. Nested calls are harmless."""
    restores = [snapshot() for snapshot in SNAPSHOTS]
    try:
        yield
    finally:
        for restore in reversed(restores):
            restore()
