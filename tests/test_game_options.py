"""A game's options, declared in plain Python: the referee checks them with the pydantic model
built from the declaration, and an engine reads the referee's tokens back to the same options."""

from __future__ import annotations

import pydantic
import pytest

from arena import rules
from arena.rules import GAMES, OptionError, game_class, make_game
from arena.rules.base import GameOptions, Option, describe_validation_error, option, shown_input, validation_model

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


def test_a_choice_of_numbers_given_as_text_is_read_from_the_command_line_and_refused_in_a_file():
    """Text such as the CLI's ``-O players=3`` is converted; a typed file's ``"3"`` is an error."""
    assert make_game("posies", {"players": "3"}).options.players == 3  # type: ignore[attr-defined]
    with pytest.raises(OptionError) as refused:
        make_game("posies", {"players": "3"}, strict=True)
    assert str(refused.value) == "posies: option 'players': Input should be 2 or 3 (got '3')"


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


def test_a_subclass_declares_its_options_after_its_parents_and_compares_only_with_its_own_kind():
    def upper(value):
        return value.upper()

    class Board(GameOptions):
        size: int = option(5, ge=2, le=9, description="the board's side")

    class Named(Board):
        label: str = option("a", description="a name", canonical=upper)

    class Other(GameOptions):
        size: int = option(5)

    assert Board.declared == {"size": Option(5, 2, 9, "the board's side", None)}
    assert Named.declared == {"size": Board.declared["size"], "label": Option("a", None, None, "a name", upper)}
    assert list(Named.declared) == ["size", "label"] and GameOptions.declared == {}
    assert Other.declared == {"size": Option(5, None, None, "", None)}
    assert repr(Named(size=7)) == "Named(size=7, label='a')"
    assert Board() == Board(size=5) and hash(Board()) == hash(Board(size=5)) and Board() != Board(size=6)
    assert hash(Board()) != hash(Board(size=6))
    assert Board() != Other() and hash(Board()) != hash(Other())  # the same values, another game's
    assert Board() != {"size": 5}


def _refusal(options: type[GameOptions], raw: object) -> str:
    model = validation_model(options)
    with pytest.raises(pydantic.ValidationError) as refused:
        model.model_validate(raw, strict=True)
    return describe_validation_error("toy", refused.value, model)


def test_the_checking_model_of_new_options_keeps_their_bounds_default_spelling_and_refuses_the_rest():
    class Toy(GameOptions):  # a class of its own: a model is built for it here, not found built
        size: int = option(5, ge=2, le=9, description="the board's side")
        label: str = option("a", canonical=str.upper)

    model = validation_model(Toy)
    assert model.__name__ == "Toy" and model().model_dump() == {"size": 5, "label": "a"}
    assert model.model_validate({"size": 9, "label": "b"}).model_dump() == {"size": 9, "label": "B"}
    assert model.model_fields["size"].description == "the board's side"
    with pytest.raises(pydantic.ValidationError):
        model().size = 6  # type: ignore[misc]
    assert _refusal(Toy, {"size": 1, "lable": "b"}) == (
        "toy: option 'size': Input should be greater than or equal to 2 (got 1); "
        "unknown option 'lable' (did you mean 'label'? allowed: size, label)"
    )
    assert _refusal(Toy, {"size": 10}) == "toy: option 'size': Input should be less than or equal to 9 (got 10)"


def test_a_refusal_names_a_whole_wrong_document_and_a_key_where_no_option_is_allowed():
    class Empty(GameOptions):
        pass

    assert _refusal(Empty, {"size": 3}) == "toy: unknown option 'size' (allowed: none)"
    assert _refusal(Empty, ["size"]).startswith("toy: option 'options': Input should be ")


def test_a_refused_value_is_shown_up_to_sixty_characters_and_a_number_too_long_for_repr_in_words():
    assert shown_input("x" * 58) == repr("x" * 58)  # 60 characters with its quotes
    assert shown_input("x" * 59) == "'" + "x" * 56 + "..."  # 61: cut to 57 and the dots
    assert shown_input(10**5000) == "a number too long to show"


def test_the_rules_package_lends_the_interfaces_names_and_names_a_missing_one():
    assert rules.GameOptions is GameOptions
    with pytest.raises(AttributeError, match=r"^module 'arena\.rules' has no attribute 'Colour'$"):
        rules.Colour  # noqa: B018
