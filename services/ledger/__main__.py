"""`python -m services.ledger`: serve the ledger on PORT (default 8104)."""

from libs.platform.service import run_service
from services.ledger.app import create_app

if __name__ == "__main__":
    run_service(create_app(), default_port=8104)
