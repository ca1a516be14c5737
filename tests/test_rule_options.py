"""Each rule declares its options once (learn/linear_hyper.py, learn/replay_hyper.py,
learn/shared_options.py): every field of a rule family is documented, and every option
reaches ``treestrap train --help`` with its default and ``TrainConfig`` in its place."""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys

import pytest

from treestrap.commands.train import add_parser as add_train_parser
from treestrap.learn.rule_option import OPTION, field_docs
from treestrap.learn.rule_options import RULE_FAMILIES, RULE_OPTIONS
from treestrap.learn.rules import NETWORK_ALGORITHMS, RULES, RULES_BY_NAME
from treestrap.option import Option
from treestrap.training.config import TrainConfig
from treestrap.training.options import TRAIN_OPTIONS


def _train_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="treestrap")
    sub = parser.add_subparsers()
    add_train_parser(sub)
    train: argparse.ArgumentParser = sub.choices["train"]
    return train


def _default_words(option: Option) -> str:
    """How a flag's help states the option's default."""
    if option.default is None:
        return "default"
    if isinstance(option.default, list):
        return "default: " + ", ".join(option.default)
    if isinstance(option.default, float):
        return f"{option.default:g}"
    return str(option.default)


@pytest.mark.parametrize(("family", "kind"), RULE_FAMILIES, ids=lambda f: getattr(f, "__name__", f))
def test_every_field_of_a_rule_family_says_what_it_is(family: type, kind: str) -> None:
    docs = field_docs(family)
    assert docs and all(docs.values()), [name for name, doc in docs.items() if not doc]
    declared = {f.name for f in dataclasses.fields(family) if OPTION in f.metadata}
    assert declared <= RULE_OPTIONS.keys()
    assert all(kind in RULE_OPTIONS[name].kinds for name in declared)


def test_every_rule_option_is_a_train_option_once_as_declared() -> None:
    placed = [o for o in TRAIN_OPTIONS if o.name in RULE_OPTIONS]
    assert sorted(o.name for o in placed) == sorted(RULE_OPTIONS)
    assert all(o is RULE_OPTIONS[o.name] for o in placed)
    config = TrainConfig()
    assert all(getattr(config, name) == o.default for name, o in RULE_OPTIONS.items())


def test_every_rule_option_with_a_flag_is_in_train_help_with_its_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from treestrap.cli import main

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    shown = capsys.readouterr().out
    helps = {a.dest: a.help for a in _train_parser()._actions}
    for name, option in RULE_OPTIONS.items():
        if option.flag is None:
            continue  # set by presets and code (squash, predicted_only, use_outcome)
        assert option.flag in shown, option.flag
        assert option.doc, name
        if option.value_type is bool:
            assert option.default is False, name  # a flag that turns it on
            continue
        help_text = helps[name] or ""
        assert _default_words(option) in help_text, (name, help_text)
        assert "{default}" not in help_text


def test_the_rule_table_has_one_row_per_rule() -> None:
    assert len(RULES_BY_NAME) == len(RULES)
    assert NETWORK_ALGORITHMS == ("treestrap-mm", "treestrap-ab")
    steps = {rule.name: rule.step for rule in RULES}
    assert steps == {
        "td": 1e-5,
        "td-root": 1e-5,
        "td-leaf": 1e-5,
        "rootstrap-mm": 1e-5,
        "rootstrap-ab": 1e-5,
        "treestrap-mm": 1e-6,
        "treestrap-ab": 5e-7,
    }


def test_a_games_step_factors_are_passed_in_and_cover_every_rule() -> None:
    from treestrap.games.registry import game_facts, game_names
    from treestrap.learn.registry import default_step_size

    for game in game_names():  # a game's factors, if any, cover every rule
        factors = game_facts(game).step_factors
        assert not factors or set(factors) == set(RULES_BY_NAME)
    factors = {name: 10.0 for name in RULES_BY_NAME}
    for rule in RULES:
        plain = default_step_size(rule.name, squash=False)
        assert plain == rule.step
        assert default_step_size(rule.name, False, step_factors=factors) == 10.0 * plain


def test_the_rule_tables_import_no_numba() -> None:
    """The command line lists the rules and their options without the compiled layers."""
    code = (
        "import sys\n"
        "from treestrap.learn.rule_options import RULE_OPTIONS\n"
        "from treestrap.learn.rules import RULES\n"
        "assert RULES and RULE_OPTIONS\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
