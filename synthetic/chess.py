"""A deterministic demo federation: registry snapshots, an opening Elo Italia list, and one
season of tournament deliveries (TRF files + manifests), with a few deliberate faults.

Every date derives from the season year (``SeasonDates``): registry snapshots on 1 January and
1 July, the opening Elo Italia list of 1 January, and the tournaments received from 16 December
of the year before to 15 December, i.e. the four quarterly periods whose cut-offs are 15 Mar,
15 Jun, 15 Sep and 15 Dec. The default season is 2019, when the FSI still computed Elo Italia:
it stopped with the list of 2021-01-01 (K = 0 from then on, ``data/rules/elo_italia.toml``), so
a later season would show no rating change at all.

Pure: everything is built in memory from one seed (``random.Random``) and one season;
``synthetic/demo_files.py`` writes it to disk. This is test data, not rating rules, so plain Python
loops are used freely. Everything is ASCII so byte columns and character columns of the TRF
files coincide whatever encoding a reader assumes. Determinism rests on never iterating a set
or dict of strings to make a random choice (string hashing is salted per process): only lists
and int sets are iterated.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

import polars as pl

from synthetic.trf_writer import RESULT_SCORES, TrfHeader, render_trf

DEFAULT_SEED = 2027  # a seed, not a year
# A season while Elo Italia still moved: the FSI froze it from the list of 2021-01-01 (K = 0).
DEFAULT_SEASON = 2019
# Four-digit years everywhere: birth dates reach 86 years before the season, and the July
# snapshot holds memberships of the year after it.
MIN_SEASON, MAX_SEASON = 1900, 9998

# The demo's file formats, fixed: columns of the documented input formats, in their order. They
# are spelled out rather than read from the specs so that an optional column added to a spec
# (read as null when a file lacks it) does not change the demo's files; a test checks that every
# column is in its spec and that every required field of the spec is written.
PLAYER_COLUMNS: tuple[str, ...] = (
    "player_id", "name", "sex", "birth_date", "country",
    "fide_id", "fide_standard", "fide_rapid", "category", "k_override",
)  # fmt: skip
MANIFEST_COLUMNS: tuple[str, ...] = (
    "tournament_id", "file", "system", "received_on",
    "start_date", "end_date", "time_control", "arbiter_ratings",
)  # fmt: skip
ELO_LIST_COLUMNS: tuple[str, ...] = (
    "player_id",
    "rating",
    "games",
    "k",
    "category",
    "last_played",
)
TRF_NAME_WIDTH = 33

# Category ladder, lowest first; categories only ever move up this list.
CATEGORY_ORDER: tuple[str, ...] = ("NC", "2S", "1S", "3N", "2N", "1N", "CM", "M")
# Theoretical rating by category (RULES 1.2), used to seed unrated newcomers.
THEORETICAL_RATING: dict[str, int] = {
    "M": 2200,
    "CM": 2000,
    "1N": 1800,
    "2N": 1600,
    "3N": 1500,
    "1S": 1480,
    "2S": 1460,
    "NC": 1440,
}

SURNAMES: tuple[str, ...] = (
    "Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci",
    "Marino", "Greco", "Bruno", "Gallo", "Conti", "De Luca", "Mancini", "Costa",
    "Giordano", "Rizzo", "Lombardi", "Moretti", "Barbieri", "Fontana", "Santoro", "Mariani",
    "Rinaldi", "Caruso", "Ferrara", "Galli", "Martini", "Leone", "Longo", "Gentile",
    "Martinelli", "Vitale", "Lombardo", "Serra", "Coppola", "De Santis", "D'Angelo", "Marchetti",
    "Parisi", "Villa", "Conte", "Ferraro", "Ferri", "Fabbri", "Bianco", "Marini",
    "Grasso", "Valentini", "Messina", "Sala", "De Angelis", "Gatti", "Pellegrini", "Palumbo",
    "Sanna", "Farina", "Rizzi", "Monti", "Cattaneo", "Morelli", "Amato", "Silvestri",
    "Mazza", "Testa", "Dell'Acqua", "Pellegrino", "Carbone", "Giuliani", "Benedetti", "Barone",
    "Rossetti", "Caputo", "Montanari", "Guerra", "Palmieri", "Bernardi", "Martino", "Fiore",
    "Quaranta", "Bonaccorsi", "Sartori", "Tedeschi",
)  # fmt: skip
MALE_NAMES: tuple[str, ...] = (
    "Marco", "Giuseppe", "Giovanni", "Antonio", "Mario", "Luigi", "Francesco", "Andrea",
    "Alessandro", "Paolo", "Stefano", "Roberto", "Luca", "Massimo", "Fabio", "Davide",
    "Matteo", "Lorenzo", "Simone", "Riccardo", "Federico", "Giorgio", "Claudio", "Sergio",
    "Enrico", "Michele", "Alberto", "Daniele", "Nicola", "Filippo", "Tommaso", "Gabriele",
    "Emanuele", "Pietro", "Salvatore", "Vincenzo", "Carlo", "Franco", "Bruno", "Gianluca",
    "Alessio", "Edoardo", "Leonardo", "Mattia", "Diego", "Samuele", "Cristian", "Raffaele",
    "Ivan", "Dario", "Valerio", "Giacomo", "Umberto", "Ettore", "Guido", "Renato",
    "Alfredo", "Maurizio", "Fausto", "Ottavio",
)  # fmt: skip
FEMALE_NAMES: tuple[str, ...] = (
    "Maria", "Anna", "Giulia", "Francesca", "Sara", "Laura", "Chiara", "Valentina",
    "Alessandra", "Elena", "Federica", "Silvia", "Martina", "Paola", "Roberta", "Elisa",
    "Giorgia", "Sofia", "Aurora", "Alice", "Ginevra", "Beatrice", "Emma", "Greta",
    "Camilla", "Irene", "Marta", "Claudia", "Simona", "Monica", "Cristina", "Barbara",
    "Daniela", "Patrizia", "Lucia", "Teresa", "Rita", "Angela", "Caterina", "Ilaria",
    "Noemi", "Arianna", "Veronica", "Eleonora", "Rebecca", "Bianca", "Serena", "Marina",
    "Luisa", "Carla", "Gabriella", "Stefania", "Manuela", "Rosa", "Agnese", "Vittoria",
    "Ludovica", "Nicole", "Miriam", "Tiziana",
)  # fmt: skip
# Surnames, male given names, female given names of the countries seen in the demo.
FOREIGN_NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "FRA": (
        ("Martin", "Bernard", "Dubois", "Durand", "Leroy", "Moreau", "Laurent", "Girard"),
        ("Pierre", "Nicolas", "Julien", "Antoine", "Olivier", "Thibault"),
        ("Marie", "Camille", "Claire", "Julie"),
    ),
    "SUI": (
        ("Mueller", "Meier", "Schmid", "Keller", "Weber", "Huber", "Baumann", "Brunner"),
        ("Lukas", "Reto", "Urs", "Beat", "Noah", "Jonas"),
        ("Anna", "Laura", "Sandra", "Nadine"),
    ),
    "SLO": (
        ("Novak", "Horvat", "Krajnc", "Kovacic", "Zupancic", "Potocnik", "Mlakar", "Kos"),
        ("Luka", "Matej", "Jan", "Rok", "Ziga", "Jure"),
        ("Nina", "Maja", "Eva", "Spela"),
    ),
    "AUT": (
        ("Gruber", "Bauer", "Wagner", "Pichler", "Steiner", "Moser", "Mayer", "Hofer"),
        ("Florian", "Stefan", "Markus", "Andreas", "Tobias"),
        ("Katharina", "Lisa", "Julia"),
    ),
    "CRO": (
        ("Kovacevic", "Babic", "Maric", "Juric", "Knezevic", "Vukovic", "Matic", "Pavlovic"),
        ("Ivan", "Marko", "Josip", "Ante", "Tomislav"),
        ("Ana", "Ivana", "Petra"),
    ),
    "ROU": (
        ("Popescu", "Ionescu", "Popa", "Dumitru", "Munteanu", "Stoica", "Rusu", "Matei"),
        ("Andrei", "Mihai", "Ionut", "Alexandru", "Florin"),
        ("Elena", "Ioana", "Mihaela"),
    ),
    "ALB": (
        ("Hoxha", "Shehu", "Gashi", "Krasniqi", "Berisha", "Dervishi", "Leka", "Kola"),
        ("Arben", "Besnik", "Ilir", "Erion", "Gentian"),
        ("Elira", "Jonida", "Anila"),
    ),
    "UKR": (
        ("Shevchenko", "Bondarenko", "Kovalenko", "Tkachenko", "Melnyk", "Boyko", "Oliynyk"),
        ("Oleksandr", "Andriy", "Dmytro", "Serhiy", "Vitaliy"),
        ("Olena", "Iryna", "Oksana"),
    ),
    "ARG": (
        ("Gonzalez", "Rodriguez", "Fernandez", "Lopez", "Martinez", "Perez", "Gomez", "Diaz"),
        ("Juan", "Diego", "Martin", "Pablo", "Santiago"),
        ("Lucia", "Sofia", "Valentina"),
    ),
}
RESIDENT_COUNTRIES: tuple[str, ...] = ("ROU", "ALB", "UKR", "ARG", "FRA", "SUI", "CRO")
GUEST_COUNTRIES: tuple[str, ...] = ("FRA", "SUI", "SLO", "AUT", "CRO")
CITIES: tuple[str, ...] = (
    "Milano", "Roma", "Torino", "Napoli", "Bologna", "Firenze", "Genova", "Venezia",
    "Verona", "Padova", "Trieste", "Bergamo", "Brescia", "Parma", "Modena", "Pisa",
    "Perugia", "Ancona", "Pescara", "Bari", "Lecce", "Palermo", "Catania", "Cagliari",
    "Trento", "Bolzano", "Udine", "Novara", "Rimini", "Livorno", "Salerno", "Arco",
)  # fmt: skip
ARBITERS: tuple[str, ...] = (
    "AI Paolo Ferrante", "AF Giulia Sereni", "AN Marco Tessitore", "AI Luisa Brambilla",
    "AN Giorgio Avanzi", "AF Stefano Guarnieri", "AR Carla Menotti", "AN Franco Zanardi",
)  # fmt: skip
STANDARD_TIME_CONTROLS: tuple[str, ...] = (
    "90 min + 30 s",
    "90 min/40 moves + 30 min + 30 s",
    "120 min",
    "120 min + 30 s",
)
RAPID_TIME_CONTROLS: tuple[str, ...] = ("15 min + 10 s", "25 min", "20 min + 5 s", "30 min + 15 s")


# --------------------------------------------------------------------------------------------
# Public results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeasonDates:
    """Every date of one demo season, derived from its year alone."""

    season: int

    def __post_init__(self) -> None:
        if isinstance(self.season, bool) or not isinstance(self.season, int):
            raise TypeError(f"season must be an int year, not {self.season!r}")
        if not MIN_SEASON <= self.season <= MAX_SEASON:
            raise ValueError(f"season must be a year from {MIN_SEASON} to {MAX_SEASON}")

    @property
    def snapshot_dates(self) -> tuple[date, date]:
        """The two registry snapshots: 1 January and 1 July of the season."""
        return date(self.season, 1, 1), date(self.season, 7, 1)

    @property
    def opening_list_date(self) -> date:
        """The Elo Italia list the season starts from: 1 January."""
        return date(self.season, 1, 1)

    @property
    def quarters(self) -> tuple[tuple[date, date], ...]:
        """Receipt windows (first, last day) of the four periods, cut-offs 15 Mar/Jun/Sep/Dec."""
        y = self.season
        return (
            (date(y - 1, 12, 16), date(y, 3, 15)),
            (date(y, 3, 16), date(y, 6, 15)),
            (date(y, 6, 16), date(y, 9, 15)),
            (date(y, 9, 16), date(y, 12, 15)),
        )

    @property
    def membership_years(self) -> tuple[int, ...]:
        """Membership years in the January snapshot: the season and the two before it."""
        return self.season - 2, self.season - 1, self.season

    @property
    def next_season(self) -> int:
        """The July snapshot already holds the renewals for next season, otherwise nobody would
        be a member in good standing at the list of 1 January after the season (read from that
        snapshot)."""
        return self.season + 1

    def quarter_of(self, received_on: date) -> int:
        """0-based index of the season's period a receipt date falls in."""
        for i, (first, last) in enumerate(self.quarters):
            if first <= received_on <= last:
                return i
        raise ValueError(f"{received_on} outside the receipt windows of season {self.season}")


