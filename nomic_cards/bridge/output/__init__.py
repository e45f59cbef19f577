"""What a run writes: dealer's text layouts and the PBN/LIN/JSON formats.

Nothing is imported here: each module is imported where it is used.
"""
