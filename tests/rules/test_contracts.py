"""The state contract as properties, over random games of every variant and positions
near their end: equal states hash equally however they were made; every state the
library writes reads back to itself; malformed notation is refused with its error code;
``State.from_parts`` takes what play gives and refuses each kind of tampering with its
reason (docs/rules-library.md, "States")."""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable

import patience
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from patience import InvalidState, NotationError, State
from patience.variant import rules_of

from tests.oracle import LUCIE_FAMILY, SHAPES, Walk, played_games, rebuilt
from tests.solver.soundness import near_end, stressed

VARIANT_IDS = list(patience.VARIANTS)
SETTINGS = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def states(draw: st.DrawFn, variant_id: str) -> State:
    """A state of random play, or one near the end of a game, or a hand-built one."""
    kind = draw(st.sampled_from(["played", "near the end", "hand-built"]), label="kind")
    if kind == "played":
        walk: Walk = draw(played_games(variant_id, max_moves=30))
        return walk.last
    rng = random.Random(draw(st.integers(0, 2**32 - 1), label="seed"))
    if kind == "near the end":
        return near_end(variant_id, rng)
    return stressed(variant_id, rng, "blocked")


class Code(int):
    """A card code that is an int of another class: equal to the int, hashed alike."""


# --- equality and hashing ------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_different_states_hash_apart(variant_id: str) -> None:
    """The positions of a random game, and some of them again with another count of
    moves made or another deal number, as keys: states that differ hash apart. The
    solver's tables and the engine's caches key on states; a hash that left out a field
    would pile unrelated positions into one slot."""
    rng = random.Random(variant_id)
    state = patience.get_variant(variant_id).new_game(rng.randrange(10**6))
    seen: list[State] = [state]
    for _ in range(200):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.apply(rng.choice(moves))
        seen.append(state)
    seen += [rebuilt(other, moves_made=other.moves_made + 1000) for other in seen]
    seen += [rebuilt(other, deal=(other.deal + 1) % 10**20) for other in seen[:20]]
    assert len(seen) > 40
    assert len({hash(other) for other in seen}) == len(set(seen))


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_equal_states_hash_equally(variant_id: str, data: st.DataObject) -> None:
    """The same position made five ways (as played, read from its notation, from its
    parts as lists, from parts of another int class, unpickled): all equal, one hash."""
    state = data.draw(states(variant_id))
    lists = [list(pile) for pile in state.piles]
    others = [[Code(card) for card in pile] for pile in state.piles]
    made = [
        patience.parse_state(str(state)),
        rebuilt(state, lists),
        rebuilt(state, others),
        pickle.loads(pickle.dumps(state)),
    ]
    for again in made:
        assert again == state and state == again
        assert hash(again) == hash(state), str(state)
        assert len({state, again}) == 1
    # any field changed: another state (its hash may or may not differ)
    for changed in (
        rebuilt(state, moves_made=state.moves_made + 1),
        rebuilt(state, deal=(state.deal + 1) % 10**20),
    ):
        assert changed != state
        assert {changed: 1}.get(state) is None


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_states_along_a_game_hash_by_equality(variant_id: str, data: st.DataObject) -> None:
    """Among the states of a game and their copies, equal ones share a hash."""
    walk: Walk = data.draw(played_games(variant_id, max_moves=25))
    seen: dict[State, int] = {}
    for state in walk.states:
        copy = patience.parse_state(str(state))
        for one in (state, copy):
            assert seen.setdefault(one, hash(one)) == hash(one)


# --- notation --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_every_state_written_reads_back_to_itself(variant_id: str, data: st.DataObject) -> None:
    state = data.draw(states(variant_id))
    text = state.to_notation()
    again = patience.parse_state(text)
    assert again == state and again.to_notation() == text and str(state) == text
    assert again.legal_moves() == state.legal_moves()


# Strings that str.isdigit() or int() would take, but that are no plain ASCII number.
NOT_PLAIN_NUMBERS = st.one_of(
    st.text(st.characters(categories=["Nd"], exclude_characters="0123456789"), min_size=1),
    st.sampled_from(["³", "²¹", "٣", "١٢", "\uff10", "①"]),  # digits, not ASCII ones
    st.sampled_from(["+3", "-1", "3_0", "0x1", "1e3", "", "1.0", " 1"]),
)
NUMBER_FIELDS = ("n", "m", "deal", "draws")


