"""A simulated room for measuring collusion detection: bots (honest styles, injected
colluders, hard negatives) playing through the live table service, and the truth of who
colluded (issue 16). Entry point: :func:`room_simulate`; command: ``simulate_room``."""

from fraud.simulation.room import RoomSpec, RoomTruth
from fraud.simulation.run import room_simulate

__all__ = ["RoomSpec", "RoomTruth", "room_simulate"]
