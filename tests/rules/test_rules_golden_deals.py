"""Deal 1 of every game, written out in the state notation: new_game(1) prints it, and
parsing it gives the same state back."""

from __future__ import annotations

import patience
import pytest

VARIANT_IDS = list(patience.VARIANTS)


GOLDEN_DEAL_1 = {
    "cody": (
        "cody t:3D2H7C2C/5HAD3S9H/JC9HQH3H/KH8S9S7S/5S7D2S5C/5H9SQH9D/KC8H3CKS/KCJHAS5D/8D4D4"
        "STS/JD2DKSQD/AS6H6D7S/8CTHTD6D/6C8C9CTS/6H2S9DKD/TC3SJSQD/8D9C4D7H/4C7D5C3D/JS4S6C2C"
        "/QC8HADKH/4HTHJH5D/KDAH6S3H/2HJC3C2D/TD4HJD4C/8S7HTC5S/ACQSAH6S/7CQCQSAC "
        "r:-/-/-/-/-/-/-/- f:-/-/-/-/-/-/-/- n:0 m:0 d:1/103"
    ),
    "little-billee": (
        "little-billee t:8D8H2S3H/JDJHQH7S/AS4D3C5C/8C2DAS9D/6C6H4SKS/6HTHKS5D/TC8C6DTS/8D2ST"
        "DQD/4C3S9C7S/JS9C9D6D/QC7DJSTS/4H4S4DKD/KD8H5CQD/2HTH6C7H/TDAHAD3D/8SJCJH2C/AC4H6SKH"
        "/7C7H3C5D/2HQSJD3H/ADQCTC2D/9H7CAH4C/8S3SQS5S/7DQH2C6S/9S9S9HAC "
        "r:3D/5H/JC/KH/5S/5H/KC/KC f:-/-/-/-/-/-/-/- n:2 m:0 d:1/103"
    ),
    "usk": (
        "usk t:JD9SQDQH4S6D3D9C/2D5SJS4HTH8S8C2H/9HADASAC8H8DTC6H/JCQCAH4D2CQS6S/5DKH3C7SJH6C"
        "/7H3H4C3S7D/7C2S5CTD/5HKSTS/KD9D/KC f:-/-/-/- n:1 m:0 d:1/51"
    ),
    "la-belle-lucie": (
        "la-belle-lucie t:JDKS4S/2D9DTH/9HQD8H/JCJS2C/5DASJH/7HAH7D/7C3C6D/5H4C8S/KD5C8D/KCTS"
        "QS/9SQH6C/5S4H3D/ADAC8C/QC4DTC/KH7S6S/3H3S9C/2STD2H/6H f:-/-/-/- n:2 m:0 d:1/51"
    ),
    "house-in-the-wood": (
        "house-in-the-wood t:3D4D6C/5H2DAD/JC6HJH/KHTH6S/5S8C3C/5H2SJD/KC3STC/KC9CAH/8D7DQS/J"
        "D4S2C/AS8H9H/8CTH3H/6CAH7S/6HJC5C/TC4H9D/8D7HKS/4CQS5D/JSQCTS/QC7CQD/4H3S7S/KDQH6D/2"
        "H9STS/TD2SKD/8SQHQD/AC3C7H/7CAS3D/2H4S2C/ADKSKH/9H6D5D/8STD3H/7D9C2D/9S9D4C/8HJS5S/J"
        "H4D6S/5CAC f:-/-/-/-/-/-/-/- n:2 m:0 d:1/103"
    ),
    "house-on-the-hill": (
        "house-on-the-hill t:3D4D6C/5H2DAD/JC6HJH/KHTH6S/5S8C3C/5H2SJD/KC3STC/KC9CAH/8D7DQS/J"
        "D4S2C/AS8H9H/8CTH3H/6CAH7S/6HJC5C/TC4H9D/8D7HKS/4CQS5D/JSQCTS/QC7CQD/4H3S7S/KDQH6D/2"
        "H9STS/TD2SKD/8SQHQD/AC3C7H/7CAS3D/2H4S2C/ADKSKH/9H6D5D/8STD3H/7D9C2D/9S9D4C/8HJS5S/J"
        "H4D6S/5CAC f:-/-/-/-/-/-/-/- n:2 m:0 d:1/103"
    ),
    "napoleon-at-st-helena": (
        "napoleon-at-st-helena t:3DASKD7D/5H8C2H9S/JC6CTD8H/KH6H8SJH/5STCAC4D/5H8D7C2D/KC4C2H"
        "6H/KCJSADTH/8DQC9H8C/JD4H8S2S f:-/-/-/-/-/-/-/- s:AC6S5S4C2D3H5DKH2C3D7HQDKDTS6D7SQD"
        "TS5DKS9D5C7S3H9H2CQSAHTCJD3C6SJHAD6C5C4DJS9D9CTD6DKS4SAS3CQH2S9SQH3S7CQCQS7H4HJCAHTH"
        "8H4S7D9C3S w:- n:0 m:0 d:1/103"
    ),
    "the-fifteen": (
        "the-fifteen t:3D8D7DTH4STCTS/5H4C9SAHKSAHKD/JCJS8HJC6DQSQD/KHQCJH4HTD2C7H/5S4H4D7H9C"
        "9H3D/5HKD2DQS9D3H2C/KC2H6HQCJS7SKH/KCTDTH7C4D5C5D/8D8S8C3S5C9D3H/JDAC2SQH6CKS2D/AS7C"
        "3S9SAD5D4C/8C2H9C2SJHTS5S/6CAD7DQH6SQD6S/6H9H4S3C3C7SAC/TC8S8HASJD6D "
        "f:-/-/-/-/-/-/-/- n:0 m:0 d:1/103"
    ),
    "bisley": (
        "bisley t:JDKH4D/2D3H7S/9H2S3S/JCKSTD/5D9D4SQS/7HQDTH6C/7CJS8H3D/5H3C2C8C/KD4CJHTC/KC"
        "5C7D6S/9STS6D9C/5SQH8S2H/QC4H8D6H f:AC/AS/AH/AD/-/-/-/- n:0 m:0 d:1/51"
    ),
}


def test_every_game_has_a_golden_deal() -> None:
    assert sorted(GOLDEN_DEAL_1) == sorted(VARIANT_IDS)


@pytest.mark.parametrize("variant_id", sorted(GOLDEN_DEAL_1))
def test_golden_deal_1_in_notation(variant_id: str) -> None:
    golden = GOLDEN_DEAL_1[variant_id]
    state = patience.get_variant(variant_id).new_game(1)
    assert str(state) == golden
    assert patience.parse_state(golden) == state
