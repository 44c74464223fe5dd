"""The table commands: ``runner`` (the envelope every command runs in), ``inputs`` (the
checks of a request before it reaches a table), and one module per group of commands:
``seating``, ``play``, ``chat``, ``staff``. The rules of a hand are in ``poker.dealer``."""
