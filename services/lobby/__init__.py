"""The lobby: players (guests and registered), open tables, seats, settings, stakes, starting games, rematch."""
