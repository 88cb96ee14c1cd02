"""The launch ladder without a GPU: mode parsing, availability and refusal,
per-mode round lengths, the ladder table at 80 columns, and records with
every rung through report, compare and merge.

Covers graphbench/measure/availability.py.
Covers graphbench/measure/modes.py."""

import ctypes
import dataclasses
import json

import numpy as np
import pytest

from graphbench.stats.merge import merge_runs

from conftest import device_info, make_record
from graphbench.stats.ladder import gpu_floor, ladder
from graphbench.stats.summary import summarize_run
from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.errors import ConfigError, DeviceError
from graphbench.ladder import LADDER, ladder_order, launches_per_iteration
from graphbench.measure.availability import choose_modes, unavailable_modes
from graphbench.measure.driver import PackedArguments, ctypes_value
from graphbench.measure.timing import LoopHooks, Sample, run_rounds
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.record.codec import read_record, read_run, write_record
from graphbench.report.run import run_report
from graphbench.report.tables import to_text

# Wall us per iteration in the order the H200 showed at 4096 elements
LADDER_WALLS = {"individual": 14.0, "driver": 13.0, "pdl": 13.5, "graph": 5.9, "graph-pdl": 5.3,
                "unrolled": 3.1, "loop": 7.0, "fused": 4.6}
BUILT_IN = plan(load_pipeline(None).spec, 4096)
STAGE_KERNELS = tuple(s.kernel for s in BUILT_IN.stages)
ALL_KINDS = {k: object() for k in BUILT_IN.kernels}


def test_all_runs_every_rung_in_ladder_order():
    assert RunConfig(modes=("all",)).run_modes == LADDER
    assert RunConfig(modes=("fused", "loop", "individual")).run_modes == \
        ("individual", "loop", "fused")
    assert RunConfig().run_modes == ("individual", "graph", "fused")  # the default stays


def test_all_leaves_out_fused_where_the_pipeline_has_none_and_says_why():
    deep = plan(load_pipeline(None, 4).spec, 4096)
    reasons = unavailable_modes(LADDER, device_info(), [ALL_KINDS], deep)
    assert reasons == {"fused": "the add_mul_sub pipeline defines no fused stage"}
    config, unavailable = choose_modes(RunConfig(modes=("all",), depth=4), reasons)
    assert "fused" not in config.run_modes and "loop" in config.run_modes
    config, _ = choose_modes(RunConfig(depth=4), reasons)  # the default leaves it out too
    assert config.run_modes == ("individual", "graph")
    with pytest.raises(DeviceError, match="defines no fused stage"):
        choose_modes(RunConfig(depth=4, modes=("individual", "fused")), reasons)


@pytest.mark.parametrize("modes, message", [
    (("all", "graph"), "has all and other modes"),
    (("graph", "graph"), "names a mode twice"),
    (("individual", "warp"), "unknown mode(s) warp"),
])
def test_bad_mode_lists_are_refused(modes, message):
    with pytest.raises(ConfigError) as info:
        RunConfig(modes=modes)
    assert message in info.value.message


def test_unroll_must_be_positive_and_bounded(capsys):
    assert main(["run", "--unroll", "0"]) == 2
    assert main(["run", "--unroll", "5000"]) == 2
    assert "--unroll" in capsys.readouterr().err


def test_pdl_is_unavailable_below_hopper_and_loop_on_old_drivers():
    old = device_info(compute_capability="8.0", arch="sm_80", cuda_driver_version="12.2")
    reasons = unavailable_modes(LADDER, old, [ALL_KINDS], BUILT_IN)
    assert set(reasons) == {"pdl", "graph-pdl", "loop"}
    assert "compute capability 9.0+" in reasons["pdl"] and "12.3" in reasons["loop"]
    assert unavailable_modes(LADDER, device_info(), [ALL_KINDS], BUILT_IN) == {}


def test_a_kernel_source_without_pdl_variants_has_no_pdl_rungs():
    plain = {k: object() for k in STAGE_KERNELS}
    reasons = unavailable_modes(("individual", "pdl", "graph-pdl"), device_info(), [plain],
                                BUILT_IN)
    assert set(reasons) == {"pdl", "graph-pdl"} and "vec_add_pdl" in reasons["pdl"]


def test_all_skips_what_cannot_run_and_a_named_rung_is_refused_with_the_reason():
    reasons = {"pdl": "needs 9.0", "graph-pdl": "needs 9.0"}
    config, unavailable = choose_modes(RunConfig(modes=("all",)), reasons)
    assert "pdl" not in config.run_modes and config.run_modes[0] == "individual"
    assert unavailable == reasons
    with pytest.raises(DeviceError) as info:
        choose_modes(RunConfig(modes=("individual", "pdl")), {"pdl": "needs 9.0"})
    assert "--modes pdl cannot run here: needs 9.0" in info.value.message


def test_launches_per_iteration_by_rung():
    assert [launches_per_iteration(m, 3, 10, 1000) for m in LADDER] == \
        [3, 3, 3, 1, 1, 0.1, 0.001, 1]
    assert launches_per_iteration("graph@base", 3, 10, 1000) == 1
    assert ladder_order(["fused", "graph@base", "individual", "graph"]) == \
        ["individual", "graph", "graph@base", "fused"]


