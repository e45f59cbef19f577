"""Persistence: one DB-API connection layer (:mod:`.connect`) for every read (:mod:`.reads`)
and write (:mod:`.writes`, :mod:`.project`); the SQLAlchemy models and Alembic migrations make
the schema and nothing else.

This package is the only place in the project that imports SQLAlchemy or Alembic.
"""
