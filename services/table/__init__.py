"""The table service: runs games, appending every move to the game's event log before anyone is told."""