class FixedRounds:
    def __init__(self, rounds):
        self.rounds = rounds

    def reason_to_stop(self, rounds_done, elapsed_s, walls, probes=None):
        return "fixed-rounds" if rounds_done >= self.rounds else None


class CountingTimer:
    def __init__(self):
        self.calls = []

    def time_round(self, step, iters):
        self.calls.append(iters)
        return Sample(1e-3, 1e-3, 1e-3)


def test_each_mode_gets_its_own_calls_per_round():
    timer = CountingTimer()
    run_rounds({"graph": lambda: None, "unrolled": lambda: None}, {"graph": 100, "unrolled": 10},
               timer, FixedRounds(2), LoopHooks(warmup_rounds=1))
    assert sorted(set(timer.calls)) == [10, 100] and timer.calls.count(10) == 3


def test_driver_arguments_are_packed_as_cuda_core_packs_them():
    assert isinstance(ctypes_value(0xdead0000), ctypes.c_void_p)  # a pointer
    assert ctypes_value(np.uint64(7)).value == 7 and isinstance(ctypes_value(np.uint64(7)),
                                                                ctypes.c_uint64)
    assert isinstance(ctypes_value(np.float32(1.5)), ctypes.c_float)
    packed = PackedArguments((0x1000, np.uint64(5)))
    first = ctypes.cast(packed.array[0], ctypes.POINTER(ctypes.c_void_p)).contents.value
    assert first == 0x1000 and packed.address == ctypes.addressof(packed.array)
    with pytest.raises(TypeError):
        ctypes_value("not an argument")


@pytest.fixture
def ladder_record():
    return make_record(LADDER_WALLS, rounds=12)


