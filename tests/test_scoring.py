"""RULES §7, §8: points, kitty multiplier, level changes."""

import pytest

from conftest import C
from shengji import kitty_points, level_change


@pytest.mark.parametrize(
    ("points", "result"),
    [
        (-30, ("declarers", 3)),
        (0, ("declarers", 3)),
        (5, ("declarers", 2)),
        (35, ("declarers", 2)),
        (40, ("declarers", 1)),
        (75, ("declarers", 1)),
        (80, ("opponents", 0)),
        (115, ("opponents", 0)),
        (120, ("opponents", 1)),
        (155, ("opponents", 1)),
        (160, ("opponents", 2)),
        (195, ("opponents", 2)),
        (200, ("opponents", 3)),
        (235, ("opponents", 3)),
        (240, ("opponents", 4)),
        (275, ("opponents", 4)),
        (280, ("opponents", 5)),
        (400, ("opponents", 8)),
    ],
)
def test_level_table_rules_8_2(points, result):
    assert level_change(points) == result


def test_band_80_115_stay_option_rules_10():
    assert level_change(100, "stay") == ("declarers", 0)
    assert level_change(120, "stay") == ("opponents", 1)


@pytest.mark.parametrize(("c", "factor"), [(1, 2), (2, 4), (5, 10)])
def test_kitty_multiplier_rules_8_1(c, factor):
    kitty = C("KS 10H 5D 2C 3C 4C 6C 7C")
    assert kitty_points(kitty, c) == 25 * factor
