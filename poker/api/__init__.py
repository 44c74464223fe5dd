"""REST edges of the poker app: tables, seats, actions and hand histories (thin views)."""
