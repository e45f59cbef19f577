"""Running a script: the run loop, its limits, the evaluator, the actions, the ``bridge run``
command and the compiled loop.

Nothing is imported here: each module is imported where it is used.
"""
