"""The simulated room's plan: who plays, in which style, who colludes, and who sits where.

All of it comes from ``random.Random(seed)``, without the database: one seed gives one
room (players, groups, addresses, seating). Players are indexes here; the simulator maps
them to user ids when it creates the accounts.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from fraud.simulation.bots import DUMPED_TO, DUMPS_TO, HONEST_STYLES, SHARES, SOFT

# Group schemes, as the truth names them.
CHIP_DUMPING, SOFT_PLAY, CARD_SHARING, RING = "chip_dumping", "soft_play", "card_sharing", "ring"
FRIENDS, HOUSEHOLD, TIGHT_PASSIVE = "friends", "household", "tight_passive"
#: Two honest players of different styles who play long heads-up matches at a table of
#: their own (a strong player beating a weak one there is no chip dumping).
HEADS_UP = "heads_up"
#: The styles of heads-up pairs, in turn: a strong player against a weak one, or two
#: styles far apart.
HEADS_UP_STYLES = (
    ("short_stack", "station"),
    ("aggressive", "station"),
    ("loose", "passive"),
    ("maniac", "short_stack"),
    ("tight", "nit"),
    ("aggressive", "loose"),
)
COLLUSION = (CHIP_DUMPING, SOFT_PLAY, CARD_SHARING, RING)
#: --rings keys -> (scheme, group size).
# A table, one row per line: the formatter leaves it as written (fmt: skip).
SPEC_KEYS: dict[str, tuple[str, int]] = {
    "dump": (CHIP_DUMPING, 2), "soft": (SOFT_PLAY, 2), "share": (CARD_SHARING, 2), "ring": (RING, 3),
    "friends": (FRIENDS, 2), "household": (HOUSEHOLD, 2), "tight_passive": (TIGHT_PASSIVE, 2),
    "heads_up": (HEADS_UP, 2),
}  # fmt: skip
#: Groups who choose each other's table when a lineup changes, and how often.
TOGETHER = (CHIP_DUMPING, SOFT_PLAY, CARD_SHARING, RING, FRIENDS)
TOGETHER_P = 0.8
MAX_SEATS = 6
SESSION_HANDS = (50, 100)


@dataclass(frozen=True)
class RoomSpec:
    """How many groups of each scheme the room holds (the benchmark's by default)."""

    dump: int = 2
    soft: int = 3
    share: int = 3
    ring: int = 1
    friends: int = 5
    household: int = 5
    tight_passive: int = 1  # one pair of tight-passive players
    heads_up: int = 0

    @classmethod
    def parse(cls, text: str) -> RoomSpec:
        """``"dump:2,soft:3,share:3,ring:1"``; schemes not named keep their default."""
        counts: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, number = part.partition(":")
            if name not in SPEC_KEYS or not number.isdigit():
                raise ValueError(
                    f"bad ring spec {part!r}: use e.g. dump:2,soft:3 with {', '.join(SPEC_KEYS)}"
                )
            counts[name] = int(number)
        return cls(**counts)

    def groups(self) -> list[tuple[str, int]]:
        """(scheme, size) of every group, in a fixed order."""
        return [SPEC_KEYS[k] for k in SPEC_KEYS for _ in range(getattr(self, k))]


@dataclass(frozen=True)
class PlayerPlan:
    index: int
    style: str
    client_ip: str
    device_id: str


@dataclass(frozen=True)
class GroupPlan:
    scheme: str
    members: tuple[int, ...]  # player indexes; a chip-dumping pair is (from, to)


@dataclass(frozen=True)
class RoomPlan:
    seed: int
    players: tuple[PlayerPlan, ...]
    groups: tuple[GroupPlan, ...]

    def relations(self) -> dict[int, dict[int, str]]:
        """Player index -> {other index: relation} (the bots' view of their partners)."""
        out: dict[int, dict[int, str]] = {}
        for g in self.groups:
            for a in g.members:
                for b in g.members:
                    if a == b:
                        continue
                    if g.scheme == CHIP_DUMPING:
                        out.setdefault(a, {})[b] = DUMPS_TO if a == g.members[0] else DUMPED_TO
                    elif g.scheme == SOFT_PLAY:
                        out.setdefault(a, {})[b] = SOFT
                    elif g.scheme in (CARD_SHARING, RING):
                        out.setdefault(a, {})[b] = SHARES
        return out


def room_plan(*, players: int, seed: int, spec: RoomSpec) -> RoomPlan:
    """Draws the room: styles, colluding groups and hard negatives, addresses, devices."""
    rng = random.Random(seed)
    needed = sum(size for _, size in spec.groups())
    if needed > players:
        raise ValueError(f"the groups need {needed} players, the room has {players}")
    order = list(range(players))
    rng.shuffle(order)
    groups, taken = [], 0
    for scheme, size in spec.groups():
        members = tuple(order[taken : taken + size])
        taken += size
        groups.append(
            GroupPlan(scheme, members if scheme == CHIP_DUMPING else tuple(sorted(members)))
        )
    ips = rng.sample(range(1, 250 * 250 * 250), players)
    addresses = [f"10.{x // 62500}.{x // 250 % 250}.{x % 250 + 1}" for x in ips]
    devices = [f"dev-{rng.getrandbits(64):016x}" for _ in range(players)]
    styles = [rng.choice(HONEST_STYLES) for _ in range(players)]
    matches = iter(HEADS_UP_STYLES * len(groups))
    for g in groups:
        if g.scheme == HEADS_UP:
            for m, style in zip(g.members, next(matches), strict=True):
                styles[m] = style
        first = g.members[0]
        for m in g.members:
            if g.scheme in (FRIENDS, HOUSEHOLD):
                addresses[m] = addresses[first]
            if g.scheme == HOUSEHOLD:
                devices[m] = devices[first]
            if g.scheme == TIGHT_PASSIVE:
                styles[m] = TIGHT_PASSIVE
    plans = tuple(PlayerPlan(i, styles[i], addresses[i], devices[i]) for i in range(players))
    return RoomPlan(seed=seed, players=plans, groups=tuple(groups))


def table_count(players: int) -> int:
    """Tables of the room: about 5.5 players a table, so lineups have room to change."""
    return max(1, math.ceil(players / 5.5))


@dataclass(frozen=True)
class Round:
    """One session: ``hands`` hands at every table, with these lineups (player indexes)."""

    hands: int
    lineups: tuple[tuple[int, ...], ...]


def seating(plan: RoomPlan, tables: int, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """One session's lineups: a heads-up pair takes a table of its own with p = 0.8,
    groups that play together take one table with p = 0.8, everyone else (and a group
    that does not) sits where a random table has room."""
    lineups: list[list[int]] = [[] for _ in range(tables)]
    matched: set[int] = set()
    for g in plan.groups:
        empty = [t for t in lineups if not t]
        if g.scheme == HEADS_UP and rng.random() < TOGETHER_P and len(empty) > 1:
            rng.choice(empty).extend(g.members)
            matched.update(g.members)
    open_ = [t for t in lineups if not matched.intersection(t)]
    grouped = {m for g in plan.groups if g.scheme in TOGETHER for m in g.members} | matched
    units: list[list[int]] = [[p.index] for p in plan.players if p.index not in grouped]
    for g in plan.groups:
        if g.scheme in TOGETHER:
            units.extend(
                [list(g.members)] if rng.random() < TOGETHER_P else [[m] for m in g.members]
            )
    rng.shuffle(units)
    units.sort(key=len, reverse=True)  # stable: the shuffle still orders equal sizes
    for unit in units:
        for part in (
            [unit] if any(len(t) + len(unit) <= MAX_SEATS for t in open_) else [[m] for m in unit]
        ):
            room = [t for t in open_ if len(t) + len(part) <= MAX_SEATS]
            if room:
                rng.choice(room).extend(part)
    lonely = [t for t in open_ if len(t) == 1]
    for t in lonely:  # one player cannot play: they join another table or rest
        room = [u for u in open_ if 2 <= len(u) < MAX_SEATS]
        if room:
            rng.choice(room).append(t.pop())
    return tuple(tuple(sorted(t)) for t in lineups)


def schedule(plan: RoomPlan, *, hands: int, tables: int, seed: int) -> list[Round]:
    """The sessions every table plays until it has dealt its share of ``hands``."""
    rng = random.Random(f"{seed}-seating")
    per_table = math.ceil(hands / tables)
    rounds, total = [], 0
    while total < per_table:
        n = rng.randint(*SESSION_HANDS)
        rounds.append(Round(n, seating(plan, tables, rng)))
        total += n
    return rounds


@dataclass(frozen=True)
class RoomTruth:
    """What the room really was, for scoring a detector: its players and their groups."""

    seed: int
    players: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    hands: int = 0
    tables: int = 0
    seconds: float = 0.0
    errors: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def room_truth(
    plan: RoomPlan, user_ids: list[int], usernames: list[str], **figures: Any
) -> RoomTruth:
    players = [
        {
            "user_id": user_ids[p.index],
            "username": usernames[p.index],
            "style": p.style,
            "client_ip": p.client_ip,
            "device_id": p.device_id,
        }
        for p in plan.players
    ]
    groups = []
    for g in plan.groups:
        ids = sorted(g.members, key=lambda m: user_ids[m])
        group: dict[str, Any] = {
            "scheme": g.scheme,
            "players": [user_ids[m] for m in ids],
            "usernames": [usernames[m] for m in ids],
        }
        if g.scheme == CHIP_DUMPING:
            group["direction"] = [user_ids[g.members[0]], user_ids[g.members[1]]]
        groups.append(group)
    return RoomTruth(seed=plan.seed, players=players, groups=groups, **figures)