@dataclass(frozen=True)
class RegistrySnapshot:
    as_of: date
    players: pl.DataFrame
    memberships: pl.DataFrame


@dataclass(frozen=True)
class DemoTournament:
    """One delivered tournament: what the manifest says, the TRF text, and the ground truth.

    ``players``/``games`` are the truth the file was rendered from (extra columns: player_id,
    origin, pairing_rating, arbiter_rating; score and played per game). For the deliberately
    corrupt tournament the TRF text differs from the truth.
    """

    tournament_id: str
    system: str
    kind: str  # "swiss" or "round_robin"
    name: str
    city: str
    start_date: date
    end_date: date
    received_on: date | None  # as written in the manifest; None = deliberately missing
    delivered_on: date  # when the file really arrived (= received_on unless that is missing)
    delivery: str  # folder name, month of receipt "YYYY-MM"
    file: str
    time_control: str
    rounds: int
    arbiter_ratings: str
    has_national_lines: bool
    players: pl.DataFrame
    games: pl.DataFrame
    trf: str
    fault: str | None = None  # why the pipeline must refuse it, when it must


@dataclass(frozen=True)
class DemoFederation:
    seed: int
    season: int
    snapshots: tuple[RegistrySnapshot, ...]
    elo_italia: pl.DataFrame  # opening list at dates.opening_list_date
    tournaments: tuple[DemoTournament, ...]

    @property
    def dates(self) -> SeasonDates:
        return SeasonDates(self.season)

    def snapshot(self, as_of: date) -> RegistrySnapshot:
        return next(s for s in self.snapshots if s.as_of == as_of)

    def manifests(self) -> dict[str, pl.DataFrame]:
        """Delivery folder -> manifest frame (all columns strings, empty value = null)."""
        rows: dict[str, list[dict[str, str | None]]] = {}
        for t in self.tournaments:
            rows.setdefault(t.delivery, []).append(
                {
                    "tournament_id": t.tournament_id,
                    "file": t.file,
                    "system": t.system,
                    "received_on": t.received_on.isoformat() if t.received_on else None,
                    "start_date": t.start_date.isoformat(),
                    "end_date": t.end_date.isoformat(),
                    "time_control": t.time_control,
                    "arbiter_ratings": t.arbiter_ratings or None,
                }
            )
        schema = dict.fromkeys(MANIFEST_COLUMNS, pl.String)
        return {k: pl.DataFrame(rows[k], schema=schema) for k in sorted(rows)}

    @property
    def faults(self) -> dict[str, str]:
        """tournament_id -> reason, for every tournament the pipeline must reject."""
        return {t.tournament_id: t.fault for t in self.tournaments if t.fault}


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@dataclass
class _Rated:
    """What can change between snapshots."""

    fide_id: str | None
    fide_standard: int | None
    fide_rapid: int | None
    category: str


