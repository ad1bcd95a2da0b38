"""`auditor verify --via FORMAT`: the accuracy report measured through a format's writer and reader.

Every clean session and every planted unit is written as the format's file, read back with the real
reader and audited from what it gave back: 100 % precision and recall in every category the format
can express, the others listed with the writer's reason, and a hand the reader refuses counted as a
problem ("not audited"), never dropped. `auditor simulate --format` writes the same files.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from reader_items import one_by_one

from auditor import cli
from auditor.check.packs import resolve_pack
from auditor.cli import main
from auditor.export import ohh, writer
from auditor.ingest.detect import read_file
from auditor.model.records import SourceHand
from auditor.resources import room_names
from auditor.simulate import verify as verify_module
from auditor.simulate.tables import simulate_mixed
from auditor.simulate.verify import VIA, format_report, verify_pack
from auditor.simulate.writer import FORMATS

pokerstars = writer("pokerstars")

HANDS = 200
#: a seed whose 200 hands plant every category both packs have (fixed-limit tables included); others at
#: this size may leave a rare one (an odd chip, a limit bet) unplanted, which the report counts as not measured
SEED = 1


@pytest.fixture(scope="module")
def via_pokerstars():
    return {name: verify_pack(name, HANDS, SEED, via="pokerstars") for name in ("tda-2024", "online-five-card-draw")}


@pytest.mark.parametrize("pack", ["tda-2024", "online-five-card-draw"])
def test_every_category_pokerstars_can_express_is_at_100_percent(via_pokerstars, pack):
    report = via_pokerstars[pack]
    assert report.via == "pokerstars"
    assert not report.problems, "\n".join(q.one_line() for q in report.problems[:10])
    assert report.column_wise == report.read_back > 0  # one reader: the dialect engine read every hand
    table = report.table
    assert len(table) >= 10 and (table["expected"] > 0).all()
    assert (table["found"] == table["expected"]).all() and (table["false"] == 0).all()
    assert report.ok
    # what the text cannot hold is listed with its reason, not counted as a miss
    assert "seating" in report.unexpressed and "seating" not in set(table["category"])
    assert any("draw for seats" in why for why in report.clean_inexpressible)  # every table opens with one
    assert report.clean_hands + sum(report.clean_inexpressible.values()) == HANDS
    if pack == "tda-2024":
        assert report.unexpressed["burn"] == [pokerstars.HIDDEN_CATEGORIES["burn"]]
    text = "\n".join(format_report(verify_module.VerifyResult([report])))
    assert "via pokerstars" in text and "not expressible in pokerstars" in text
    assert "every category pokerstars can express at 100 %" in text
    assert f"read back through pokerstars: {report.read_back} hands, by the room's dialect (its one reader)" in text


#: the rooms' run: a size and seed that plant every category in each room's expressible hands (Winamax's text,
#: marking no player sitting out, leaves fewer of them; raise caps are rare)
ROOM_HANDS, ROOM_SEED = 600, 2


@pytest.mark.parametrize("room", [r for r in room_names() if r != "pokerstars"])
def test_every_category_each_room_can_express_is_at_100_percent(room):
    """Every other room's dialect, through its own writer and reader (the writer comes free with the dialect)."""
    report = verify_pack("tda-2024", ROOM_HANDS, ROOM_SEED, via=room)
    assert not report.problems, "\n".join(q.one_line() for q in report.problems[:10])
    assert report.column_wise == report.read_back > 0
    table = report.table
    assert len(table) >= 10 and (table["expected"] > 0).all()
    assert (table["found"] == table["expected"]).all() and (table["false"] == 0).all()
    assert report.ok and "seating" in report.unexpressed


def test_the_canonical_path_is_unchanged():
    report = verify_pack("tda-2024", 60, 1)
    assert report.via == "canonical" and not report.inexpressible and not report.clean_inexpressible
    assert report.clean_hands == 60 and not report.problems and not report.unexpressed
    same = verify_pack("tda-2024", 60, 1, via="canonical")
    assert same.table.equals(report.table) and same.mutators.equals(report.mutators)


def test_a_hand_the_reader_refuses_is_not_audited_and_fails_the_run(monkeypatch, tmp_path):
    """A writer whose text the reader cannot read (here: every hand cut before its summary) loses every hand:
    each is a "not audited" problem, the planted faults count as missed, and the run fails."""
    def cut(hands, path):
        lines = [line for h in hands for line in [*pokerstars.format_hand(h)[:8], ""]]
        path.write_text("\n".join(lines), encoding="utf-8")
        return len(hands)

    broken = SimpleNamespace(**{k: getattr(pokerstars, k) for k in ("cannot_express", "event_index", "SUFFIX")},
                             write_hands=cut)
    monkeypatch.setattr(verify_module, "writer", lambda name: broken)
    report = verify_pack("tda-2024", 40, 2, via="pokerstars", repro_dir=tmp_path)
    kinds = {q.kind for q in report.problems}
    # each reproducer: the canonical hands, and beside them the file the reader was given
    repro = [q.reproducer for q in report.problems if q.reproducer is not None]
    assert repro and all(p.with_suffix(".txt").read_text().startswith("PokerStars Hand #") for p in repro)
    assert kinds == {"not audited"}
    assert any("reader quarantined" in q.detail and "[truncated]" in q.detail for q in report.problems)
    assert (report.table["found"] == 0).all() and report.table["missed"].sum() == report.mutated_hands
    assert not report.ok


