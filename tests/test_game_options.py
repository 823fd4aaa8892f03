"""A game's options, declared in plain Python: the referee checks them with the pydantic model
built from the declaration, and an engine reads the referee's tokens back to the same options."""

from __future__ import annotations

import pytest

from arena.rules import GAMES, OptionError, game_class, make_game
from arena.rules.base import validation_model

# Options besides the defaults, as a tournament file gives them (typed).
OTHER = {
    "hex": {"size": 7, "swap": False},
    "groups": {"size": 4},
    "bases": {"max_plies": 120, "repetition": 2},
    "hexgo": {"size": 3},
    "posies": {"players": 3, "variant": 2},
}


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("which", ["defaults", "check", "other"])
def test_an_engine_reads_the_referees_tokens_back_to_the_referees_options(name, which):
    given = {"defaults": {}, "check": dict(game_class(name).check_options), "other": OTHER[name]}[which]
    referee = make_game(name, given, strict=True)
    tokens = dict(token.split("=", 1) for token in referee.option_tokens())
    engine = game_class(name).from_tokens(tokens)
    assert engine.options == referee.options and hash(engine.options) == hash(referee.options)
    assert engine.options.model_dump() == referee.options.model_dump()
    assert all(type(v) is type(referee.options.model_dump()[k]) for k, v in engine.options.model_dump().items())


@pytest.mark.parametrize(
    "tokens,message",
    [
        ({"size": "7", "colour": "red"}, "hex: unknown option 'colour' (allowed: size, swap)"),
        ({"size": "seven"}, "option 'size': 'seven' is not a int"),
        ({"swap": "yes"}, "option 'swap': 'yes' is not a bool"),
    ],
)
def test_tokens_an_engine_cannot_read_are_one_line_naming_the_option(tokens, message):
    with pytest.raises(OptionError) as refused:
        game_class("hex").from_tokens(tokens)
    assert str(refused.value) == message


def test_a_default_that_follows_another_option_is_filled_in_on_both_sides():
    assert make_game("hexgo", {"size": "3"}).options.max_plies == 76
    assert game_class("hexgo").from_tokens({"size": "3"}).options.max_plies == 76


def test_options_are_immutable_and_a_copy_changes_only_what_it_is_told():
    options = make_game("hex", {"size": 9}, strict=True).options
    with pytest.raises(AttributeError):
        options.size = 5  # type: ignore[misc]
    changed = options.model_copy(update={"swap": False})
    assert (changed.size, changed.swap, options.swap) == (9, False, True)  # type: ignore[attr-defined]


def test_the_checking_model_carries_each_declared_type_default_bound_and_meaning():
    fields = validation_model(game_class("hex").Options).model_fields
    assert list(fields) == ["size", "swap"]
    assert fields["size"].annotation is int and fields["size"].default == 11
    assert {type(m).__name__: getattr(m, type(m).__name__.lower()) for m in fields["size"].metadata} == {
        "Ge": 2,
        "Le": 26,
    }
    assert fields["swap"].annotation is bool and "swap" in (fields["swap"].description or "")


def test_a_canonical_spelling_is_kept_and_a_wrong_one_named():
    spellings = (
        "b9,c9,d9,c8,d8,d7/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5",
        "d9,c9,b9,d8,c8,d7/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5",
    )
    kept = {make_game("bases", {"layout": spelling}).options.layout for spelling in spellings}  # type: ignore[attr-defined]
    assert kept == {"d7,c8,d8,b9,c9,d9/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5"}  # the cells in board order
    with pytest.raises(OptionError, match=r"^bases: option 'layout': Value error, expected"):
        make_game("bases", {"layout": "zz"})
