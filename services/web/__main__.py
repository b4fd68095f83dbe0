"""`python -m services.web`: serve the web front end on PORT (default 8100)."""

from libs.platform.service import run_service
from services.web.app import create_app

if __name__ == "__main__":
    run_service(create_app(), default_port=8100)
