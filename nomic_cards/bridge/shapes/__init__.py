"""Shapes: dealer's shape lists and dealer.dpp shape specs, expanded to hand shapes.

Nothing is imported here: each module is imported where it is used.
"""
