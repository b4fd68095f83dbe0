"""The lobby: players (guests and registered), open tables, seats, settings and starting games."""
