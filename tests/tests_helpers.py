"""Helpers several test modules share."""

import dataclasses


def scaled_busy(record, factor):
    """The same record with every workload's GPU busy time scaled by `factor`."""
    run = record.runs[0]
    conditions = tuple(dataclasses.replace(c, busy={w: dataclasses.replace(r, us=r.us * factor)
                                                    for w, r in c.busy.items()})
                       for c in run.conditions)
    return dataclasses.replace(record, runs=(dataclasses.replace(run, conditions=conditions),))


def ab_record(build, factor=1.0, busy_factor=1.0, noise=0.005, seed=0, rounds=30):
    """A synthetic A/B record: the candidate's walls `factor` times its base
    build's, its busy time `busy_factor` times."""
    from conftest import make_record, synthetic_conditions

    walls = {**build, **{f"{m}@base": us / factor for m, us in build.items()}}
    record = make_record(walls, rounds=rounds, noise=noise, seed=seed)
    conditions = tuple(dataclasses.replace(c, busy={
        w: dataclasses.replace(r, us=r.us * (busy_factor if "@" not in w else 1.0))
        for w, r in c.busy.items()}) for c in synthetic_conditions(walls, rounds))
    run = dataclasses.replace(record.runs[0], conditions=conditions)
    pipeline = dataclasses.replace(record.pipeline, kernel_source="new.cu", ab_source="base.cu")
    return dataclasses.replace(record, runs=(run,), pipeline=pipeline)
