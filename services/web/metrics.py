"""The web front end's own metrics, beside the shared HTTP metrics (requests, latency, errors per route)."""

from prometheus_client import Counter, Gauge, Histogram

_FAST = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.25)
RENDER_SECONDS = Histogram("speed_web_render_seconds", "Rendering one page or fragment (template)", ["template"],
                           buckets=_FAST)
BOARD_SECONDS = Histogram("speed_web_board_seconds", "Drawing one board from a view (renderer)", ["game"],
                          buckets=_FAST)
LIVE_UPDATE_SECONDS = Histogram("speed_web_live_update_seconds", "Turning one live view into HTML fragments",
                                buckets=_FAST)
LIVE_STREAMS = Gauge("speed_web_live_streams", "Open live streams to browsers")
MOVES = Counter("speed_web_moves_total", "Moves sent from the browser and accepted")
