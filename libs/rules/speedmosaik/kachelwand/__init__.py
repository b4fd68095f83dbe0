"""Kachelwand: the base form of Speedmosaik (pattern lines, a wall, a floor; free wall and jokers as options)."""
