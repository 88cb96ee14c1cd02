"""The replay check's torch adapter: arrays are CUDA tensors, captured with
torch.cuda.graph as torch's documentation shows (eager warm-up calls on a
side stream first, then one capture into a private memory pool). Imported
only when a torch callable is checked."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from graphbench.errors import first_line
from graphbench.replay.battery import CaptureFailed


class TorchAdapter:
    def __init__(self) -> None:
        import torch

        self.torch = torch

    def is_array(self, value: Any) -> bool:
        return isinstance(value, self.torch.Tensor) and value.is_cuda

    def clone(self, array):
        return array.detach().clone()

    def _integer(self, array) -> bool:
        return not (array.dtype.is_floating_point or array.dtype.is_complex)

    def fill_random(self, array, rng: np.random.Generator) -> None:
        values = rng.uniform(-1.0, 1.0, array.numel())
        if self._integer(array):
            values = np.floor(values * 100)
        host = self.torch.from_numpy(values).reshape(array.shape)
        array.copy_(host)  # in place: the captured graph keeps the address

    def fill_poison(self, array) -> None:
        array.fill_(self.torch.iinfo(array.dtype).max if self._integer(array) else float("nan"))

    def to_host(self, array) -> np.ndarray:
        self.torch.cuda.synchronize()
        wide = self.torch.int64 if self._integer(array) else self.torch.float64
        return array.detach().to(wide).cpu().numpy()

    def held_bytes(self) -> int:
        return int(self.torch.cuda.memory_allocated())

    def warm_up(self, call: Callable[[], Any], times: int) -> None:
        torch = self.torch
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(times):
                call()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()

    def capture(self, call: Callable[[], Any]) -> tuple[Callable[[], None], Any]:
        torch = self.torch
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                returned = call()
        except Exception as exc:  # the user's callable or the capture itself: say which line
            raise CaptureFailed(first_line(exc, named=True)[:300]) from None
        torch.cuda.synchronize()

        def replay() -> None:
            graph.replay()
            torch.cuda.synchronize()
        return replay, returned

    def eager(self, call: Callable[[], Any]) -> Any:
        result = call()
        self.torch.cuda.synchronize()
        return result