def with_number(text: str, field: str, value: str) -> str:
    fields = text.split(" ")
    for i, part in enumerate(fields):
        if field in ("n", "m") and part.startswith(field + ":"):
            fields[i] = f"{field}:{value}"
        elif part.startswith("d:"):
            deal, draws = part[2:].split("/")
            fields[i] = f"d:{value}/{draws}" if field == "deal" else f"d:{deal}/{value}"
    return " ".join(fields)


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_a_number_that_is_not_plain_ascii_digits_is_refused(
    variant_id: str, data: st.DataObject
) -> None:
    state = data.draw(states(variant_id))
    field = data.draw(st.sampled_from(NUMBER_FIELDS), label="field")
    value = data.draw(NOT_PLAIN_NUMBERS, label="value")
    with pytest.raises(NotationError) as info:
        patience.parse_state(with_number(str(state), field, value))
    assert info.value.code == "BAD_NOTATION"


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_a_missing_or_extra_field_is_refused(variant_id: str, data: st.DataObject) -> None:
    state = data.draw(states(variant_id))
    fields = str(state).split(" ")
    drop = data.draw(st.integers(1, len(fields) - 1), label="field")
    broken = [
        " ".join(fields[:drop] + fields[drop + 1 :]),  # a field missing
        " ".join([*fields, fields[drop]]),  # a field twice
        str(state).replace(" ", "  ", 1),  # an empty field
    ]
    for text in broken:
        with pytest.raises(NotationError) as info:
            patience.parse_state(text)
        assert info.value.code == "BAD_NOTATION", text


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_a_card_written_twice_is_refused(variant_id: str, data: st.DataObject) -> None:
    """One card written in place of another (so it is there once too often and the other
    missing): INVALID_STATE, reason WRONG_CARDS."""
    state = data.draw(states(variant_id))
    ids = state.variant.pile_ids
    loose = [i for i, pid in enumerate(ids) if pid[0] != "f" and state.piles[i]]
    assume(loose)
    i = data.draw(st.sampled_from(loose), label="pile")
    k = data.draw(st.integers(0, len(state.piles[i]) - 1), label="place")
    present = sorted({c for pile in state.piles for c in pile} - {state.piles[i][k]})
    other = data.draw(st.sampled_from(present), label="card")
    piles = [list(pile) for pile in state.piles]
    piles[i][k] = other
    with pytest.raises(InvalidState) as info:
        patience.parse_state(notation_of(state, piles))
    assert (info.value.code, info.value.reason) == ("INVALID_STATE", "WRONG_CARDS")


def notation_of(state: State, piles: list[list[int]]) -> str:
    """The state's notation with other piles (written without the library's checks)."""
    rules = rules_of(state)

    def text(indices: tuple[int, ...]) -> str:
        return "/".join("".join(patience.card_name(c) for c in piles[i]) or "-" for i in indices)

    fields = [str(state).split(" ")[0], "t:" + text(rules.tableau)]
    if rules.cells:
        fields.append("r:" + text(rules.cells))
    fields.append(str(state).split(" ")[len(fields)])  # the foundations, unchanged
    if rules.stock >= 0:
        fields += ["s:" + text((rules.stock,)), "w:" + text((rules.waste,))]
    fields += str(state).split(" ")[-3:]
    return " ".join(fields)


# --- State.from_parts -----------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_from_parts_accepts_the_states_of_play(variant_id: str, data: st.DataObject) -> None:
    walk: Walk = data.draw(played_games(variant_id, max_moves=40))
    for state in walk.states[::5]:
        assert rebuilt(state) == state


