"""The web front end: pages built from the platform's public HTTP APIs (docs/services/web.md)."""
