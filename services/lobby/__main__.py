"""`python -m services.lobby`: serve the lobby on LOBBY's default port 8101."""

from libs.platform.service import run_service
from services.lobby.app import create_app

if __name__ == "__main__":
    run_service(create_app(), default_port=8101)
