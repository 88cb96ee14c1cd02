"""Helpers several test modules share."""

import dataclasses


def scaled_busy(record, factor):
    """The same record with every workload's GPU busy time scaled by `factor`."""
    run = record.runs[0]
    conditions = tuple(dataclasses.replace(c, busy={w: dataclasses.replace(r, us=r.us * factor)
                                                    for w, r in c.busy.items()})
                       for c in run.conditions)
    return dataclasses.replace(record, runs=(dataclasses.replace(run, conditions=conditions),))