def test_a_pack_whose_games_the_format_does_not_deal():
    report = verify_pack("nz-casino-1999", 40, 0, via="pokerstars")
    assert report.clean_hands == 0 and report.mutated_hands == 0 and not len(report.table)
    assert report.unexpressed and report.ok
    assert any("nothing of this pack can be written in pokerstars" in line
               for line in format_report(verify_module.VerifyResult([report])))


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="not one of"):
        verify_pack("tda-2024", 5, 0, via="excel")


def test_cli_choices_match_the_code():
    assert cli.VERIFY_VIA == VIA
    assert cli.SIMULATE_FORMATS == FORMATS


def test_cli_verify_via_pokerstars():
    result = CliRunner().invoke(main, ["verify", "--via", "pokerstars", "--hands", "60", "--pack", "tda-2024"])
    assert result.exit_code in (0, 1), result.output
    assert "tda-2024 0.4.0 via pokerstars" in result.output or "via pokerstars:" in result.output
    assert "burn: not expressible in pokerstars" in result.output
    bad = CliRunner().invoke(main, ["verify", "--via", "excel", "--hands", "5"])
    assert bad.exit_code == 2


def test_cli_simulate_format_pokerstars(tmp_path):
    out = tmp_path / "hands.txt"
    result = CliRunner().invoke(main, ["simulate", "--variant", "omaha", "--structure", "pot-limit", "--pack",
                                       "tda-2024", "--hands", "25", "--format", "pokerstars", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "25 hands written" in result.output
    items = one_by_one(read_file(out))
    assert len(items) == 25 and all(isinstance(i, SourceHand) for i in items)
    assert {i.hand["variant"] for i in items} == {"omaha"} and out.read_text().startswith("PokerStars Hand #")
    # a structure the room does not deal: nothing written, the reason said, exit 2
    none = CliRunner().invoke(main, ["simulate", "--variant", "holdem", "--structure", "spread-limit", "--pack",
                                     "tda-2024", "--hands", "5", "--format", "pokerstars", "-o",
                                     str(tmp_path / "none.txt")])
    assert none.exit_code == 2 and "no spread-limit games" in none.output
    # the default is unchanged: JSON Lines
    jsonl = tmp_path / "hands.jsonl"
    plain = CliRunner().invoke(main, ["simulate", "--variant", "omaha", "--structure", "pot-limit", "--pack",
                                      "tda-2024", "--hands", "5", "-o", str(jsonl)])
    assert plain.exit_code == 0 and jsonl.read_text().startswith("{")


ODD_CHIP = {name: m for name, m in verify_module.REGISTRY.items() if m.category == "odd-chip"}


@pytest.mark.parametrize("fmt", ["ohh", "phh"])
def test_odd_chips_are_measured_through_formats_that_state_no_chip_unit(fmt):
    """OHH and PHH state no chip unit and their readers take one chip: a split pot's odd chip of 50 cannot be
    written, so verify plays a share of the tables in chips of 1, where every split pot can, and the odd chip
    planted there is found; the same fault at a table in chips of 50 is counted as not expressible."""
    assert writer(fmt).IMPLIED_CHIP_UNIT == 1
    report = verify_pack("tda-2024", 400, 2, registry=ODD_CHIP, via=fmt)
    row = report.table.set_index("category").loc["odd-chip"]
    assert row["expected"] >= 2 and row["found"] == row["expected"] and row["false"] == 0
    assert not report.problems, "\n".join(q.one_line() for q in report.problems[:10])


def test_the_chip_unit_mix_keeps_every_other_table_as_it_was():
    """The tables played in chips of 1 are drawn apart from the run's own draws: each other table is the same
    table, hand for hand, as without the mix, and a share of 0 changes nothing."""
    house = resolve_pack("tda-2024").house
    games = [("holdem", "no-limit"), ("omaha", "pot-limit"), ("holdem", "fixed-limit")]
    plain = list(simulate_mixed(games, 600, 3, house=house, rule_pack="tda-2024", session_hands=(10, 30)))
    mixed = list(simulate_mixed(games, 600, 3, house=house, rule_pack="tda-2024", session_hands=(10, 30),
                                chip_unit_mix=(0.5, 1)))
    assert list(simulate_mixed(games, 600, 3, house=house, rule_pack="tda-2024", session_hands=(10, 30),
                               chip_unit_mix=(0.0, 1))) == plain
    units = Counter(h["stakes"]["chip_unit"] for h in mixed)
    assert set(units) == {1, 50} and units[1] >= 100
    by_id = {h["hand_id"]: h for h in plain}
    kept = [h for h in mixed if h["stakes"]["chip_unit"] == 50]
    assert kept and all(by_id[h["hand_id"]] == h for h in kept)
    fine = [h for h in mixed if h["stakes"]["chip_unit"] == 1]
    assert all(h["stakes"]["blinds"] == by_id[h["hand_id"]]["stakes"]["blinds"] for h in fine)
    # a pot split unequally (odd chips): OHH can write it in chips of 1, not in chips of 50
    uneven = {}
    for h in mixed:
        paid: dict[int, set[int]] = {}
        for ev in h["events"]:
            if ev["kind"] == "award":
                paid.setdefault(ev["pot"], set()).add(ev["amount"])
        if any(len(amounts) > 1 for amounts in paid.values()):
            uneven.setdefault(h["stakes"]["chip_unit"], []).append(ohh.cannot_express(h))
    assert uneven[1] and all(why is None for why in uneven[1])
    assert uneven[50] and all("smallest chip" in why for why in uneven[50])
    with pytest.raises(ValueError, match="chip_unit_mix"):
        next(simulate_mixed(games, 5, 3, house=house, rule_pack="tda-2024", chip_unit_mix=(1.5, 1)))


def test_only_formats_without_a_chip_unit_change_the_simulated_mix(monkeypatch):
    for fmt in ("pokerstars", "ohh", "phh"):  # none states the chip unit; each reader takes one chip
        assert verify_module._Via(fmt, Path(".")).chip_unit_mix == (verify_module.IMPLIED_UNIT_SHARE, 1)
    stated = SimpleNamespace(cannot_express=pokerstars.cannot_express, write_hands=pokerstars.write_hands)
    monkeypatch.setattr(verify_module, "writer", lambda name: stated)
    assert verify_module._Via("pokerstars", Path(".")).chip_unit_mix is None


def test_a_fault_the_format_cannot_say_is_listed_even_when_a_few_clean_hands_share_its_reason():
    """PHH's cc calls exactly the chips owed, so a call one chip short cannot be written; a few clean hands are
    left out for the same reason. The reason still belongs to the fault (it kept more planted faults out than
    clean hands), so call-amount is listed as not expressible rather than counted as not measured."""
    undercall = {name: m for name, m in verify_module.REGISTRY.items() if m.category == "call-amount"}
    report = verify_pack("tda-2024", 800, 0, registry=undercall, via="phh")
    cc = "PHH's cc calls the chips owed (or the stack): a call of another amount cannot be said"
    assert report.clean_inexpressible[cc] > 0
    assert report.unexpressed["call-amount"] == [cc]
    assert "call-amount" not in set(report.table["category"]) and "TDA-51" not in report.unmeasured
    assert any(line.startswith("  call-amount: not expressible in phh")
               for line in format_report(verify_module.VerifyResult([report])))


@pytest.mark.parametrize("fmt", ["phh", "ohh"])
def test_formats_read_column_wise_by_an_audit_are_carried_both_ways(fmt):
    """Every other round trip of PHH (one `.phh` file per hand) and OHH (its one file) is read hand by hand and
    column-wise (the path an audit of a folder of `.phh` files or of a large OHH file takes), the two held equal
    and the column-wise tables audited: the proof goes through both readers, and the report says how many hands
    the column-wise one gave."""
    report = verify_pack("tda-2024", 400, 1, via=fmt)
    assert report.read_back > 100 and 0 < report.column_wise < report.read_back
    assert not report.problems, "\n".join(q.one_line() for q in report.problems[:10])
    measured = report.table[report.table["expected"] > 0]
    assert len(measured) >= 8 and bool(((measured["precision"] == 1.0) & (measured["recall"] == 1.0)).all())
    text = "\n".join(format_report(verify_module.VerifyResult([report])))
    assert f"read back through {fmt}: {report.read_back} hands, {report.column_wise} of them by its column-wise" in text


def test_a_disagreement_of_the_two_phh_readers_is_a_loud_problem(monkeypatch):
    """Should the column-wise reader give other tables than the hand-by-hand one (here: a start time moved by
    its fields' reading), the hands are not audited from either: each is a problem that fails the run."""
    from auditor.ingest import phh_tables

    real = phh_tables._starts
    monkeypatch.setattr(phh_tables, "_starts", lambda s, where: [t and t.replace("2024", "2023") for t in
                                                                 real(s, where)])
    report = verify_pack("tda-2024", 120, 1, via="phh")
    words = "column-wise and hand-by-hand paths disagree: hands.started_at"
    disagree = [q for q in report.problems if words in q.detail]
    assert disagree and all(q.kind == "not audited" for q in disagree) and not report.ok
