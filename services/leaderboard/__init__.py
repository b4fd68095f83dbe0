"""The leaderboard: a replayable projection of finished games into lists per game and variant."""
