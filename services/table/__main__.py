from libs.platform.service import run_service
from services.table.app import create_app

run_service(create_app(), default_port=8102)
