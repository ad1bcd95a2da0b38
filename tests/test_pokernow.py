"""PokerNow logs (`auditor.ingest.pokernow`, `auditor.export.pokernow`): detection, play order, the room's
conventions (each said once per file, none hiding a violation), refusals with their reasons, bad rows, untrusted
names, and the writer's round trip (a small `verify --via pokernow`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.export import pokernow as writer
from auditor.ingest.detect import detect, read_file
from auditor.ingest.pokernow import read_pokernow, sniff_pokernow
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pokernow"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def _items(name: str) -> list:
    return list(read_pokernow(FIXTURES / name))


def _hands(name: str) -> list[dict]:
    return [i.hand for i in _items(name) if isinstance(i, SourceHand)]


def test_detected_by_content_whatever_the_suffix(tmp_path):
    text = (FIXTURES / "clean.csv").read_bytes()
    assert sniff_pokernow(text) and sniff_pokernow(b"\xef\xbb\xbf" + text)
    assert sniff_pokernow(text.replace(b"\n", b"\r\n"))
    assert not sniff_pokernow(b"entry,at,order,more\n") and not sniff_pokernow(b"PokerStars Hand #1:")
    saved = tmp_path / "log.txt"  # the same log saved as text
    saved.write_bytes(text)
    assert detect(saved).name == "pokernow"
    assert sum(isinstance(i, SourceHand) for i in read_file(saved)) == 2


def test_hands_come_in_play_order_with_amounts_as_round_totals():
    first, second = _hands("clean.csv")
    assert (first["hand_id"], second["hand_id"]) == ("clean#1", "clean#2")
    assert first["started_at"] < second["started_at"]
    assert first["stakes"] == {"blinds": [10, 20], "chip_unit": 1} and first["max_seats"] == 10
    # the id is the identity; the seats from `Player stacks:`
    assert [(s["seat"], s["player"], s["stack"]) for s in first["seats"]] == [(1, "a1", 1000), (3, "b2", 1000),
                                                                              (5, "c3", 1000)]
    acts = [(e["seat"], e["action"], e.get("amount"), e.get("to")) for e in first["events"] if e["kind"] == "action"]
    # `raises to 60`, `calls 60` (the small blind adds 50), `bets 100`, `calls 100`: totals of the round
    assert acts[:4] == [(1, "raise", 60, 60), (3, "call", 50, 60), (5, "fold", None, None), (3, "check", None, None)]
    assert {"kind": "return", "seat": 1, "amount": 200} in first["events"]
    assert first["events"][-1] == {"kind": "award", "pot": 0, "seat": 1, "amount": 340}
    # a straddle; the all-in button capped at the covered stack is not all-in; a repeated show is one show
    posts = [(e["post"], e["amount"]) for e in second["events"] if e["kind"] == "post"]
    assert posts == [("blind", 10), ("blind", 20), ("straddle", 40)]
    bet = next(e for e in second["events"] if e.get("action") == "bet")
    assert (bet["to"], bet["all_in"]) == (960, False)
    assert sum(e["kind"] == "show" for e in second["events"]) == 2
    holes = {e["seat"]: e["cards"] for e in second["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    assert holes == {1: ["Kc", "Kh"], 3: ["??", "??"], 5: ["Ad", "Qd"]}  # a show is the dealt cards face up


def test_conventions_are_notes_once_per_file_not_findings():
    notes = [i for i in _items("clean.csv") if isinstance(i, ReaderNote)]
    assert sorted(n.code for n in notes) == ["all-in-capped-at-the-covered-stack", "repeated-show-read-once"]
    result = audit([FIXTURES / "clean.csv"])
    assert result.hands_audited == 2 and result.findings.empty


def test_violations_are_recorded_and_reported_not_hidden_by_a_convention(tmp_path):
    """A check facing a bet is written as it happened. In a log declaring no blinds, the stakes are the first
    hand's, not each hand's own posts: a small blind of 15 after 10/20 stays against stakes of 10/20, for a pack
    that judges blind sizes (tda-2024 has no such rule). The repeated show is read once only when it repeats the
    same cards: a repeat naming other cards (the last show of `clean.csv` changed) is kept and reported."""
    result = audit([FIXTURES / "illegal.csv"])
    got = set(zip(result.findings["hand_id"], result.findings["category"], strict=True))
    assert got == {("illegal#1", "illegal-action")}
    second = _hands("illegal.csv")[1]
    assert second["stakes"]["blinds"] == [10, 20]
    assert [e["amount"] for e in second["events"] if e.get("blind") == 1] == [15]
    text = (FIXTURES / "clean.csv").read_text("utf-8")
    last = text.find("shows a A♦, Q♦.")  # newest first: the first in the file is the repeat
    disguised = tmp_path / "disguised.csv"
    disguised.write_text(text[:last] + "shows a A♦, J♦." + text[last + len("shows a A♦, Q♦."):], "utf-8")
    found = audit([disguised]).findings
    assert list(zip(found["hand_id"], found["category"], strict=True)) == [("disguised#2", "deal")]


def test_the_log_owner_s_cards_are_theirs_where_a_show_names_the_owner():
    """`Your hand is` names nobody; in `owner.csv` Ann shows exactly hand 1's `Your hand is`, so she is the owner,
    and hand 2's `Your hand is A♣, 3♦` is her deal: a card also on the board, reported (without the convention the
    duplicate could not be seen)."""
    _first, second = _hands("owner.csv")
    deal = {e["seat"]: e["cards"] for e in second["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    assert deal == {1: ["Ac", "3d"], 3: ["??", "??"]}
    notes = [i.code for i in _items("owner.csv") if isinstance(i, ReaderNote)]
    assert notes == ["owner-cards-from-your-hand"]
    found = audit([FIXTURES / "owner.csv"]).findings
    assert list(zip(found["hand_id"], found["category"], strict=True)) == [("owner#2", "deal")]
    # no owner named by a show: `Your hand is` stays nobody's (clean.csv's hand 1)
    assert all("??" in e["cards"] for e in _hands("clean.csv")[0]["events"] if e.get("to") == "hole")


def test_antes_dead_button_missing_and_missed_blinds():
    """`blinds.csv`: antes declared and posted; Bob, the small blind of hand 1, quits, so hand 2 has a dead button,
    put on his empty seat; in hand 3 Eve, new, posts a missing small blind (dead) and a missed big blind (live)."""
    first, second, third = _hands("blinds.csv")
    assert first["stakes"] == {"blinds": [10, 20], "ante": 5, "chip_unit": 1}
    assert second["events"][0] == {"kind": "button", "seat": 3} and 3 not in {s["seat"] for s in second["seats"]}
    posts = [(e["seat"], e["post"], e.get("blind"), e["amount"]) for e in third["events"] if e["kind"] == "post"]
    assert posts[4:] == [(7, "blind", 1, 10), (1, "blind", 2, 20), (3, "dead", None, 10), (3, "missed", None, 20)]
    assert [i.code for i in _items("blinds.csv") if isinstance(i, ReaderNote)] == ["dead-button-from-last-hand"]
    result = audit([FIXTURES / "blinds.csv"])
    assert result.hands_audited == 3 and result.findings.empty


def test_a_dead_button_hides_no_blind_posted_by_the_wrong_seat():
    """The dead button lies on the previous small blind's seat, not just before whoever posted first: in
    `dead-button-skipped.csv` the small blind owed by Cy (the first seat after the dead button) is posted by Dee,
    and that is reported."""
    found = audit([FIXTURES / "dead-button-skipped.csv"]).findings
    assert ("dead-button-skipped#2", "blind-order") in set(zip(found["hand_id"], found["category"], strict=True))


def test_a_bomb_pot_is_refused():
    (q,) = [i for i in _items("bomb.csv") if isinstance(i, Quarantined)]
    assert (q.hand_id, q.code, q.reason) == ("bomb#1", "unsupported-feature",
                                             "a bomb pot (no canonical forced bet holds it)")


def test_an_all_in_mark_with_chips_behind_not_capped_by_a_covered_stack_is_refused():
    (item,) = _items("all-in-not-covered.csv")
    assert isinstance(item, Quarantined) and item.code == "inconsistent-amounts"
    assert item.reason == "line 6: seat 3 goes all in with 100 behind"


def test_refusals_each_with_code_and_reason():
    got = sorted((q.hand_id, q.code, q.reason) for q in _items("refused.csv") if isinstance(q, Quarantined))
    assert got == [
        ("refused#1", "unsupported-game",
         "unsupported variant: Pot Limit Omaha Hi/Lo 8 or Better (Omaha hi/lo, a split-pot game)"),
        ("refused#2", "unsupported-feature", "run it twice (the canonical log has one board)"),
        ("refused#3", "damaged", "line 8: a line the PokerNow reader does not know: '\"Cy <b>x</b> @ c3\" juggles 20'"),
        ("refused#4", "truncated", "the log ends inside the hand (no `-- ending hand` line)"),
    ]


def test_bad_rows_name_file_line_and_reason_and_the_rest_is_read():
    items = _items("bad-rows.csv")
    quarantined = [i for i in items if isinstance(i, Quarantined)]
    assert [(q.line, q.code, q.reason) for q in quarantined] == [
        (19, "damaged", "line 13: a row of 2 fields, not entry,at,order"),
        (2, "damaged", "line 2: a row whose order 12 is not of its time 'yesterday' (PokerNow numbers a row by its "
                       "time in ms, times 100, plus its place)"),
    ]
    assert all(q.file.endswith("bad-rows.csv") for q in quarantined)
    assert [i.hand["hand_id"] for i in items if isinstance(i, SourceHand)] == ["bad-rows#2"]


def test_not_a_log_and_not_utf8(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_bytes(b"entry,at,order\n\xff\xfe\n")
    (q,) = read_pokernow(bad)
    assert (q.code, q.reason) == ("damaged", "not UTF-8 text (byte 15)")
    bad.write_text("a,b\n1,2\n")
    (q,) = read_pokernow(bad)
    assert q.code == "damaged" and "entry,at,order" in q.reason


def test_untrusted_names_are_escaped_in_reports(tmp_path):
    """A player token holding markup and terminal escapes is data: every report drops or escapes the control
    characters, the HTML and JUnit reports escape the markup (JSON, SARIF and CSV hold it as encoded text)."""
    # the id is the identity the reports name: the hostile text goes there
    hostile = "Cy @ c3\x1b[31m<script>x</script>"
    text = (FIXTURES / "illegal.csv").read_text("utf-8").replace("Cy <b>x</b> @ c3", hostile)
    path = tmp_path / "names.csv"
    path.write_text(text, "utf-8")
    result = audit([path])
    assert not result.findings.empty
    from auditor.report.html import render

    page = render(result)
    assert "<script>x</script>" not in page
    q = Quarantined(str(path), 1, "seat of Bo\x1b[31mb", code="damaged")
    assert "\x1b" not in q.one_line()
    from click.testing import CliRunner

    from auditor.cli import main

    reports = tmp_path / "reports"
    run = CliRunner().invoke(main, ["audit", str(path), "--format", "text", "--format", "html", "--format", "csv",
                                    "--format", "sarif", "--format", "junit", "--output", str(reports), "--quiet",
                                    "--fail-on", "never"])
    assert run.exit_code == 0, run.output
    for report in reports.iterdir():  # no raw control character anywhere; markup escaped where it is markup
        text = report.read_text("utf-8")
        assert "\x1b" not in text, report.name
        if report.suffix in (".html", ".xml"):
            assert "<script>x</script>" not in text and "c3&lt;script&gt;" in text, report.name


@pytest.mark.skipif(not (CORPUS / "rooms-2" / "pokernow").is_dir(), reason="the shared corpus is not beside us")
def test_real_logs_read_in_play_order():
    items = list(read_pokernow(CORPUS / "rooms-2" / "pokernow" / "bkushigian__PokerNowPy" / "log4.csv"))
    hands = [i.hand for i in items if isinstance(i, SourceHand)]
    numbers = [int(h["hand_id"].split("#")[1]) for h in hands]
    assert numbers == sorted(numbers) and len(hands) == 70
    assert hands[0]["money_scale"] == 100 and hands[0]["stakes"]["blinds"] == [5, 10]


def test_written_hands_read_back_as_carried(tmp_path):
    """The writer is the reader run backwards: every expressible simulated hand reads back as `carried`."""
    from click.testing import CliRunner

    from auditor.cli import main

    out = tmp_path / "sim.jsonl"
    run = CliRunner().invoke(main, ["simulate", "--variant", "holdem", "--structure", "no-limit", "--pack", "tda-2024",
                                    "--hands", "60", "--seed", "3", "-o", str(out)])
    assert run.exit_code == 0, run.output
    hands = [h for h in map(json.loads, out.read_text().splitlines()) if not writer.cannot_express(h)]
    assert len(hands) > 20
    table = [h for h in hands if h["table_id"] == hands[0]["table_id"]]
    path = tmp_path / "t.csv"
    writer.write_hands(table, path)
    back = [i.hand for i in read_pokernow(path) if isinstance(i, SourceHand)]
    assert len(back) == len(table)
    for k, (want, got) in enumerate(zip(table, back, strict=True), 1):
        expected = writer.carried(want, k, "t")
        got = dict(got)
        got.pop("started_at")
        assert json.loads(json.dumps(got)) == json.loads(json.dumps(expected)) or writer.cannot_express(want)


def test_verify_via_pokernow_small():
    """`auditor verify --via pokernow` at a small size: 100 % in every category the log can express, the others
    listed with the writer's reason (a release runs `--hands 20000`)."""
    from auditor.simulate.verify import verify_pack

    p = verify_pack("tda-2024", 400, seed=1, via="pokernow")
    assert not p.problems, [q.one_line() for q in p.problems][:3]
    planted = p.table[p.table.expected > 0]
    assert (planted.precision == 1.0).all() and (planted.recall == 1.0).all()
    assert p.read_back > 0
    measured = set(p.table.loc[p.table.expected > 0, "category"])
    assert {"illegal-action", "action-order", "winner", "record", "showdown"} <= measured
