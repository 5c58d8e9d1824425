"""Store implementations: SQLite (default) and PostgreSQL."""
