"""The replay check's adapter for cuda.core callables: the arrays are CuPy
arrays (kernels take their `.data.ptr`), and the callable launches onto what
it is given under its `stream` keyword: a cuda.core Stream when run eagerly,
a GraphBuilder while captured. As cuda.core's graphs require, every array
is allocated before building and nothing synchronises inside; CuPy's
fills and cuda.core's launches share no stream, so each side is settled
(synchronised) before the other starts."""

from __future__ import annotations

from typing import Any, Callable

from graphbench.errors import first_line
from graphbench.replay.battery import CaptureFailed
from graphbench.replay.cupy_adapter import CupyAdapter


class CudaCoreAdapter(CupyAdapter):
    """CuPy's fills and copies, cuda.core's stream and graph builder. `target`
    is what the callable launches onto now; the callee's wrapper reads it."""

    def __init__(self) -> None:
        super().__init__()
        from cuda.core import Device

        self.device = Device()
        self.device.set_current()
        self.core_stream = self.device.create_stream()
        self.target: Any = self.core_stream

    def _settled(self) -> None:  # CuPy's fills and cuda.core's launches share no stream
        self.cp.cuda.Device().synchronize()
        self.core_stream.sync()

    def warm_up(self, call: Callable[[], Any], times: int) -> None:
        self._settled()
        for _ in range(times):
            call()
        self._settled()

    def capture(self, call: Callable[[], Any]) -> tuple[Callable[[], None], Any]:
        self._settled()
        builder = self.core_stream.create_graph_builder()
        self.target = builder
        try:
            builder.begin_building()
            try:
                returned = call()
            finally:
                builder.end_building()
            graph = builder.complete()
            graph.upload(self.core_stream)
        except Exception as exc:  # the user's callable or the capture itself
            raise CaptureFailed(first_line(exc, named=True)[:300]) from None
        finally:
            self.target = self.core_stream
        stream = self.core_stream

        def replay() -> None:
            self._settled()
            graph.launch(stream)
            stream.sync()
        return replay, returned

    def eager(self, call: Callable[[], Any]) -> Any:
        self._settled()
        result = call()
        self._settled()
        return result

    def to_host(self, array):
        self._settled()
        return super().to_host(array)
