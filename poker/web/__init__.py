"""Server-rendered web pages: the lobby, log in/out and the live table page."""
