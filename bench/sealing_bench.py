"""What sealing a state costs, per call, in the engine's process: the AEAD envelope
(patience_engine.sealing) against the HMAC-SHA256 seal it replaced and against no key.

Every engine call that takes a state opens one, and every call that returns a state
seals one. The states are real: those of forward play (random legal moves, seeded)
through every variant, serialized as the engine writes them. The HMAC row is the
replaced scheme, computed here the way the engine did (an HMAC object keyed once and
copied per state; `hmac.compare_digest` to check). "Open (another's)" is an envelope this
process did not seal, as when another engine process or replica wrote it; "open (own)"
one it did, which the engine finds in its table of envelopes it sealed.

The end-to-end effect is in the engine part's table: its `sealed` rows run with a key,
its `unsealed` rows without.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import statistics
import time
from collections.abc import Callable, Sequence

import patience
from patience_engine.codec import Position, encode_state
from patience_engine.sealing import Sealer
from solitaire.v1 import game_pb2

from bench.report import Report, fmt
from bench.settings import Settings

SEED = 20_261_123
STATES_PER_VARIANT = 40
REPEATS = 5


def sample_states() -> list[bytes]:
    """Serialized states of forward play in every variant, as the engine writes them."""
    chooser = random.Random(SEED)
    states: list[bytes] = []
    for variant in patience.VARIANTS.values():
        state = variant.new_game(chooser.randrange(10**12))
        for _ in range(STATES_PER_VARIANT):
            states.append(encode_state(Position(state, deal_secret=True)))
            legal = state.legal_moves()
            if not legal:
                state = variant.new_game(chooser.randrange(10**12))
                continue
            state = state.apply(chooser.choice(legal))
    return states


def _one_pass_us(action: Callable[[bytes], object], items: Sequence[bytes], passes: int) -> float:
    start = time.perf_counter()
    for _ in range(passes):
        for item in items:
            action(item)
    return (time.perf_counter() - start) / (passes * len(items)) * 1e6


def per_call_us(
    rows: Sequence[tuple[Callable[[bytes], object], Sequence[bytes]]], seconds: float
) -> list[float]:
    """µs per call of each row: the median of REPEATS runs, the rows taking turns in
    every run so that a busy spell of the machine falls on all of them alike."""
    passes = []
    for action, items in rows:
        once = max(_one_pass_us(action, items, 1) * len(items) / 1e6, 1e-9)
        passes.append(max(1, int(seconds / REPEATS / once)))
    runs: list[list[float]] = [[] for _ in rows]
    for _ in range(REPEATS):
        for index, (action, items) in enumerate(rows):
            runs[index].append(_one_pass_us(action, items, passes[index]))
    return [statistics.median(row_runs) for row_runs in runs]


def _hmac_scheme(key: bytes) -> tuple[Callable[[bytes], bytes], Callable[[bytes], bool]]:
    keyed = hmac.new(key, digestmod=hashlib.sha256)

    def mac(data: bytes) -> bytes:
        copy = keyed.copy()
        copy.update(data)
        return copy.digest()

    macs = {}

    def check(data: bytes) -> bool:
        return hmac.compare_digest(macs[data], mac(data))

    def seal(data: bytes) -> bytes:
        macs[data] = mac(data)
        return macs[data]

    return seal, check


def run_sealing_part(report: Report, settings: Settings) -> None:
    section = report.section("Sealing a state: AEAD against the HMAC it replaced, and no key")
    states = sample_states()
    sizes = sorted(len(data) for data in states)
    seconds = max(settings.seconds / 2, 0.5)
    key = secrets.token_hex(32).encode()
    plain, aead = Sealer(None), Sealer(key)
    other = Sealer(key)  # the same key in "another process": no envelope of its own
    envelopes = [other.wrap(data) for data in states]
    by_envelope = {envelope: game_pb2.SealedState(state=envelope) for envelope in envelopes}
    # Its own sealer, so that the seal row's envelopes do not push these out of its table.
    mine = Sealer(key)
    own = [mine.wrap(data) for data in states]
    own_sealed = {envelope: game_pb2.SealedState(state=envelope) for envelope in own}
    plain_sealed = {data: game_pb2.SealedState(state=data) for data in states}
    hmac_seal, hmac_check = _hmac_scheme(key)
    for data in states:
        hmac_seal(data)
    rows = [
        ("none.seal", "no key", "seal", lambda d: plain.wrap(d), states),
        ("none.open", "no key", "open", lambda d: plain.unseal(plain_sealed[d]), states),
        ("hmac.seal", "HMAC-SHA256 (replaced)", "seal", hmac_seal, states),
        ("hmac.open", "HMAC-SHA256 (replaced)", "open", hmac_check, states),
        ("aead.seal", "AES-256-GCM-SIV", "seal", lambda d: aead.wrap(d), states),
        ("aead.open", "AES-256-GCM-SIV", "open (another's)",
         lambda e: aead.unseal(by_envelope[e]), envelopes),
        ("aead.open_own", "AES-256-GCM-SIV", "open (own)",
         lambda e: mine.unseal(own_sealed[e]), own),
    ]  # fmt: skip
    section.note(
        f"In-process, {len(states)} real states ({sizes[0]}..{sizes[-1]} bytes, median"
        f" {sizes[len(sizes) // 2]}) from seeded forward play in all {len(patience.VARIANTS)}"
        f" variants; median of {REPEATS} runs of about {seconds / REPEATS:.2f} s each, the rows"
        " taking turns within every run."
        " A move is one open and one seal. The AEAD envelope adds 37 bytes to a state"
        " (version, key id, nonce, tag), the HMAC added 34 (the seal field)."
    )
    table = section.table("scheme", "step", "µs/call", "vs no key (µs)")
    baseline: dict[str, float] = {}
    costs = per_call_us([(action, items) for _, _, _, action, items in rows], seconds)
    for (figure, scheme, step, _, _), cost in zip(rows, costs, strict=True):
        kind = "seal" if step == "seal" else "open"
        baseline.setdefault(kind, cost)  # the no-key rows come first
        table.add(scheme, step, fmt(cost, 2), fmt(cost - baseline[kind], 2))
        report.figure(f"sealing.{figure}.us", cost)