def test_ladder_table_fits_80_columns_one_row_per_rung(ladder_record):
    text = to_text(run_report(ladder_record), width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    rows = [line.split()[0] for line in text.splitlines()
            if line.split() and line.split()[0] in LADDER]
    assert rows[:len(LADDER)] == list(LADDER)  # a table, in ladder order, not stacked
    assert "x floor" in text


def test_verdict_names_the_fastest_unchanged_rung_and_the_fastest_overall(ladder_record):
    result = ladder(summarize_run(ladder_record))
    assert (result.fastest_unchanged, result.fastest) == ("unrolled", "unrolled")
    slower_unrolled = make_record({**LADDER_WALLS, "unrolled": 6.5}, rounds=12)
    result = ladder(summarize_run(slower_unrolled))
    assert (result.fastest_unchanged, result.fastest) == ("graph", "fused")
    text = to_text(run_report(slower_unrolled), width=100)
    assert "fastest with the kernels as they are: graph" in text
    assert "fastest overall: fused" in text
    floor = {row.mode: row.from_floor for row in result.rows}
    assert floor["graph"] == pytest.approx(5.9 / 3.0, rel=0.02)  # synthetic busy is 3 us


def test_every_rung_has_a_speedup_against_individual(ladder_record):
    speedup = summarize_run(ladder_record).speedup
    assert set(speedup) == set(LADDER) - {"individual"}
    assert speedup["unrolled"].stats.median == pytest.approx(14.0 / 3.1, rel=0.02)


def test_ladder_records_pass_through_report_compare_and_merge(tmp_path, ladder_record, capsys):
    base, current = tmp_path / "base.json", tmp_path / "current.json"
    write_record(base, merge_runs([make_record(LADDER_WALLS, rounds=12, seed=i)
                                   for i in range(1, 4)]))
    write_record(current, ladder_record)
    assert read_run(current).mode_names == ladder_record.mode_names
    assert main(["report", str(current)]) == 0
    assert "graph-pdl" in capsys.readouterr().out
    assert main(["compare", str(base), str(current)]) == 0
    out = capsys.readouterr().out
    assert "loop" in out and "unrolled" in out
    assert main(["compare", str(base), str(current), "--fail-on", "loop.wall:5%"]) == 0
    merged = merge_runs([read_run(base), read_run(current)])
    assert merged.process_count == 4 and set(merged.mode_names) == set(LADDER)


def test_unavailable_rungs_are_recorded_and_shown(tmp_path, ladder_record):
    import dataclasses

    run = dataclasses.replace(ladder_record.runs[0], unavailable={"loop": "driver too old"})
    record = dataclasses.replace(ladder_record, runs=(run,))
    path = tmp_path / "r.json"
    write_record(path, record)
    assert read_run(path).unavailable == {"loop": "driver too old"}
    assert "unavailable: loop: driver too old" in to_text(run_report(read_run(path)))


def test_a_version_2_record_reads_its_graph_lifecycle(tmp_path):
    from pathlib import Path

    old = Path(__file__).parent / "records" / "v2_baseline.json"
    data = json.loads(old.read_text())
    assert data["schema_version"] == 2 and "graph_lifecycle" in data["runs"][0]
    record = read_record(old)
    assert record.lifecycle_samples("graph") is not None
    assert summarize_run(record).lifecycle.build_us > 0


# --- the rung registry: a rung's facts are written once, in graphbench.ladder ---

def test_the_modes_help_lists_exactly_the_registrys_rungs():
    import re

    from graphbench.cli.parser import build_parser
    from graphbench.ladder import LADDER, ORDER

    modes = next(a for a in build_parser()._subparsers._group_actions[0].choices["run"]._actions
                 if "--modes" in a.option_strings)
    listed = re.search(r"ladder: (.*?); or all", modes.help).group(1).split(", ")
    assert listed == list(ORDER)
    opt_in = re.search(r"every rung but the opt-in (.*?) \(", modes.help).group(1).split(", ")
    assert set(opt_in) == set(ORDER) - set(LADDER) and opt_in


def test_every_rung_has_one_mode_class_and_every_mode_class_a_rung():
    from graphbench.ladder import RUNG
    from graphbench.measure.modes import MODE_TYPES, Mode

    assert set(MODE_TYPES) == set(RUNG)
    assert all(MODE_TYPES[name].kind == name for name in RUNG)
    with pytest.raises(TypeError, match="no rung"):
        type("Stray", (Mode,), {"kind": "warp-speed"})


def test_every_need_a_rung_names_is_checked_by_availability():
    from graphbench.ladder import RUNGS
    from graphbench.measure.availability import DEVICE_NEEDS, OFFLINE_NEEDS

    needs = {need for rung in RUNGS for need in rung.needs}
    assert needs and needs <= set(OFFLINE_NEEDS) | set(DEVICE_NEEDS)


def test_a_rung_whose_need_is_unmet_is_left_out_with_the_needs_reason(monkeypatch):
    from types import SimpleNamespace

    from graphbench.measure import availability

    plan = SimpleNamespace(name="toy", fused=None, stages=(), framework="cuda.core")
    reasons = availability.offline_reasons(["individual", "fused"], [{}], plan)
    assert reasons == {"fused": "the toy pipeline defines no fused stage"}
    monkeypatch.setattr(availability, "_builder_has_conditions", lambda: False)
    assert "no GraphBuilder.create_condition" in availability.offline_reasons(
        ["loop"], [{}], plan)["loop"]
    old_driver = SimpleNamespace(compute_capability="9.0", cuda_driver_version="12.2")
    assert "CUDA 12.3+" in availability._device_reason("loop", old_driver)
    assert availability._device_reason("graph", old_driver) is None


def test_ladder_rows_floor_and_fastest():
    record = make_record({"individual": 14.0, "driver": 12.0, "graph": 4.3, "fused": 4.0},
                         noise=0.001)
    summary = summarize_run(record)
    found = ladder(summary)
    floor = summary.modes["individual"].busy.median
    assert found.floor_us == floor == gpu_floor(summary)
    assert [r.mode for r in found.rows] == ["individual", "driver", "graph", "fused"]
    first, _, graph, fused = found.rows
    assert first.speedup == 1.0 and first.wall_us == summary.modes["individual"].wall.median
    assert graph.speedup == summary.speedup["graph"].stats.median
    assert graph.from_floor == graph.wall_us / floor
    assert graph.submit_us == summary.modes["graph"].launch_cost.median
    assert graph.busy_us == summary.modes["graph"].busy.median
    assert graph.idle_gap_us == summary.breakdown["graph"].idle_gap_us
    assert found.fastest_unchanged == "graph" and found.fastest == "fused"


def test_ladder_without_busy_times_or_breakdowns():
    record = make_record({"individual": 14.0, "graph": 4.3}, noise=0.001)
    summary = summarize_run(record)
    bare = dataclasses.replace(summary, breakdown={}, speedup={}, modes={
        m: dataclasses.replace(s, busy=None) for m, s in summary.modes.items()})
    found = ladder(bare)
    assert found.floor_us is None and gpu_floor(bare) is None
    assert all(r.from_floor is None and r.busy_us is None and r.idle_gap_us is None
               for r in found.rows)
    assert [r.speedup for r in found.rows] == [1.0, None]


def test_gpu_floor_skips_kernel_changing_rungs_and_base_builds():
    record = make_record({"fused": 4.0, "graph@base": 1.0, "individual": 14.0, "graph": 4.3},
                         noise=0.001)
    summary = summarize_run(record)
    # fused changes the kernels; graph@base is not one of this build's rungs
    floor = summary.modes["individual"].busy.median
    assert gpu_floor(summary) == floor
    assert floor not in (summary.modes["fused"].busy.median,
                         summary.modes["graph@base"].busy.median)
    found = ladder(summary)
    assert "graph@base" in [r.mode for r in found.rows]  # shown, but not one of this build's
    assert found.fastest == "fused" and found.fastest_unchanged == "graph"
    only_fused = make_record({"fused": 4.0, "pdl": 6.0}, noise=0.001)
    assert gpu_floor(summarize_run(only_fused)) is None
    found = ladder(summarize_run(only_fused))
    assert found.fastest_unchanged is None and found.fastest == "fused"
