"""The xdist work units of ``tests/scheduling.py``: a module's tests stay together (issue 23)."""

from __future__ import annotations

from scheduling import group_of

F4 = "tests/test_simulate_agreement.py::test_f4_"


def test_a_modules_tests_are_one_unit_whatever_their_parameters() -> None:
    ids = [f"{F4}win_probabilities", f"{F4}length_losses_and_falls_agree", "tests/"
           "test_simulate_agreement.py::test_f11_ambush[x@y]"]  # fmt: skip
    assert {group_of(i) for i in ids} == {"tests/test_simulate_agreement.py"}
    assert group_of("tests/test_war.py::test_a[1]") != group_of("tests/test_war_machine.py::t")


def test_spread_modules_go_test_by_test() -> None:
    a = "tests/test_simulate_agreement_strife_effects.py::test_f42_wins[block_spell]"
    b = "tests/test_simulate_agreement_strife_effects.py::test_f42_wins[casters]"
    assert group_of(a) == a and group_of(b) == b


def test_machine_sensitive_modules_are_one_unit() -> None:
    crash = group_of("tests/test_store_crash.py::test_a_writer_killed[sqlite]")
    assert crash == group_of("tests/test_bounds.py::test_x") == "machine"
