"""The placement rules hp.torch applies before the IR exists, as C++ decides
them (hp/Dialect/DTensor/Layout/PlacementRules.h) through the C API; each
expectation worked out by hand from the rule."""
import pytest

import hp
from hp import _placement

R, S, P = hp.Replicate(), hp.Shard, hp.Partial


def test_fsdp_splits_rows_where_nothing_splits_or_reduces():
    assert _placement.fsdp_split([R, S(1)], 2, 0) == [S(0), S(1)]
    assert _placement.fsdp_split([S(1), R], 2, 0) == [S(1), R]
    assert _placement.fsdp_split([P("max"), R], 2, 0) == [P("max"), R]
    assert _placement.fsdp_split([R], 0, 0) == [R]  # a scalar stays whole


def test_optimizer_state_follows_its_parameter_when_shaped_alike():
    assert _placement.optimizer_state_placements([S(0), R], (8, 4), (8, 4)) == [S(0), R]
    assert _placement.optimizer_state_placements([S(0), R], (8, 4), ()) == [R, R]


def test_a_value_without_a_layout_takes_the_inputs_shared_shard():
    inputs = [[S(0), S(1)], [S(0), R]]
    assert _placement.placements_from_inputs(inputs, 1, 2) == [S(0), R]
    assert _placement.placements_from_inputs([[S(2), S(0)]], 2, 2, 1) == [R, R]
    assert _placement.placements_from_inputs([], 1, 2) == [R, R]


def test_a_broken_argument_is_a_value_error_naming_the_rule():
    with pytest.raises(ValueError, match="hpPlacementsFsdpSplit: mesh dim 2 is not one of the 1"):
        _placement.fsdp_split([R], 1, 2)
    with pytest.raises(ValueError, match="input 1 has 1 placements for a mesh of 2 dims"):
        _placement.placements_from_inputs([[R, R], [R]], 1, 2)