@dataclass
class _Player:
    player_id: str
    name: str
    sex: str
    birth_date: date
    country: str
    strength: float  # hidden playing strength that drives results
    activity: float  # relative chance of entering a tournament
    elo_italia: int | None  # rating in the opening list, if any
    games_before: int
    k_override: int | None
    title: str | None
    years: list[int]
    snap: dict[date, _Rated] = field(default_factory=dict)


def _gauss_int(rng: random.Random, mu: float, sigma: float, lo: int, hi: int) -> int:
    # Resample rather than clip, so the bounds do not become spikes.
    for _ in range(50):
        x = rng.gauss(mu, sigma)
        if lo <= x <= hi:
            return round(x)
    return round(min(max(mu, lo), hi))


def _category_from_rating(rating: int, rng: random.Random | None) -> str:
    if rating >= 2200:
        # M needs norms too: only some strong players hold it.
        return "M" if rng is not None and rng.random() < 0.35 else "CM"
    for threshold, cat in ((2000, "CM"), (1800, "1N"), (1600, "2N"), (1500, "3N")):
        if rating >= threshold:
            return cat
    if rng is None:
        return "NC"
    if rating >= 1480:
        return "1S"
    if rating >= 1460:
        return "2S"
    return rng.choices(("NC", "2S", "1S"), weights=(55, 30, 15))[0]


def _higher(a: str, b: str) -> str:
    return a if CATEGORY_ORDER.index(a) >= CATEGORY_ORDER.index(b) else b


def _fide_title(rating: int, rng: random.Random) -> str | None:
    if rating >= 2480 and rng.random() < 0.5:
        return "GM"
    if rating >= 2380 and rng.random() < 0.6:
        return "IM"
    if rating >= 2300:
        return "FM"
    if rating >= 2200 and rng.random() < 0.3:
        return "CM"
    return None


