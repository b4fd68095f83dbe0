"""Real NATS JetStream and PostgreSQL servers started from PyPI wheels, for `make run` and the tests."""

from libs.devservers.nats_server import NatsCluster, NatsServer
from libs.devservers.ports import free_port
from libs.devservers.postgres_server import PostgresServer

__all__ = ["NatsCluster", "NatsServer", "PostgresServer", "free_port"]
