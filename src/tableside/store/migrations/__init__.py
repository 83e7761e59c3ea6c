"""Alembic migrations of the store's tables (run by ``tableside.store.migrate``)."""
