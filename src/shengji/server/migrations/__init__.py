"""Alembic migrations for the web server's database (run at startup by storage.py)."""
