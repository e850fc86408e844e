"""Sharding a grading over a job matrix, and merging the shards back into one verdict.

plan.py   `--shard I/N`: which tasks a shard grades (balanced, stable) and its partial files
merge.py  `merge`: the partials checked against each other and joined, as one unsharded grading
"""
