"""`python -m services.leaderboard`: serve the leaderboard on PORT (default 8105)."""

from libs.platform.service import run_service
from services.leaderboard.app import create_app

if __name__ == "__main__":
    run_service(create_app(), default_port=8105)
