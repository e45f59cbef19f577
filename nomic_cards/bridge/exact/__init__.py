"""Exact probabilities of conditions, by counting hands suit by suit.

Nothing is imported here: each module is imported where it is used.
"""