class _NameBook:
    """Unique "Surname, Given" names that fit the TRF name field."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        # Zipf-like weights: a few surnames are very common, as in a real registry, which is
        # what makes second given names necessary.
        self.surname_weights = [1.0 / (i + 4) for i in range(len(SURNAMES))]

    def _pick(
        self, surnames: Sequence[str], given: Sequence[str], weights: Sequence[float] | None
    ) -> str:
        rng = self.rng
        for _ in range(200):
            surname = rng.choices(surnames, weights=weights)[0] if weights else rng.choice(surnames)
            first = rng.choice(given)
            name = f"{surname}, {first}"
            if name in self.used:
                second = rng.choice(given)
                if second == first:
                    continue
                name = f"{surname}, {first} {second}"
            if name not in self.used and len(name) <= TRF_NAME_WIDTH:
                self.used.add(name)
                return name
        raise RuntimeError("name space exhausted")

    def italian(self, sex: str) -> str:
        given = MALE_NAMES if sex == "M" else FEMALE_NAMES
        return self._pick(SURNAMES, given, self.surname_weights)

    def foreign(self, country: str, sex: str) -> str:
        surnames, male, female = FOREIGN_NAMES[country]
        return self._pick(surnames, male if sex == "M" else female, None)


def _birth_date(rng: random.Random, youth_share: float, as_of: date) -> date:
    """A birth date, ages taken on ``as_of``."""
    youth = rng.random() < youth_share
    age = rng.uniform(8.0, 18.0) if youth else rng.triangular(18.0, 85.0, 42.0)
    return as_of - timedelta(days=int(age * 365.25))


def _membership_years(rng: random.Random, first_year: int, season: int) -> list[int]:
    years = [first_year]
    member = True
    for year in range(first_year + 1, season + 1):
        # ~85 % renew; a lapsed member sometimes comes back.
        member = rng.random() < (0.85 if member else 0.25)
        if member:
            years.append(year)
    return years


def _new_player(
    rng: random.Random,
    names: _NameBook,
    player_id: str,
    fide_ids: Iterator[str],
    dates: SeasonDates,
    *,
    newcomer_bias: float,
    first_year: int | None = None,
) -> _Player:
    sex = "F" if rng.random() < 0.12 else "M"
    country = "ITA" if rng.random() < 0.965 else rng.choice(RESIDENT_COUNTRIES)
    name = names.italian(sex) if country == "ITA" else names.foreign(country, sex)
    birth = _birth_date(rng, 0.22, dates.opening_list_date)
    age = (dates.opening_list_date - birth).days / 365.25
    youth = age < 18
    fide_registered = rng.random() < (0.2 if youth else 0.40)
    fide_std: int | None = None
    fide_rapid: int | None = None
    elo: int | None = None
    games_before = 0
    title: str | None = None
    if fide_registered and rng.random() < 0.88:
        # A small strong tail (masters, titled players) on top of the club-player bulk.
        if youth:
            # Children improve with age: an 8-year-old rarely stands far above the FIDE floor.
            fide_std = _gauss_int(rng, 1380 + 30 * (age - 8), 150, 1400, 2400)
        elif rng.random() < 0.08:
            fide_std = _gauss_int(rng, 2150, 170, 1400, 2500)
        else:
            fide_std = _gauss_int(rng, 1650, 190, 1400, 2500)
        strength = fide_std + rng.gauss(60 if youth else 0, 50)
        title = _fide_title(fide_std, rng)
        if rng.random() < 0.72:
            fide_rapid = _gauss_int(rng, fide_std - 20, 90, 1400, 2500)
        category = _category_from_rating(fide_std + rng.randint(0, 50), rng)
        experienced = True
    else:
        experienced = rng.random() < (0.72 if youth else 0.92) - newcomer_bias
        if experienced:
            elo = _gauss_int(rng, 1130 + 25 * (age - 8) if youth else 1430, 170, 1000, 2150)
            strength = elo + rng.gauss(80 if youth else 0, 70)
            category = _category_from_rating(elo + rng.randint(0, 40), rng)
            games_before = 1 + int(rng.expovariate(1 / 90))
        else:
            strength = float(_gauss_int(rng, 1200 if youth else 1360, 180, 850, 1950))
            category = rng.choices(("NC", "2S", "1S"), weights=(85, 10, 5))[0]
        if fide_registered and rng.random() < 0.5:
            fide_rapid = _gauss_int(rng, 1480, 70, 1400, 1800)
    if first_year is None:
        two_before, last_year, season = dates.membership_years
        first_year = (
            rng.choices((two_before, last_year), weights=(85, 15))[0] if experienced else season
        )
        if not experienced and rng.random() < 0.3:
            first_year = last_year  # registered, never played a rated game yet
    # Regulars play much more than occasional players (heavy tail: a few play every month).
    activity = min(rng.paretovariate(1.6), 12.0) * (1.0 if experienced else 0.9)
    return _Player(
        player_id=player_id,
        name=name,
        sex=sex,
        birth_date=birth,
        country=country,
        strength=strength,
        activity=activity,
        elo_italia=elo,
        games_before=games_before,
        k_override=None,
        title=title,
        years=_membership_years(rng, first_year, dates.season),
        snap={
            dates.snapshot_dates[0]: _Rated(
                next(fide_ids) if fide_registered else None, fide_std, fide_rapid, category
            )
        },
    )


def _build_registry(
    rng: random.Random, n_players: int, n_new_in_july: int, dates: SeasonDates
) -> tuple[list[_Player], list[_Player], _NameBook]:
    names = _NameBook(rng)
    total = n_players + n_new_in_july
    ids = [str(i) for i in sorted(rng.sample(range(100_000, 400_000), total))]
    fide_ids = iter([str(x) for x in rng.sample(range(81_000_000, 89_999_999), total + 200)])
    players = [
        _new_player(rng, names, ids[i], fide_ids, dates, newcomer_bias=0.0)
        for i in range(n_players)
    ]
    # Older members hold lower numbers: order by first membership year before handing out ids.
    players.sort(key=lambda p: (p.years[0], p.birth_date))
    for p, pid in zip(players, ids[:n_players], strict=True):
        p.player_id = pid
    new_players = [
        _new_player(
            rng,
            names,
            ids[n_players + i],
            fide_ids,
            dates,
            newcomer_bias=1.0,
            first_year=dates.season,
        )
        for i in range(n_new_in_july)
    ]
    jan, jul = dates.snapshot_dates
    for p in rng.sample(players, 6):
        p.k_override = rng.choice((10, 20, 40))
    # New registrants appear only in the July snapshot.
    for p in new_players:
        p.snap = {jul: p.snap.pop(jan)}
    _drift_to_july(rng, players, fide_ids, dates)
    return players, new_players, names


def _drift_to_july(
    rng: random.Random, players: list[_Player], fide_ids: Iterator[str], dates: SeasonDates
) -> None:
    jan, jul = dates.snapshot_dates
    for p in players:
        r = p.snap[jan]
        p.snap[jul] = _Rated(r.fide_id, r.fide_standard, r.fide_rapid, r.category)
    rated = [p for p in players if p.snap[jan].fide_standard is not None]
    for p in rated:
        youth = (jul - p.birth_date).days < 18 * 365.25
        j = p.snap[jul]
        assert j.fide_standard is not None
        j.fide_standard = max(1400, round(j.fide_standard + rng.gauss(25 if youth else 0, 25)))
        if j.fide_rapid is not None:
            j.fide_rapid = max(1400, round(j.fide_rapid + rng.gauss(0, 35)))
        derived = _category_from_rating(j.fide_standard, None)
        j.category = _higher(j.category, derived)
    # Two weak FIDE players fall off the FIDE list (they keep their FIDE id).
    for p in sorted(rated, key=lambda p: (p.snap[jan].fide_standard, p.player_id))[:2]:
        p.snap[jul].fide_standard = None
    # Some players earn a first FIDE rating; most were already FIDE-registered.
    candidates = [p for p in players if p.snap[jan].fide_standard is None and p.strength >= 1450]
    for p in rng.sample(candidates, min(25, len(candidates))):
        j = p.snap[jul]
        if j.fide_id is None:
            j.fide_id = next(fide_ids)
        j.fide_standard = max(1400, round(p.strength + rng.gauss(0, 40)))
        j.category = _higher(j.category, _category_from_rating(j.fide_standard, None))
    # A few social categories earned at club events.
    for p in rng.sample(players, 30):
        j = p.snap[jul]
        if j.category in ("NC", "2S"):
            j.category = CATEGORY_ORDER[CATEGORY_ORDER.index(j.category) + 1]


def _registry_frames(
    players: list[_Player], as_of: date, years: tuple[int, ...]
) -> RegistrySnapshot:
    rows = []
    member_rows = []
    for p in players:
        if as_of not in p.snap:
            continue
        r = p.snap[as_of]
        rows.append(
            {
                "player_id": p.player_id,
                "name": p.name,
                "sex": p.sex,
                "birth_date": p.birth_date,
                "country": p.country,
                "fide_id": r.fide_id,
                "fide_standard": r.fide_standard,
                "fide_rapid": r.fide_rapid,
                "category": r.category,
                "k_override": p.k_override,
            }
        )
        member_rows += [{"player_id": p.player_id, "year": y} for y in p.years if y in years]
    schema = {
        "player_id": pl.String,
        "name": pl.String,
        "sex": pl.String,
        "birth_date": pl.Date,
        "country": pl.String,
        "fide_id": pl.String,
        "fide_standard": pl.Int64,
        "fide_rapid": pl.Int64,
        "category": pl.String,
        "k_override": pl.Int64,
    }
    return RegistrySnapshot(
        as_of=as_of,
        players=pl.DataFrame(rows, schema=schema).sort("player_id"),
        memberships=pl.DataFrame(
            member_rows, schema={"player_id": pl.String, "year": pl.Int64}
        ).sort(["player_id", "year"]),
    )


def _k_for(p: _Player) -> int:
    # The default K schedule of RULES 1.4, recorded as the list would carry it.
    if p.k_override is not None:
        return p.k_override
    if p.games_before < 30:
        return 30
    return 10 if (p.elo_italia or 0) >= 2400 else 15


def _opening_list(players: list[_Player], dates: SeasonDates) -> pl.DataFrame:
    # Read against the January snapshot, which is as of the list date.
    jan = dates.snapshot_dates[0]
    rows = [
        {
            "player_id": p.player_id,
            "rating": p.elo_italia,
            "games": p.games_before,
            "k": _k_for(p),
            "category": p.snap[jan].category,
            # spread over the season before, so the opening list has active and inactive players
            "last_played": date(jan.year - 1 - int(p.player_id) % 3, 1 + int(p.player_id) % 12, 15),
        }
        for p in players
        if p.elo_italia is not None and p.snap[jan].fide_standard is None
    ]
    schema = {
        "player_id": pl.String,
        "rating": pl.Int64,
        "games": pl.Int64,
        "k": pl.Int64,
        "category": pl.String,
        "last_played": pl.Date,
    }
    return pl.DataFrame(rows, schema=schema).sort("player_id")


# --------------------------------------------------------------------------------------------
# Tournament simulation
# --------------------------------------------------------------------------------------------


@dataclass
class _Entrant:
    name: str
    sex: str
    federation: str
    birth_date: date | None
    strength: float
    pairing_rating: int
    rating: int | None  # the 001 rating field
    fide_id: str | None
    title: str | None
    origin: str  # registry, foreign, unregistered
    player_id: str | None = None
    national_rating: int | None = None
    classification: str | None = None
    arbiter_rating: int | None = None


@dataclass
class _Guest:
    name: str
    sex: str
    federation: str
    birth_date: date | None
    strength: float
    fide_id: str | None
    fide_rating: int | None


def _guests(
    rng: random.Random, names: _NameBook, fide_ids: list[str], dates: SeasonDates
) -> list[_Guest]:
    guests = []
    for i in range(40):
        country = GUEST_COUNTRIES[i % len(GUEST_COUNTRIES)]
        sex = "F" if rng.random() < 0.15 else "M"
        has_fide = rng.random() < 0.6
        strength = float(_gauss_int(rng, 1850 if has_fide else 1550, 200, 1100, 2450))
        birth = _birth_date(rng, 0.1, dates.opening_list_date) if rng.random() < 0.7 else None
        guests.append(
            _Guest(
                name=names.foreign(country, sex),
                sex=sex,
                federation=country,
                birth_date=birth,
                strength=strength,
                fide_id=fide_ids[i] if has_fide else None,
                fide_rating=max(1400, round(strength + rng.gauss(0, 40))) if has_fide else None,
            )
        )
    return guests


def _unregistered(rng: random.Random, names: _NameBook, dates: SeasonDates) -> list[_Guest]:
    out = []
    for _ in range(25):
        sex = "F" if rng.random() < 0.12 else "M"
        out.append(
            _Guest(
                name=names.italian(sex),
                sex=sex,
                federation="ITA",
                birth_date=_birth_date(rng, 0.3, dates.opening_list_date),
                strength=float(_gauss_int(rng, 1400, 180, 900, 2000)),
                fide_id=None,
                fide_rating=None,
            )
        )
    return out


def _expected(a: float, b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((b - a) / 400.0))


def _play(rng: random.Random, sa: float, sb: float, rapid: bool) -> tuple[str, str]:
    e = _expected(sa, sb)
    # Draws are most frequent between equals and rarer in rapid play.
    draw = max(0.04, 0.34 - 0.6 * abs(e - 0.5)) * (0.75 if rapid else 1.0)
    win = max(0.0, e - draw / 2)
    u = rng.random()
    if u < win:
        return "1", "0"
    if u < win + draw:
        return "=", "="
    return "0", "1"


def _colours(a: int, b: int, history: dict[int, list[str]], board: int) -> tuple[str, str]:
    ha, hb = history[a], history[b]
    da = ha.count("w") - ha.count("b")
    db = hb.count("w") - hb.count("b")
    if da != db:
        return ("w", "b") if da < db else ("b", "w")
    la = ha[-1] if ha else None
    lb = hb[-1] if hb else None
    if la != lb:
        if la == "b" or lb == "w":
            return "w", "b"
        return "b", "w"
    if la is None:
        # Round one: colours alternate down the boards.
        return ("w", "b") if board % 2 == 0 else ("b", "w")
    # Same history: the higher-ranked player gets his alternating colour.
    return ("b", "w") if la == "w" else ("w", "b")


def _pair(
    order: list[int], opponents: dict[int, set[int]], score: dict[int, float]
) -> list[tuple[int, int]] | None:
    """Greedy Dutch-like pairing with backtracking: never a rematch.

    The top remaining player of a score group meets the player half a group below him (1-5,
    2-6 ... in a group of 8); odd players float down. A step budget keeps worst cases bounded:
    the caller then re-simulates the tournament.
    """
    budget = [4000]

    def rec(rem: list[int]) -> list[tuple[int, int]] | None:
        if not rem:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        p = rem[0]
        same = [q for q in rem if score[q] == score[p]]
        half = len(same) // 2
        lower = [q for q in rem if score[q] != score[p]]
        for q in same[half:] + same[1:half] + lower:
            if q == p or q in opponents[p]:
                continue
            rest = [x for x in rem if x != p and x != q]
            sub = rec(rest)
            if sub is not None:
                return [(p, q), *sub]
        return None

    return rec(order)


@dataclass
class _Sim:
    n: int
    rounds: int
    rapid: bool
    games: list[dict[str, object]] = field(default_factory=list)
    score: dict[int, float] = field(default_factory=dict)
    opponents: dict[int, set[int]] = field(default_factory=dict)
    history: dict[int, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for s in range(1, self.n + 1):
            self.score[s] = 0.0
            self.opponents[s] = set()
            self.history[s] = []

    def record(self, s: int, rnd: int, opp: int, colour: str, code: str) -> None:
        self.games.append(
            {
                "start_number": s,
                "round": rnd,
                "opponent": opp,
                "color": colour,
                "result_code": code,
                "score": RESULT_SCORES[code],
                "played": code in ("1", "=", "0"),
            }
        )
        self.score[s] += RESULT_SCORES[code]
        if opp:
            self.opponents[s].add(opp)
            self.history[s].append(colour)

    def game(
        self, rng: random.Random, rnd: int, a: int, b: int, board: int, ents: list[_Entrant]
    ) -> None:
        ca, cb = _colours(a, b, self.history, board)
        if rng.random() < 0.008:
            # Forfeit: one of the two did not show up.
            ra, rb = ("+", "-") if rng.random() < 0.5 else ("-", "+")
        else:
            ra, rb = _play(rng, ents[a - 1].strength, ents[b - 1].strength, self.rapid)
        self.record(a, rnd, b, ca, ra)
        self.record(b, rnd, a, cb, rb)


def _simulate_swiss(
    rng: random.Random, ents: list[_Entrant], rounds: int, rapid: bool, withdraw: bool
) -> _Sim | None:
    n = len(ents)
    sim = _Sim(n, rounds, rapid)
    rating = {s: ents[s - 1].pairing_rating for s in range(1, n + 1)}
    half_byes: set[tuple[int, int]] = set()
    if not rapid:
        for s in range(1, n + 1):
            if rng.random() < 0.08:
                half_byes.add((s, rng.randint(1, max(1, rounds - 2))))
    withdrawn_after = rounds + 1
    quitter = 0
    if withdraw:
        quitter = rng.randint(2, n)
        withdrawn_after = rng.randint(2, rounds - 2)
    had_bye: set[int] = set()
    for rnd in range(1, rounds + 1):
        active = []
        for s in range(1, n + 1):
            if s == quitter and rnd > withdrawn_after:
                sim.record(s, rnd, 0, "-", "Z")
            elif (s, rnd) in half_byes:
                sim.record(s, rnd, 0, "-", "H")
            else:
                active.append(s)
        order = sorted(active, key=lambda s: (-sim.score[s], -rating[s], s))
        pairs = None
        bye = 0
        if len(order) % 2:
            for cand in reversed(order):
                if cand in had_bye:
                    continue
                rest = [s for s in order if s != cand]
                pairs = _pair(rest, sim.opponents, sim.score)
                if pairs is not None:
                    bye = cand
                    break
        else:
            pairs = _pair(order, sim.opponents, sim.score)
        if pairs is None:
            return None
        for board, (a, b) in enumerate(pairs):
            sim.game(rng, rnd, a, b, board, ents)
        if bye:
            had_bye.add(bye)
            sim.record(bye, rnd, 0, "-", "U")
    return sim


def _simulate_round_robin(rng: random.Random, ents: list[_Entrant]) -> _Sim:
    n = len(ents)  # always even
    sim = _Sim(n, n - 1, rapid=False)
    circle = list(range(1, n + 1))
    for rnd in range(1, n):
        for board in range(n // 2):
            a, b = circle[board], circle[n - 1 - board]
            # Berger tables alternate colours so each player gets a balanced share.
            if (rnd + board) % 2:
                a, b = b, a
            sim.game(rng, rnd, a, b, 0, ents)
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return sim


def _frames(
    ents: list[_Entrant], sim: _Sim, blank_withdrawal: bool
) -> tuple[pl.DataFrame, pl.DataFrame]:
    order = sorted(
        range(1, len(ents) + 1),
        key=lambda s: (-sim.score[s], -ents[s - 1].pairing_rating, s),
    )
    rank = {s: i + 1 for i, s in enumerate(order)}
    rows = []
    for s, e in enumerate(ents, start=1):
        rows.append(
            {
                "start_number": s,
                "player_id": e.player_id,
                "origin": e.origin,
                "name": e.name,
                "sex": "w" if e.sex == "F" else "m",
                "title": e.title,
                "rating": e.rating,
                "federation": e.federation,
                "fide_id": e.fide_id,
                "birth_date": e.birth_date,
                "points": sim.score[s],
                "rank": rank[s],
                "national_id": e.player_id,
                "national_rating": e.national_rating,
                "classification": e.classification,
                "pairing_rating": e.pairing_rating,
                "arbiter_rating": e.arbiter_rating,
            }
        )
    players = pl.DataFrame(
        rows,
        schema={
            "start_number": pl.Int64,
            "player_id": pl.String,
            "origin": pl.String,
            "name": pl.String,
            "sex": pl.String,
            "title": pl.String,
            "rating": pl.Int64,
            "federation": pl.String,
            "fide_id": pl.String,
            "birth_date": pl.Date,
            "points": pl.Float64,
            "rank": pl.Int64,
            "national_id": pl.String,
            "national_rating": pl.Int64,
            "classification": pl.String,
            "pairing_rating": pl.Int64,
            "arbiter_rating": pl.Int64,
        },
    )
    games = pl.DataFrame(
        sim.games,
        schema={
            "start_number": pl.Int64,
            "round": pl.Int64,
            "opponent": pl.Int64,
            "color": pl.String,
            "result_code": pl.String,
            "score": pl.Float64,
            "played": pl.Boolean,
        },
    )
    if blank_withdrawal:
        # Some pairing programs leave the rounds after a withdrawal blank instead of writing Z.
        games = games.filter(pl.col("result_code") != "Z")
    return players, games.sort(["start_number", "round"])


@dataclass
class _Plan:
    quarter: int
    system: str
    kind: str
    received_on: date
    n_players: int
    rounds: int
    fault: str | None = None
    big: bool = False


def _snapshot_for(day: date, dates: SeasonDates) -> date:
    """The registry snapshot in force on ``day`` (the first one for days before it)."""
    snapshots = dates.snapshot_dates
    past = [s for s in snapshots if s <= day]
    return past[-1] if past else snapshots[0]


def _plan_tournaments(
    rng: random.Random, per_quarter: tuple[int, int], dates: SeasonDates
) -> list[_Plan]:
    plans = []
    quarters = dates.quarters
    for q, (first, last) in enumerate(quarters):
        span = (last - first).days
        for j in range(rng.randint(*per_quarter)):
            if j == 0:
                system = "elo_italia"
            elif j == 1:
                system = "elo_rapid"
            else:
                system = "elo_rapid" if rng.random() < 0.3 else "elo_italia"
            received = first + timedelta(days=rng.randint(0, span))
            if system == "elo_rapid":
                kind = "swiss"
                rounds = rng.choice((6, 7, 7, 8, 9))
                n = min(120, 14 + int(rng.expovariate(1 / 22)))
            elif rng.random() < 0.18:
                kind = "round_robin"
                n = rng.choice((6, 8, 8, 10))
                rounds = n - 1
            else:
                kind = "swiss"
                rounds = rng.choices((5, 6, 7, 8, 9), weights=(3, 2, 3, 1, 2))[0]
                n = min(120, max(10, 2 * rounds, 10 + int(rng.expovariate(1 / 24))))
            plans.append(_Plan(q, system, kind, received, n, rounds))
    by_quarter = [[p for p in plans if p.quarter == q] for q in range(len(quarters))]
    # Deliberate faults, each in its own quarter and delivery, so the demo shows rejections.
    q2_rapid, q3_rapid = by_quarter[1][1], by_quarter[2][1]
    q2_rapid.n_players, q2_rapid.rounds = 13, 7
    q2_rapid.fault = "rapid tournament with 13 players (at least 14 required)"
    q3_rapid.n_players, q3_rapid.rounds = 20, 5
    q3_rapid.fault = "rapid tournament with 5 rounds (at least 6 required)"
    corrupt = by_quarter[1][0]
    corrupt.kind, corrupt.rounds, corrupt.n_players = "swiss", 6, max(corrupt.n_players, 16)
    corrupt.fault = "corrupt TRF: a round refers to a start number that does not exist"
    missing = by_quarter[2][0]
    missing.fault = "manifest row without receipt date"
    festival = by_quarter[2][2]
    festival.system, festival.kind, festival.rounds, festival.n_players = (
        "elo_italia",
        "swiss",
        9,
        110,
    )
    festival.big = True
    return plans


def _tournament_dates(rng: random.Random, plan: _Plan) -> tuple[date, date, list[date]]:
    end = plan.received_on - timedelta(days=rng.randint(0, 40))
    if plan.system == "elo_rapid":
        span = 0
    elif plan.big:
        span = plan.rounds - 1
    elif plan.kind == "round_robin" or rng.random() < 0.3:
        span = 7 * (plan.rounds - 1)  # club event, one round a week
    elif plan.rounds <= 5:
        span = 2  # weekend
    else:
        span = rng.choice((plan.rounds - 1, (plan.rounds + 1) // 2))
    start = end - timedelta(days=span)
    rounds = plan.rounds
    days = [start + timedelta(days=(span * i) // max(1, rounds - 1)) for i in range(rounds)]
    return start, end, days


def _weighted_sample(
    rng: random.Random, items: list[_Player], weights: list[float], k: int
) -> list[_Player]:
    # Efraimidis-Spirakis: weighted sampling without replacement in one pass.
    keys = [rng.random() ** (1.0 / w) for w in weights]
    idx = heapq.nlargest(k, range(len(items)), key=keys.__getitem__)
    return [items[i] for i in sorted(idx)]


class _Pools:
    """Eligible players and their entry weights, computed once per snapshot, year and system."""

    def __init__(self, players: list[_Player]) -> None:
        self.players = players
        self.cache: dict[tuple[date, int, bool], tuple[list[_Player], list[float]]] = {}

    def get(self, snap_date: date, year: int, rapid: bool) -> tuple[list[_Player], list[float]]:
        key = (snap_date, year, rapid)
        if key not in self.cache:
            # Only members of the year play (a rapid event is invalid otherwise).
            pool = [p for p in self.players if snap_date in p.snap and year in p.years]
            # Youths are keener on rapid events; age is taken mid-year, close enough here.
            mid_year = date(year, 7, 1)
            weights = [
                p.activity
                * (1.6 if rapid and (mid_year - p.birth_date).days < 18 * 365.25 else 1.0)
                for p in pool
            ]
            self.cache[key] = (pool, weights)
        return self.cache[key]


def _entrants(
    rng: random.Random,
    plan: _Plan,
    start: date,
    pools: _Pools,
    guests: list[_Guest],
    unregistered: list[_Guest],
    dates: SeasonDates,
) -> list[_Entrant]:
    snap_date = _snapshot_for(start, dates)
    rapid = plan.system == "elo_rapid"
    pool, weights = pools.get(snap_date, start.year, rapid)
    n_foreign = n_unreg = 0
    if not rapid and plan.kind == "swiss" and plan.fault is None:
        if rng.random() < 0.3 or plan.big:
            n_foreign = rng.randint(1, 4) + (4 if plan.big else 0)
        if rng.random() < 0.25:
            n_unreg = rng.randint(1, 2)
    chosen = _weighted_sample(rng, pool, weights, plan.n_players - n_foreign - n_unreg)
    ents: list[_Entrant] = []
    for p in chosen:
        r = p.snap[snap_date]
        fide_rating = r.fide_rapid if rapid else r.fide_standard
        if rapid:
            pairing = r.fide_rapid or r.fide_standard or p.elo_italia or 1440
        else:
            pairing = r.fide_standard or p.elo_italia or THEORETICAL_RATING[r.category]
        ents.append(
            _Entrant(
                name=p.name,
                sex=p.sex,
                federation=p.country,
                birth_date=p.birth_date,
                strength=p.strength,
                pairing_rating=pairing,
                rating=fide_rating,
                fide_id=r.fide_id,
                title=p.title if r.fide_standard else None,
                origin="registry",
                player_id=p.player_id,
                national_rating=p.elo_italia,
                classification=r.category,
            )
        )
    for g in rng.sample(guests, n_foreign):
        arbiter = None if g.fide_rating else 10 * round((g.strength + rng.gauss(0, 60)) / 10)
        ents.append(
            _Entrant(
                name=g.name,
                sex=g.sex,
                federation=g.federation,
                birth_date=g.birth_date,
                strength=g.strength,
                pairing_rating=g.fide_rating or arbiter or 1440,
                rating=g.fide_rating,
                fide_id=g.fide_id,
                title=None,
                origin="foreign",
                arbiter_rating=arbiter,
            )
        )
    for g in rng.sample(unregistered, n_unreg):
        ents.append(
            _Entrant(
                name=g.name,
                sex=g.sex,
                federation="ITA",
                birth_date=g.birth_date,
                strength=g.strength,
                pairing_rating=1440,
                rating=None,
                fide_id=None,
                title=None,
                origin="unregistered",
            )
        )
    # Pairing programs number players by rating, then alphabetically.
    ents.sort(key=lambda e: (-e.pairing_rating, e.name))
    return ents


def _tournament_name(rng: random.Random, plan: _Plan, city: str, year: int) -> str:
    if plan.system == "elo_rapid":
        return rng.choice((f"Rapid di {city}", f"Torneo Rapid {city} {year}", f"Rapid Open {city}"))
    if plan.big:
        return f"Festival Internazionale di {city} {year}"
    if plan.kind == "round_robin":
        return rng.choice((f"Torneo Chiuso {city} {year}", f"Magistrale {city}"))
    return rng.choice(
        (f"Open di {city} {year}", f"Campionato Sociale {city} {year}", f"Weekend {city}")
    )


def _corrupt(trf: str, n_players: int, rng: random.Random) -> str:
    """Point one round block at a start number beyond the last player."""
    lines = trf.split("\n")
    idx = [
        i
        for i, line in enumerate(lines)
        if line.startswith("001") and len(line) >= 99 and line[91:95] != "0000"
    ]
    i = idx[rng.randrange(len(idx))]
    bad = f"{n_players + 7:>4d}"
    lines[i] = lines[i][:91] + bad + lines[i][95:]
    return "\n".join(lines)


def _build_tournament(
    rng: random.Random,
    plan: _Plan,
    tid: str,
    pools: _Pools,
    guests: list[_Guest],
    unregistered: list[_Guest],
    dates: SeasonDates,
) -> DemoTournament:
    start, end, round_days = _tournament_dates(rng, plan)
    rapid = plan.system == "elo_rapid"
    ents = _entrants(rng, plan, start, pools, guests, unregistered, dates)
    withdraw = plan.kind == "swiss" and plan.rounds >= 6 and rng.random() < 0.35
    blank_withdrawal = rng.random() < 0.4
    sim: _Sim | None = None
    for _ in range(20):
        if plan.kind == "round_robin":
            sim = _simulate_round_robin(rng, ents)
        else:
            sim = _simulate_swiss(rng, ents, plan.rounds, rapid, withdraw)
        if sim is not None:
            break
    if sim is None:
        raise RuntimeError(f"could not pair {tid} without rematches")
    p_frame, g_frame = _frames(ents, sim, blank_withdrawal and withdraw)
    city = rng.choice(CITIES)
    name = _tournament_name(rng, plan, city, start.year)
    time_control = rng.choice(RAPID_TIME_CONTROLS if rapid else STANDARD_TIME_CONTROLS)
    header = TrfHeader(
        name=name,
        city=city,
        federation="ITA",
        start_date=start,
        end_date=end,
        rounds=plan.rounds,
        tournament_type=(
            "Individual: Round-Robin"
            if plan.kind == "round_robin"
            else "Individual: Swiss-System Dutch"
        ),
        chief_arbiter=rng.choice(ARBITERS),
        time_control=time_control,
        round_dates=tuple(round_days),
    )
    national = rng.random() < 0.5
    trf = render_trf(header, p_frame, g_frame, national=national)
    if plan.fault and plan.fault.startswith("corrupt"):
        trf = _corrupt(trf, len(ents), rng)
    arbiter = ";".join(
        f"{e['start_number']}={e['arbiter_rating']}"
        for e in p_frame.filter(pl.col("arbiter_rating").is_not_null()).iter_rows(named=True)
    )
    missing_receipt = plan.fault is not None and plan.fault.startswith("manifest row")
    return DemoTournament(
        tournament_id=tid,
        system=plan.system,
        kind=plan.kind,
        name=name,
        city=city,
        start_date=start,
        end_date=end,
        received_on=None if missing_receipt else plan.received_on,
        delivered_on=plan.received_on,
        delivery=plan.received_on.strftime("%Y-%m"),
        file=f"{tid}.trf",
        time_control=time_control,
        rounds=plan.rounds,
        arbiter_ratings=arbiter,
        has_national_lines=national,
        players=p_frame,
        games=g_frame,
        trf=trf,
        fault=plan.fault,
    )


def generate_federation(
    seed: int = DEFAULT_SEED,
    *,
    season: int = DEFAULT_SEASON,
    n_players: int = 3000,
    n_new_in_july: int = 40,
    tournaments_per_quarter: tuple[int, int] = (25, 35),
) -> DemoFederation:
    """Build the whole demo federation of ``season`` from one seed.

    Same seed and season, same federation. The season moves every date (``SeasonDates``);
    players, games and faults come from the seed, and stay the same across seasons whose
    receipt windows have the same lengths (a 29 February in a window changes the draws).
    """
    dates = SeasonDates(season)
    if tournaments_per_quarter[0] < 3 or tournaments_per_quarter[1] < tournaments_per_quarter[0]:
        # The deliberate faults and the festival need three tournaments in each quarter.
        raise ValueError("tournaments_per_quarter must be (low, high) with 3 <= low <= high")
    rng = random.Random(seed)
    players, new_players, names = _build_registry(rng, n_players, n_new_in_july, dates)
    everyone = players + new_players
    for p in everyone:
        if season in p.years and rng.random() < 0.85:
            p.years.append(dates.next_season)
    jan, jul = dates.snapshot_dates
    # Renewals for next season are known only in the July snapshot.
    snapshots = (
        _registry_frames(everyone, jan, dates.membership_years),
        _registry_frames(everyone, jul, (*dates.membership_years, dates.next_season)),
    )
    guest_fide = [str(x) for x in rng.sample(range(10_000_000, 79_999_999), 40)]
    guests = _guests(rng, names, guest_fide, dates)
    unregistered = _unregistered(rng, names, dates)
    plans = _plan_tournaments(rng, tournaments_per_quarter, dates)
    plans.sort(key=lambda p: (p.received_on, p.system, p.quarter))
    pools = _Pools(everyone)
    counters: dict[str, int] = {}
    tournaments = []
    for plan in plans:
        # Numbered by system in order of receipt, under the season's year (also for the
        # tournaments received in December of the year before, which belong to the season).
        prefix = "EI" if plan.system == "elo_italia" else "ER"
        counters[prefix] = counters.get(prefix, 0) + 1
        tid = f"{prefix}-{season}-{counters[prefix]:04d}"
        tournaments.append(_build_tournament(rng, plan, tid, pools, guests, unregistered, dates))
    return DemoFederation(
        seed=seed,
        season=season,
        snapshots=snapshots,
        elo_italia=_opening_list(players, dates),
        tournaments=tuple(tournaments),
    )


def quarter_of(received_on: date, season: int) -> int:
    """0-based index of the period of ``season`` a receipt date falls in."""
    return SeasonDates(season).quarter_of(received_on)


__all__ = [
    "CATEGORY_ORDER",
    "DEFAULT_SEASON",
    "DEFAULT_SEED",
    "ELO_LIST_COLUMNS",
    "MANIFEST_COLUMNS",
    "PLAYER_COLUMNS",
    "DemoFederation",
    "DemoTournament",
    "RegistrySnapshot",
    "SeasonDates",
    "generate_federation",
    "quarter_of",
]
