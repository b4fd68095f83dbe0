"""The lobby's HTTP routers, one per resource."""
