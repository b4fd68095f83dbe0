"""`python -m libs.platform.migrate`: apply every service's migrations to DATABASE_URL."""

from libs.platform.database import upgrade_all
from libs.platform.settings import get_settings

if __name__ == "__main__":
    upgrade_all(get_settings().database_url)
