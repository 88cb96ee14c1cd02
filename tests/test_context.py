"""graphbench.gate.context: what two records differ in, as mismatches (which stop a comparison)
and as notes."""

from __future__ import annotations

import dataclasses

from conftest import device_info, make_record
from tests_helpers import replace_run

from graphbench.gate.context import (config_mismatch, device_notes, difference_notes,
                                     measured_clock, same_hardware, same_physical_gpu)
from graphbench.record.model import Environment


def with_clock(record, mhz):
    return replace_run(record, conditions=tuple(
        dataclasses.replace(c, busy={w: dataclasses.replace(r, sm_clock_mhz=mhz)
                                     for w, r in c.busy.items()})
        for c in record.runs[0].conditions))


def test_config_mismatch_names_each_key_and_the_pipeline():
    base = make_record()
    other = make_record(elements=2**20, iters=500, flush_l2=True, depth=2,
                        stages=("add", "mul"))
    other = dataclasses.replace(other, pipeline=dataclasses.replace(other.pipeline, name="mine"))
    b, c = base.config, other.config
    assert config_mismatch(base, other) == [
        "pipeline add_mul_sub vs mine", f"elements {b.elements} vs {c.elements}",
        "flush_l2 False vs True", f"stages {','.join(b.stages)} vs add,mul", f"depth {b.depth} vs 2"]
    assert config_mismatch(base, make_record()) == []
    # iterations per round follow the host's speed: a note, not a mismatch
    fewer = make_record(iters=500)
    assert config_mismatch(base, fewer) == []
    assert "iterations per round 1000 vs 500: figures are per iteration" in \
        difference_notes(base, fewer)


def test_records_of_other_pipeline_parameters_are_a_mismatch_naming_them():
    base = make_record()
    wide = dataclasses.replace(base, config=dataclasses.replace(
        base.config, params={"cols": "1024", "mode": "'fast'"}))
    narrow = dataclasses.replace(base, config=dataclasses.replace(base.config,
                                                                  params={"cols": "256"}))
    assert config_mismatch(base, narrow) == ["params none vs cols=256"]
    assert config_mismatch(narrow, base) == ["params cols=256 vs none"]
    assert config_mismatch(narrow, wide) == ["params cols=256 vs cols=1024 mode=fast"]


def test_hardware_and_physical_gpu_notes():
    base = make_record()
    other_driver = make_record(info=device_info(driver_version="999"))
    assert not same_hardware(base, other_driver)
    assert device_notes(base, other_driver) == [
        "different device or driver (NVIDIA H200 580.159.04 vs NVIDIA H200 999): times are "
        "shown, not gated"]
    assert device_notes(base, make_record(info=device_info("NVIDIA H100")))[0].startswith(
        "different device or driver (NVIDIA H200 580.159.04 vs NVIDIA H100 580.159.04)")
    other_gpu = make_record(info=device_info(uuid="GPU-0123456789abcdef"))
    assert same_hardware(base, other_gpu) and not same_physical_gpu(base, other_gpu)
    assert device_notes(base, other_gpu) == [
        "different physical GPUs (00000000-tes vs 0123456789ab): the spread between GPUs of "
        "one model is part of the noise"]
    assert device_notes(base, make_record()) == []
    unknown = make_record(info=device_info(uuid=None))
    assert not same_physical_gpu(unknown, unknown)
    assert device_notes(unknown, unknown)[0].startswith("different physical GPUs (? vs ?)")


def test_difference_notes_each_kind():
    base = make_record()
    assert measured_clock(base) == 1980.0
    assert measured_clock(with_clock(base, None)) is None
    no_busy = replace_run(base, conditions=tuple(dataclasses.replace(c, busy={})
                                                 for c in base.runs[0].conditions))
    assert measured_clock(no_busy) is None  # no busy readings at all: no clock, not 0
    assert difference_notes(base, make_record()) == []
    other = dataclasses.replace(make_record(), pipeline=dataclasses.replace(
        base.pipeline, kernel_source="mine.cu", kernel_source_sha256="ab" * 32,
        harness_sha256="1" * 64), packages={**base.packages, "cuda-core": "9.9"})
    base_h = dataclasses.replace(base, pipeline=dataclasses.replace(base.pipeline,
                                                                    harness_sha256="2" * 64))
    other = replace_run(with_clock(other, 2030.0),
                        environment=Environment(other_gpu_processes=(), pinned_cpu=3))
    assert difference_notes(base_h, other) == [
        f"kernel sources differ (shipped {'0' * 12} vs mine.cu {'ab' * 6})",
        "graphbench's own harness kernels differ: the instrument changed",
        "one record pinned its launching thread and the other did not",
        "cuda-core 1.2.0 vs 9.9",
        "measured SM clock differs (1980 vs 2030 MHz): GPU time moves with it"]


def test_difference_notes_tolerances_and_unknowns():
    base = make_record()
    assert difference_notes(base, with_clock(make_record(), 2019.6)) == []  # within 2%
    at_1000 = with_clock(base, 1000.0)
    assert difference_notes(at_1000, with_clock(make_record(), 1020.0)) == []  # exactly 2%
    assert difference_notes(at_1000, with_clock(make_record(), 1020.1)) == [
        "measured SM clock differs (1000 vs 1020 MHz): GPU time moves with it"]  # of the base
    assert difference_notes(base, with_clock(make_record(), None)) == []
    assert difference_notes(with_clock(base, None), with_clock(make_record(), 1000.0)) == []
    one_harness = dataclasses.replace(base, pipeline=dataclasses.replace(
        base.pipeline, harness_sha256="1" * 64))
    assert difference_notes(one_harness, make_record()) == []  # unknown on one side
    assert difference_notes(make_record(), one_harness) == []
    no_digest = dataclasses.replace(base, pipeline=dataclasses.replace(
        base.pipeline, kernel_source_sha256=None))
    assert difference_notes(no_digest, base) == [
        f"kernel sources differ (shipped ? vs shipped {'0' * 12})"]
    bindings = dataclasses.replace(base, packages={**base.packages, "cuda-bindings": "13.0",
                                                   "cupy-cuda13x": None})
    assert difference_notes(base, bindings) == ["cuda-bindings None vs 13.0",
                                                "cupy-cuda13x 14.2 vs None"]
