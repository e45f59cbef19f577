"""Showdowns: winners, ties and exact shares in every game."""

from __future__ import annotations

from fractions import Fraction

import pytest

from nomic_cards.errors import InputError
from nomic_cards.poker import showdown


def _shares(result: object) -> dict[str, Fraction]:
    return {p.player: p.share for p in result.players}  # type: ignore[attr-defined]


def test_high_single_winner_and_tie() -> None:
    r = showdown({"ann": "As Ks Qs Js Ts", "bob": "Kd Kh Kc 2s 2d", "cat": "Qd Qh Qc 3s 3d"})
    assert r.winners == ("ann",)
    assert _shares(r) == {"ann": 1, "bob": 0, "cat": 0}
    tie = showdown([("ann", "Ad Kd 9h 7c 3s"), ("bob", "Ah Kh 9s 7d 3c"),
                    ("cat", "2c 3c 4c 5c 7d")], pot=10)
    assert tie.winners == ("ann", "bob")
    assert _shares(tie) == {"ann": 5, "bob": 5, "cat": 0}


def test_seven_card_stud_best_five_and_wild_cards() -> None:
    r = showdown({"ann": "As Ah 2c 7d 9s Jh Qc", "bob": "Kd Kh 2d 3s 5h 8c Td"}, wild="deuces")
    # deuces wild: ann's pair of aces plus a deuce is three aces; bob has three kings
    assert r.winners == ("ann",)
    assert r.players[0].value.label.startswith("Three of a kind, aces")


def test_lowball_games() -> None:
    hands = {"ann": "5h 4d 3c 2s Ah", "bob": "7d 5h 4s 3c 2d"}
    assert showdown(hands, game="a5").winners == ("ann",)  # the wheel
    assert showdown(hands, game="27").winners == ("bob",)  # 7-5-4-3-2; A-5 is ace high


def test_hilo_split_scoop_and_quartering() -> None:
    r = showdown({"ann": "As Ks Qs Js 9s", "bob": "2c 3d 4h 5s 7c"}, game="hilo8", pot=10)
    assert r.winners == ("ann",) and r.low_winners == ("bob",)
    assert _shares(r) == {"ann": 5, "bob": 5}
    # a wheel can win both ways against a worse high hand: a scoop
    scoop = showdown({"ann": "5h 4d 3c 2s Ah", "bob": "Kd Qh 9s 7c 6d"}, game="hilo8")
    assert _shares(scoop) == {"ann": 1, "bob": 0}
    assert scoop.players[0].wins == ("high", "low")
    # two equal lows share the low half: quartered
    q = showdown({"ann": "As Ks Qs Js 9s", "bob": "2c 3d 4h 5s 7c", "cat": "2d 3h 4s 5c 7d"},
                 game="hilo8", pot=12)
    assert _shares(q) == {"ann": 6, "bob": 3, "cat": 3}


def test_no_qualifying_low_gives_the_high_hand_everything() -> None:
    r = showdown({"ann": "As Ad Kc Qs 9h", "bob": "9c 9d Kh Qd Th"}, game="hilo8", pot="7/2")
    assert r.low_winners == ()
    assert _shares(r) == {"ann": Fraction(7, 2), "bob": 0}


def test_multi_pack_five_of_a_kind_beats_a_royal_flush() -> None:
    r = showdown({"ann": "As Ks Qs Js Ts", "bob": "As As Ah Ad Ac"})
    assert r.winners == ("bob",)


@pytest.mark.parametrize(("hands", "kwargs", "message"), [
    ({}, {}, "a showdown needs at least one hand"),
    ({"ann": "As Ks"}, {}, "ann holds 2 cards; a poker hand needs 5"),
    ({"ann": "As Ks Qs Js Ts"}, {"game": "omaha"},
     "unknown game 'omaha'; games: high, a5, 27, hilo8"),
    ({"ann": "As Ks Qs Js Ts"}, {"pot": "lots"}, "not an amount: 'lots'"),
    ({"ann": "As Ks Qs Js Ts"}, {"pot": -1}, "the pot cannot be negative: -1"),
])
def test_bad_showdowns(hands: dict[str, str], kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as err:
        showdown(hands, **kwargs)  # type: ignore[arg-type]
    assert str(err.value) == message


def test_player_named_twice() -> None:
    with pytest.raises(InputError, match="player named twice: ann"):
        showdown([("ann", "As Ks Qs Js Ts"), ("ann", "2s 3s 4s 5s 7h")])
