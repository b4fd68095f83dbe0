"""Kirchenfenster: strips under a Glasermeister, windows below them, a palace scored at the end."""
