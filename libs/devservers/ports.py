"""Finding free TCP ports on the loopback interface."""

import socket


def free_port(preferred: int | None = None) -> int:
    """Return `preferred` if it is free on 127.0.0.1, otherwise a port the kernel reports as free."""
    if preferred is not None and _is_free(preferred):
        return preferred
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def free_ports(count: int, exclude: set[int] | None = None) -> list[int]:
    """Return `count` different ports the kernel reports as free, none of them in `exclude`."""
    taken = set(exclude or ())
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in taken:
            taken.add(port)
            ports.append(port)
    return ports


def _is_free(port: int) -> bool:
    """Whether a server could listen on `port` now.

    The servers we start (PostgreSQL, nats-server, uvicorn) listen with SO_REUSEADDR, so connections of an
    earlier run lingering in TIME_WAIT do not keep them off their port; the check binds the same way, or a
    quick restart would move to another port.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    """Block until something accepts connections on 127.0.0.1:`port`, or raise TimeoutError."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")
