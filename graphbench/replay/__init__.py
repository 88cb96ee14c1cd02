"""The replay check: whether a captured graph of any callable stays right on
new data. plan: the battery of perturbations between replays; outcomes: what
each case recorded; verdicts: each class of stale replay, with its evidence."""
