"""A deterministic demo of the Italian Draughts Federation (FID): registry snapshots, tournaments
of dama italiana and dama internazionale, their games files, and a few deliberate faults.

Pure: everything is built in memory from one seed (``random.Random``); the flows write the
``tournaments.csv`` of each delivery folder (``manifest_rows``) and the games CSVs
(``DraughtsFederation.games``, one frame per file name, columns ``DRAUGHTS_GAME_COLUMNS``).

- **Registry**: one snapshot per year, on 1 January: the players registered by then (players
  columns ``DRAUGHTS_PLAYER_COLUMNS``) and their membership years up to that year. Most players
  are already registered in the first year; debutants join later (registered on 1 January of
  their first year, first tournament some weeks or months later). Foreign players are never
  members and carry the entry capital of every variant they play; Italian players carry none.
  A category per variant (null: the player does not play it), mostly low, reached never lost.
- **Tournaments**: ``tournaments_per_year`` a year, about 60 % italiana; one-day, weekend and
  weekly-league events, so many overlap in time and share players; some are paired with an
  earlier one ending on the same day. About 15 % are valid at 50 %. Round robins of 6-10
  players, Swiss of 11-30, 5-9 rounds. Ids ``DI-YYYY-NNNN`` (italiana) and ``DN-YYYY-NNNN``
  (internazionale) follow the start dates. Files are on the FID scale (2/1/0, ``"fid"``) or on
  the 1/½/0 scale (``"one"``, the half written ``0.5`` or ``½`` depending on the file).
- **Games**: one row per game, ``result`` = the points of ``player_id`` as written in the file
  (the opponent has the complement); statuses ``played``, ``forfeit`` (win value or 0), ``bye``
  (odd group, no opponent, win value) and ``withdrawn`` (the opponent left: the row is written
  for the player still present, with the win value). Results follow a hidden strength with an
  Elo-like expected score and many draws.
- **Entries** (``entries``: tournament_id, player_id): the ground truth of who entered what.
- **Faults** (``faults``: tournament id -> reason): a result off its scale, a player id in no
  registry (``UNKNOWN_PLAYER_ID``), a tournament without ``received_on``.

Determinism rests on never iterating a set or dict of strings to make a random choice.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

import polars as pl

from synthetic.chess import CITIES, FEMALE_NAMES, MALE_NAMES, SURNAMES

VARIANTS: tuple[str, ...] = ("italiana", "internazionale")
VARIANT_PREFIX: dict[str, str] = {"italiana": "DI", "internazionale": "DN"}
CATEGORY_CODES: tuple[str, ...] = ("NC", "3C", "2C", "1C", "N", "CM", "M")  # lowest first
POINTS_SCALES: tuple[str, ...] = ("fid", "one")
GAME_STATUSES: tuple[str, ...] = ("played", "forfeit", "bye", "withdrawn")
# Result strings of each scale: win, draw(s), loss. The "one" scale writes the half either way.
SCALE_RESULTS: dict[str, tuple[str, ...]] = {"fid": ("2", "1", "0"), "one": ("1", "0.5", "½", "0")}
WIN_VALUE: dict[str, str] = {"fid": "2", "one": "1"}
UNKNOWN_PLAYER_ID = "D999999"  # in no registry: the id of the deliberate fault

# File formats: column -> type, in the column order of the files.
PLAYER_SCHEMA: dict[str, pl.DataType] = {
    "player_id": pl.Utf8(), "name": pl.Utf8(), "sex": pl.Utf8(), "birth_date": pl.Date(),
    "country": pl.Utf8(), "category_italiana": pl.Utf8(), "category_internazionale": pl.Utf8(),
    "capital_italiana": pl.Int32(), "capital_internazionale": pl.Int32(),
}  # fmt: skip
MEMBERSHIP_SCHEMA: dict[str, pl.DataType] = {"player_id": pl.Utf8(), "year": pl.Int32()}
# The ``tournaments`` frame; ``tournaments.csv`` of a delivery folder is all but ``delivery``.
TOURNAMENT_SCHEMA: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(), "variant": pl.Utf8(), "name": pl.Utf8(), "city": pl.Utf8(),
    "start_date": pl.Date(), "end_date": pl.Date(), "validity": pl.Int32(),
    "received_on": pl.Date(), "file": pl.Utf8(), "points_scale": pl.Utf8(),
    "delivery": pl.Utf8(),
}  # fmt: skip
GAME_SCHEMA: dict[str, pl.DataType] = {
    "tournament_id": pl.Utf8(), "round": pl.Int32(), "player_id": pl.Utf8(),
    "opponent_id": pl.Utf8(), "result": pl.Utf8(), "status": pl.Utf8(),
}  # fmt: skip
ENTRY_SCHEMA: dict[str, pl.DataType] = {"tournament_id": pl.Utf8(), "player_id": pl.Utf8()}
DRAUGHTS_PLAYER_COLUMNS: tuple[str, ...] = tuple(PLAYER_SCHEMA)
DRAUGHTS_MEMBERSHIP_COLUMNS: tuple[str, ...] = tuple(MEMBERSHIP_SCHEMA)
DRAUGHTS_TOURNAMENT_COLUMNS: tuple[str, ...] = tuple(
    c for c in TOURNAMENT_SCHEMA if c != "delivery"
)
DRAUGHTS_GAME_COLUMNS: tuple[str, ...] = tuple(GAME_SCHEMA)

# Hidden strength (Elo-like units) -> category: the lowest strength of each category.
CATEGORY_FLOORS: tuple[tuple[str, float], ...] = (
    ("M", 2050), ("CM", 1920), ("N", 1800), ("1C", 1650), ("2C", 1520), ("3C", 1400),
)  # fmt: skip
# Foreign entry capital = intercept + slope * (strength - 1450), rounded to 10, at least 500.
FOREIGN_CAPITAL: dict[str, tuple[float, float]] = {
    "italiana": (1500, 4.0),
    "internazionale": (1000, 3.3),
}
# Surnames, male given names, female given names.
FOREIGN_NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "FRA": (("Martin", "Dubois", "Leroy", "Moreau", "Girard"), ("Pierre", "Julien", "Olivier"),
            ("Marie", "Claire")),
    "NED": (("de Jong", "Jansen", "de Vries", "Bakker", "Visser"), ("Jan", "Pieter", "Roel"),
            ("Anouk", "Sanne")),
    "RUS": (("Ivanov", "Smirnov", "Kuznetsov", "Popov", "Sokolov"), ("Alexei", "Dmitri", "Sergei"),
            ("Olga", "Tamara")),
    "BRA": (("Silva", "Santos", "Oliveira", "Souza", "Lima"), ("Joao", "Rafael", "Thiago"),
            ("Ana", "Beatriz")),
}  # fmt: skip
FOREIGN_COUNTRIES: tuple[str, ...] = ("FRA", "NED", "RUS", "BRA")
EVENT_NAMES: tuple[str, ...] = (
    "Campionato Provinciale di {city}", "Open Citta di {city}", "Trofeo {surname}",
    "Memorial {given} {surname}", "Torneo Regionale di {city}", "Festival di {city}",
)  # fmt: skip
DRAW_PEAK = 0.6  # draw share between equal strengths (draughts draws a lot)
FORFEIT_RATE = 0.012


@dataclass(frozen=True, eq=False)  # frames do not compare with ==
class DraughtsFederation:
    seed: int
    # (as_of, players, memberships), one per year on 1 January, oldest first.
    registry_snapshots: list[tuple[date, pl.DataFrame, pl.DataFrame]]
    tournaments: pl.DataFrame  # DRAUGHTS_TOURNAMENT_COLUMNS + delivery
    games: dict[str, pl.DataFrame]  # file name -> DRAUGHTS_GAME_COLUMNS
    entries: pl.DataFrame  # ground truth: tournament_id, player_id of every entrant
    faults: dict[str, str] = field(default_factory=dict)  # tournament_id -> reason


def manifest_rows(fed: DraughtsFederation) -> dict[str, pl.DataFrame]:
    """Delivery folder ("YYYY-MM") -> its ``tournaments.csv`` rows (DRAUGHTS_TOURNAMENT_COLUMNS)."""
    out: dict[str, pl.DataFrame] = {}
    for delivery in sorted(fed.tournaments["delivery"].unique().to_list()):
        rows = fed.tournaments.filter(pl.col("delivery") == delivery).sort("tournament_id")
        out[delivery] = rows.select(DRAUGHTS_TOURNAMENT_COLUMNS)
    return out


@dataclass(eq=False)  # identity: players are compared with ``is`` and ``in``
class _Player:
    player_id: str
    name: str
    sex: str
    birth_date: date
    country: str
    variants: tuple[str, ...]
    strength: dict[str, float]
    activity: float
    join_year: int
    debut: date  # first day the player may enter a tournament
    growth: float  # strength gained a year (debutants improve)
    member_years: list[int]
    capital: dict[str, int]  # foreign players only
    categories: dict[int, dict[str, str]] = field(default_factory=dict)  # year -> variant -> code


@dataclass(eq=False)
class _Tournament:
    variant: str
    city: str
    name: str
    start: date
    end: date
    rounds: int
    size: int
    validity: int
    delivered: date
    scale: str
    half: str
    twin_of: int | None
    tid: str = ""
    entrants: list[_Player] = field(default_factory=list)


def _category(strength: float) -> str:
    return next((c for c, floor in CATEGORY_FLOORS if strength >= floor), "NC")


def _higher(a: str, b: str) -> str:
    return a if CATEGORY_CODES.index(a) >= CATEGORY_CODES.index(b) else b


def _name(rng: random.Random, country: str, sex: str, used: set[str]) -> str:
    """A "Surname, Given" name, unique while the name space allows (homonyms exist)."""
    if country == "ITA":
        surnames, given = SURNAMES, MALE_NAMES if sex == "M" else FEMALE_NAMES
    else:
        surnames, male, female = FOREIGN_NAMES[country]
        given = male if sex == "M" else female
    for _ in range(50):
        first = rng.choice(given)
        name = f"{rng.choice(surnames)}, {first}"
        if name in used:
            second = rng.choice(given)
            name = f"{name} {second}" if second != first else name
        if name not in used:
            break
    used.add(name)
    return name


def _make_players(
    rng: random.Random, n_players: int, first_year: int, last_year: int
) -> list[_Player]:
    players: list[_Player] = []
    used: set[str] = set()
    for i in range(1, n_players + 1):
        foreign = rng.random() < 0.04
        country = rng.choice(FOREIGN_COUNTRIES) if foreign else "ITA"
        sex = "F" if rng.random() < 0.1 else "M"
        # A fixed share of strong players (masters among them) on top of the club bulk.
        master, strong = i % 105 == 0, i % 35 == 0
        debutant = not strong and rng.random() < 0.3
        join_year = rng.randint(first_year, last_year) if debutant else first_year
        debut = date(join_year, 1, 1) + timedelta(days=rng.randint(20, 300) if debutant else 0)
        roll = rng.random()
        if master:
            base, variants = rng.gauss(2150, 50), VARIANTS
        elif foreign:
            base = rng.gauss(1950, 100) if strong else rng.gauss(1750, 200)
            variants = ("internazionale",) if roll < 0.6 else VARIANTS
        else:
            base = rng.gauss(1950, 100) if strong else rng.gauss(1350 if debutant else 1500, 180)
            variants = ("italiana",) if roll < 0.72 else VARIANTS if roll < 0.92 else VARIANTS[1:]
        age = rng.uniform(8, 18) if rng.random() < 0.2 else rng.triangular(18, 85, 45)
        member_years: list[int] = []
        if not foreign:
            member = True
            for year in range(join_year, last_year + 1):
                member = year == join_year or rng.random() < (0.9 if member else 0.3)
                if member:
                    member_years.append(year)
            if member_years and member_years[-1] == last_year:
                # renewals for the next season, recorded by the last snapshot (as the FSI demo)
                member_years.append(last_year + 1)
        strength = {v: base + rng.gauss(0, 60) for v in variants}
        capital: dict[str, int] = {}
        if foreign:
            for v in variants:
                intercept, slope = FOREIGN_CAPITAL[v]
                capital[v] = max(500, round((intercept + slope * (strength[v] - 1450)) / 10) * 10)
        players.append(
            _Player(
                player_id=f"D{i:06d}",
                name=_name(rng, country, sex, used),
                sex=sex,
                birth_date=date(first_year, 1, 1) - timedelta(days=int(age * 365.25)),
                country=country,
                variants=variants,
                strength=strength,
                activity=min(rng.paretovariate(1.5), 10.0) * (0.4 if foreign else 1.0),
                join_year=join_year,
                debut=debut,
                growth=rng.uniform(20, 80) if debutant else 0.0,
                member_years=member_years,
                capital=capital,
            )
        )
    for p in players:  # categories per snapshot year, never lowered
        previous: dict[str, str] = {}
        for year in range(p.join_year, last_year + 1):
            now = {}
            for v in p.variants:
                if year == p.join_year and p.growth:
                    cat = rng.choices(("NC", "3C"), weights=(80, 20))[0]
                else:
                    cat = _category(p.strength[v] + p.growth * (year - p.join_year))
                now[v] = _higher(cat, previous.get(v, "NC"))
            p.categories[year] = previous = now
    return players


def _snapshot(
    players: list[_Player], year: int, renewals: bool = False
) -> tuple[date, pl.DataFrame, pl.DataFrame]:
    """The registry on 1 January of ``year``; with ``renewals`` also next year's memberships."""
    rows, members = [], []
    for p in players:
        if p.join_year > year:
            continue
        cats = p.categories[year]
        rows.append(
            (p.player_id, p.name, p.sex, p.birth_date, p.country,
             cats.get("italiana"), cats.get("internazionale"),
             p.capital.get("italiana"), p.capital.get("internazionale"))
        )  # fmt: skip
        members.extend((p.player_id, y) for y in p.member_years if y <= year + renewals)
    return (
        date(year, 1, 1),
        pl.DataFrame(rows, schema=PLAYER_SCHEMA, orient="row"),
        pl.DataFrame(members, schema=MEMBERSHIP_SCHEMA, orient="row"),
    )


