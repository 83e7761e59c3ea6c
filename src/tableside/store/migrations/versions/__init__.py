"""One file per migration, oldest first by ``down_revision``."""
