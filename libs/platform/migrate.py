"""`python -m libs.platform.migrate`: apply every service's migrations to DATABASE_URL."""

import os

from libs.platform.database import upgrade_all
from libs.platform.settings import Settings

if __name__ == "__main__":
    # Only the database is needed: the migration job has no NATS user or other service settings, which
    # Settings() would insist on in production.
    upgrade_all(os.environ.get("DATABASE_URL") or str(Settings.model_fields["database_url"].default))