def _round_robin_rounds(size: int) -> int:
    return size - 1 if size % 2 == 0 else size


def _plan_year(rng: random.Random, year: int, count: int) -> list[_Tournament]:
    """The year's tournaments (no entrants yet), with ids in start-date order per variant."""
    plan: list[_Tournament] = []
    for k in range(count):
        variant = "italiana" if rng.random() < 0.6 else "internazionale"
        if rng.random() < 0.35:  # round robin
            size = rng.randint(6, 10)
        else:
            size = min(30, 11 + int(rng.expovariate(1 / 6)))
        rounds = (
            _round_robin_rounds(size) if size <= 10 else min(9, 4 + size // 5 + rng.randint(0, 1))
        )
        kind = rng.choices(("day", "weekend", "league"), weights=(25, 55, 20))[0]
        span = {"day": 0, "weekend": 1, "league": 7 * (rounds - 1)}[kind]
        twin_of = len(plan) - 1 if k % 8 == 4 else None  # ends the same day as the one before
        if twin_of is None:
            start = date(year, 1, 10) + timedelta(days=rng.randint(0, 340 - span))
            end = start + timedelta(days=span)
        else:
            end = plan[twin_of].end
            start = max(date(year, 1, 1), end - timedelta(days=span))
        city = rng.choice(CITIES)
        name = rng.choice(EVENT_NAMES).format(
            city=city, surname=rng.choice(SURNAMES), given=rng.choice(MALE_NAMES)
        )
        scale = "fid" if rng.random() < 0.65 else "one"
        plan.append(
            _Tournament(
                variant=variant,
                city=city,
                name=f"{name} {year} - dama {variant}",
                start=start,
                end=end,
                rounds=rounds,
                size=size,
                validity=50 if rng.random() < 0.15 else 100,
                delivered=end + timedelta(days=rng.randint(2, 40)),
                scale=scale,
                half=rng.choice(("0.5", "½")) if scale == "one" else "1",
                twin_of=twin_of,
            )
        )
    for variant in VARIANTS:
        mine = sorted((t for t in plan if t.variant == variant), key=lambda t: (t.start, t.end))
        for n, t in enumerate(mine, 1):
            t.tid = f"{VARIANT_PREFIX[variant]}-{year}-{n:04d}"
    return plan


def _draw_entrants(
    rng: random.Random, t: _Tournament, players: list[_Player], twin: _Tournament | None
) -> None:
    year = t.start.year

    def eligible(p: _Player) -> bool:
        return (
            t.variant in p.variants
            and p.debut <= t.start
            and (p.country != "ITA" or year in p.member_years)
        )

    chosen: list[_Player] = []
    if twin is not None:  # same weekend: part of the twin's field plays this one as well
        shared = [p for p in twin.entrants if eligible(p)]
        chosen = rng.sample(shared, min(len(shared), t.size // 3))
    pool = [p for p in players if eligible(p) and p not in chosen]
    # Weighted sampling without replacement (Efraimidis-Spirakis keys).
    keyed = sorted(pool, key=lambda p: rng.random() ** (1.0 / p.activity), reverse=True)
    chosen += keyed[: max(0, t.size - len(chosen))]
    if len(chosen) < 6:
        raise ValueError(f"too few players for a {t.variant} tournament on {t.start}")
    if len(chosen) < t.size:  # a small registry: fewer entrants than planned
        t.size = len(chosen)
        t.rounds = _round_robin_rounds(t.size) if t.size <= 10 else min(t.rounds, t.size - 1)
    t.entrants = sorted(chosen, key=lambda p: -p.strength[t.variant])  # seeding order


def _result(rng: random.Random, a: float, b: float) -> float:
    expected = 1.0 / (1.0 + 10 ** ((b - a) / 400))
    draw = min(DRAW_PEAK * 4 * expected * (1 - expected), 2 * min(expected, 1 - expected))
    u = rng.random()
    return 1.0 if u < expected - draw / 2 else 0.5 if u < expected + draw / 2 else 0.0


def _play(rng: random.Random, t: _Tournament) -> list[tuple]:
    """Rows (round, player, opponent, result, status) of one tournament."""
    win, half, loss = SCALE_RESULTS["fid"] if t.scale == "fid" else ("1", t.half, "0")
    text = {1.0: win, 0.5: half, 0.0: loss}
    people = list(t.entrants)
    round_robin = len(people) <= 10
    leaver = rng.choice(people) if t.rounds >= 4 and rng.random() < 0.2 else None
    leaves_after = rng.randint(1, t.rounds - 2) if leaver else t.rounds  # last round played
    score = {p.player_id: 0.0 for p in people}
    met: set[tuple[str, str]] = set()
    had_bye: list[_Player] = []
    rows: list[tuple] = []
    circle: list[_Player | None] = [*people, None] if len(people) % 2 else list(people)
    for rnd in range(1, t.rounds + 1):
        if round_robin:
            m = len(circle)
            pairs = [(circle[i], circle[m - 1 - i]) for i in range(m // 2)]
            circle = [circle[0], circle[-1], *circle[1:-1]]
        else:
            active = [p for p in people if p is not leaver or rnd <= leaves_after + 1]
            order = sorted(active, key=lambda p: (-score[p.player_id], rng.random()))
            pairs = []
            if len(order) % 2:
                fresh = [p for p in order if p not in had_bye and p is not leaver] or order
                pairs.append((fresh[-1], None))
                order.remove(fresh[-1])
            while order:
                a = order.pop(0)
                b = next((q for q in order if (a.player_id, q.player_id) not in met), order[0])
                order.remove(b)
                pairs.append((a, b))
        for a, b in pairs:
            if a is None or b is None:
                p = a or b
                if p is not None and not (p is leaver and rnd > leaves_after):
                    had_bye.append(p)
                    score[p.player_id] += 1
                    rows.append((rnd, p.player_id, None, win, "bye"))
                continue
            met.update({(a.player_id, b.player_id), (b.player_id, a.player_id)})
            if rng.random() < 0.5:
                a, b = b, a
            if leaver in (a, b) and rnd > leaves_after:
                present = b if a is leaver else a
                score[present.player_id] += 1
                rows.append((rnd, present.player_id, leaver.player_id, win, "withdrawn"))
                continue
            forfeit = rng.random() < FORFEIT_RATE
            points = (
                rng.choice((1.0, 0.0))
                if forfeit
                else _result(rng, a.strength[t.variant], b.strength[t.variant])
            )
            score[a.player_id] += points
            score[b.player_id] += 1 - points
            status = "forfeit" if forfeit else "played"
            rows.append((rnd, a.player_id, b.player_id, text[points], status))
    return rows


def generate_draughts_federation(
    seed: int = 2027,
    n_players: int = 600,
    first_year: int = 2021,
    last_year: int = 2022,
    tournaments_per_year: int = 40,
) -> DraughtsFederation:
    """The demo federation of ``first_year``..``last_year``; same arguments, same output."""
    if n_players < 60 or tournaments_per_year < 2 or last_year < first_year:
        raise ValueError("need at least 60 players, 2 tournaments a year and first <= last year")
    rng = random.Random(seed)
    players = _make_players(rng, n_players, first_year, last_year)
    snapshots = [_snapshot(players, y, y == last_year) for y in range(first_year, last_year + 1)]
    plan: list[_Tournament] = []
    for year in range(first_year, last_year + 1):
        year_plan = _plan_year(rng, year, tournaments_per_year)
        for t in year_plan:
            twin = year_plan[t.twin_of] if t.twin_of is not None else None
            _draw_entrants(rng, t, players, twin)
        plan += year_plan
    plan.sort(key=lambda t: t.tid)
    games = {
        f"{t.tid}.csv": pl.DataFrame(
            [(t.tid, *row) for row in _play(rng, t)], schema=GAME_SCHEMA, orient="row"
        )
        for t in plan
    }
    received: dict[str, date | None] = {t.tid: t.delivered for t in plan}
    # The deliberate faults, on three distinct tournaments.
    bad_scale, unknown, no_receipt = rng.sample(plan, 3)
    faults: dict[str, str] = {}
    off_scale = "3" if bad_scale.scale == "fid" else "2"
    for t, column, value in (
        (bad_scale, "result", off_scale),
        (unknown, "opponent_id", UNKNOWN_PLAYER_ID),
    ):
        frame = games[f"{t.tid}.csv"].with_row_index("i")
        target = rng.choice(frame.filter(pl.col("status") == "played")["i"].to_list())
        frame = frame.with_columns(
            pl.when(pl.col("i") == target)
            .then(pl.lit(value))
            .otherwise(pl.col(column))
            .alias(column)
        )
        games[f"{t.tid}.csv"] = frame.drop("i")
        faults[t.tid] = (
            f"result {value!r} is not on the {t.scale} scale ({'/'.join(SCALE_RESULTS[t.scale])})"
            if column == "result"
            else f"a game names player {value}, who is in no registry"
        )
    received[no_receipt.tid] = None  # its delivery folder is still the month it arrived
    faults[no_receipt.tid] = "received_on is missing in tournaments.csv"
    tournaments = pl.DataFrame(
        [
            (t.tid, t.variant, t.name, t.city, t.start, t.end, t.validity, received[t.tid],
             f"{t.tid}.csv", t.scale, t.delivered.strftime("%Y-%m"))
            for t in plan
        ],
        schema=TOURNAMENT_SCHEMA,
        orient="row",
    ).sort("start_date", "end_date", "tournament_id")  # fmt: skip
    entries = pl.DataFrame(
        [(t.tid, p.player_id) for t in plan for p in t.entrants], schema=ENTRY_SCHEMA, orient="row"
    )
    return DraughtsFederation(seed, snapshots, tournaments, games, entries, faults)
