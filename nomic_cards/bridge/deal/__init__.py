"""How deals are made: the specified stream, lazy batches, point tables, smart stacking and
dealer's own shuffle.

Nothing is imported here: each module is imported where it is used.
"""
