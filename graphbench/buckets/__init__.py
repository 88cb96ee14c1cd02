"""Graphs at serving scale: which shape buckets to capture (planner), from
each bucket's measured costs and the sizes requests come in."""
