"""Persistence: SQLAlchemy models, engines, units of work and Alembic migrations.

This package is the only place in the project that imports SQLAlchemy or Alembic.
"""