def tamperings(state: State, rng: random.Random) -> dict[str, tuple[Callable[[], State], str]]:
    """Each kind of tampering this state allows: (how, the reason it is refused for)."""
    rules = rules_of(state)
    ids = state.variant.pile_ids
    piles = [list(p) for p in state.piles]
    loose = [i for i, pid in enumerate(ids) if pid[0] in "trsw" and piles[i]]
    out: dict[str, tuple[Callable[[], State], str]] = {}
    if loose:
        i = rng.choice(loose)
        twice = [list(p) for p in piles]
        k = rng.randrange(len(twice[i]))
        twice[i][k] = next(c for c in range(52) if c != twice[i][k])
        out["a card twice"] = (lambda: rebuilt(state, twice), "WRONG_CARDS")
        missing = [list(p) for p in piles]
        del missing[i][rng.randrange(len(missing[i]))]
        out["a card missing"] = (lambda: rebuilt(state, missing), "WRONG_CARDS")
        extra = [list(p) for p in piles]
        extra[i].append(52)
        out["no such card"] = (lambda: rebuilt(state, extra), "WRONG_CARDS")
    founds = list(rules.foundations)
    tableau_cards = [(i, k) for i in rules.tableau for k in range(len(piles[i]))]
    if tableau_cards:
        i, k = rng.choice(tableau_cards)
        f = rng.choice(founds)
        wrong = [list(p) for p in piles]
        card = wrong[i][k]
        if card != rules.found_next[f][len(wrong[f])] and card not in wrong[f][-1:]:
            if wrong[f]:  # the foundation's top swapped with a card of the tableau
                wrong[i][k], wrong[f][-1] = wrong[f][-1], card
            else:  # a card that does not start it, put on it
                del wrong[i][k]
                wrong[f].append(card)
            out["a foundation out of order"] = (lambda: rebuilt(state, wrong), "BAD_FOUNDATION")
    if rules.cells and len(tableau_cards) >= 2:
        crowded = [list(p) for p in piles]
        c = rng.choice(rules.cells)
        while len(crowded[c]) < 2:
            crowded[c].append(crowded[rng.choice([t for t in rules.tableau if crowded[t]])].pop())
        out["a cell with two cards"] = (lambda: rebuilt(state, crowded), "BAD_CELL")
    dealt = 0
    if rules.stock >= 0:
        dealt = rules.opening_stock - len(piles[rules.stock])
    needed = rules.redeals - state.redeals_left + dealt
    if needed:
        out["fewer moves than redeals and deals"] = (
            lambda: rebuilt(state, moves_made=needed - 1),
            "BAD_COUNTER",
        )
    out["redeals over the game's"] = (
        lambda: rebuilt(state, redeals_left=rules.redeals + 1),
        "BAD_COUNTER",
    )
    out["negative redeals"] = (lambda: rebuilt(state, redeals_left=-1), "BAD_COUNTER")
    out["negative moves"] = (lambda: rebuilt(state, moves_made=-1), "BAD_COUNTER")
    out["negative draws"] = (lambda: rebuilt(state, draws=-1), "BAD_COUNTER")
    out["a deal out of range"] = (lambda: rebuilt(state, deal=10**20 + 1), "BAD_DEAL")
    out["draws that no redeal made"] = (
        lambda: rebuilt(state, draws=impossible_draws(state, rng)),
        "BAD_COUNTER",
    )
    return out


def impossible_draws(state: State, rng: random.Random) -> int:
    """Draws that the redeals used cannot have made (the test's own reading of RULES.md:
    the opening shuffle draws one less than the pack; each La Belle Lucie redeal one
    less than the cards it shuffles, at least those in the tableau now)."""
    shape = SHAPES[state.variant.id]
    opening = shape.pack_size - 1
    used = shape.redeals - state.redeals_left
    if state.variant.id not in LUCIE_FAMILY or used == 0:
        return opening + rng.choice([-1, 1, 52])
    tableau = sum(len(p) for pid, p in zip(state.variant.pile_ids, state.piles, strict=True)
                  if pid[0] == "t")  # fmt: skip
    low = opening + used * max(tableau - 1, 0)
    high = opening + used * (shape.pack_size - 1)
    return rng.choice([low - 1, high + 1]) if low > opening else high + 1


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(data=st.data())
def test_from_parts_refuses_each_tampering(variant_id: str, data: st.DataObject) -> None:
    state = data.draw(states(variant_id))
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    for what, (make, reason) in tamperings(state, rng).items():
        with pytest.raises(InvalidState) as info:
            make()
        assert (info.value.code, info.value.reason) == ("INVALID_STATE", reason), (
            what,
            str(info.value),
            str(state),
        )


def test_draws_and_redeals_agree_in_the_lucie_family() -> None:
    """A redeal not counted, or counted without its shuffle: refused (BAD_COUNTER)."""
    state = patience.get_variant("la-belle-lucie").new_game(7)
    after = state.apply(patience.Move.redeal())
    assert after.draws > state.draws
    with pytest.raises(InvalidState) as info:
        rebuilt(after, redeals_left=state.redeals_left)  # the redeal's draws, no redeal
    assert info.value.reason == "BAD_COUNTER"
    with pytest.raises(InvalidState) as info:
        rebuilt(state, redeals_left=after.redeals_left)  # a redeal, no draws
    assert info.value.reason == "BAD_COUNTER"
    assert rebuilt(after) == after


def test_a_state_is_not_built_directly() -> None:
    """A State made with its class alone would hold no position: it says how to make one."""
    with pytest.raises(TypeError) as refused:
        State()
    assert str(refused.value) == (
        "build a State with variant.new_game, State.from_parts or parse_state"
    )
