"""Reader items as the tests look at them: every hand a SourceHand, whether the reader gave it alone or in a
TableChunk (a text room's reader gives its hands as chunks, each hand's dict rebuilt from its rows on request);
and a file's audit as its findings."""

from __future__ import annotations

from collections.abc import Iterable

from auditor.ingest.parquet import TableChunk


def one_by_one(items: Iterable) -> list:
    """The items with each TableChunk replaced by its quarantine entries then its hands, as SourceHands."""
    out: list = []
    for item in items:
        if isinstance(item, TableChunk):
            out.extend(item.quarantined)
            out.extend(item.sources())
        else:
            out.append(item)
    return out


def read_pokerstars(path, **options) -> list:
    """A PokerStars text file's items as the dialect engine gives them, one by one (`one_by_one`)."""
    from auditor.ingest.rooms import read_room

    return one_by_one(read_room(path, "pokerstars", **options))


def sniff_pokerstars(head: bytes) -> bool:
    from auditor.ingest.rooms import sniff

    return sniff("pokerstars", head)


def finding_rows(result) -> list[tuple[str, str, str]]:
    """(hand id, rule id, category) of every finding of an `AuditResult`, in its order."""
    findings = result.findings
    return list(zip(findings["hand_id"], findings["rule_id"], findings["category"], strict=True))


def findings(path, pack: str = "tda-2024", hands: int | None = None) -> list[tuple[str, str, str]]:
    """`finding_rows` of the audit of `path` (a file or folder) under `pack`; every hand read is audited, none
    quarantined (`hands` of them, when given)."""
    from auditor.pipeline import audit

    result = audit([path], pack=pack)
    assert result.quarantined == [] and result.hands_audited == result.hands_read > 0
    assert hands is None or result.hands_audited == hands, result.hands_audited
    return finding_rows(result)


def room_hands(path, room: str) -> list[dict]:
    """The canonical hands of a room's text file, each checked to be read (not quarantined) and valid; the
    room's convention notes left out."""
    from auditor.ingest.jsonl import consistency_error
    from auditor.ingest.rooms import read_room
    from auditor.ingest.validate import schema_error
    from auditor.model.records import ReaderNote, SourceHand

    items = [i for i in one_by_one(read_room(path, room)) if not isinstance(i, ReaderNote)]
    assert all(isinstance(i, SourceHand) for i in items), [i.one_line() for i in items]
    for item in items:
        assert schema_error(item.hand) is None and consistency_error(item.hand) is None, item.hand["hand_id"]
    return [i.hand for i in items]


def plant_some(hands: list[dict], pick: int, pack) -> list[dict]:
    """Each hand once more with one planted fault of `pack` (mutators that need no earlier hands), on its own
    table: the planted copies a writer's round-trip property audits beside the clean hands."""
    import copy

    from auditor.simulate.mutate import prime
    from auditor.simulate.verify import applicable_mutators

    prime(hands)  # the mutators' facts from one replay of them all
    out = []
    for n, hand in enumerate(hands):
        mutators = [m for m in applicable_mutators(pack, hand["variant"], hand["structure"]) if not m.needs_history]
        for k in range(len(mutators)):
            m = mutators[(pick + n + k) % len(mutators)]
            work = copy.deepcopy(hand)
            if m.plant(work) is not None:
                work["hand_id"] += f"~{m.name}"
                work["table_id"] += f"~{n}"
                out.append(work)
                break
    return out


def money(hand: dict, *kinds: str) -> list[tuple]:
    """(kind, seat, amount) of the hand's events of `kinds`, an award's pot after it: what a room's chips did."""
    return [(e["kind"], e.get("seat"), e["amount"]) + ((e["pot"],) if e["kind"] == "award" else ())
            for e in hand["events"] if e["kind"] in kinds]


def file_items(path) -> list:
    """Every item `read_file` gives for `path` (detection as the audit does it)."""
    from auditor.ingest.detect import read_file

    return list(read_file(path))


def file_hands(path) -> list[dict]:
    """The hands of `path`, each a SourceHand (a quarantine fails the caller's test with its line)."""
    from auditor.model.records import ReaderNote, SourceHand

    got = [i for i in file_items(path) if not isinstance(i, ReaderNote)]
    assert all(isinstance(i, SourceHand) for i in got), [i.one_line() for i in got]
    return [i.hand for i in got]


def actions(hand: dict) -> list[tuple]:
    """(seat, action, amount, to) of each action of `hand`."""
    return [(e["seat"], e["action"], e.get("amount"), e.get("to")) for e in hand["events"] if e["kind"] == "action"]


def assert_written_back(room: str, tmp, variant: str, structure: str, seed: int, low: int, pick: int,
                        currency: str | None = None, unit: int = 1) -> None:
    """Hands simulated (a table of `low` to 9 seats, in chips of `unit`, or cents of `currency`), some of them
    planted with violations, written by `room`'s writer, read back by its reader as the writer's `carried` hands,
    with the findings the canonical hands give but for the categories the room's text hides."""
    from auditor.check.packs import resolve_pack
    from auditor.export import writer
    from auditor.ingest.detect import detect, read_file
    from auditor.model.records import Quarantined, ReaderNote
    from auditor.pipeline import audit
    from auditor.simulate import simulate_hands, write_jsonl

    pack, w = resolve_pack("tda-2024"), writer(room)
    clean = list(simulate_hands(variant, structure, 30, seed, house=pack.house, rule_pack=pack.name,
                                table_size=(low, 9), stakes={"blinds": [50, 100], "chip_unit": unit},
                                sit_outs=True, session_hands=(10, 30)))
    if currency:  # the same integers as cents: the room writes them as money
        for h in clean:
            h["currency"], h["money_scale"] = currency, 100
            h["stakes"]["chip_unit"] = 1
    hands = [h for h in clean + plant_some(clean, pick, pack) if w.cannot_express(h) is None]
    if not hands:
        return
    path = tmp / "hands.xml"
    assert w.write_hands(hands, path) == len(hands)
    assert detect(path).name == room
    back = [i for i in read_file(path) if not isinstance(i, ReaderNote)]
    assert [b.one_line() for b in back if isinstance(b, Quarantined)] == []
    assert [b.hand for b in back] == [w.carried(h) for h in hands]
    if unit != 1 and not currency:
        return  # counted in its chip unit, a hand reads back with other amounts: its findings speak of them
    canonical = tmp / "hands.jsonl"
    write_jsonl(hands, canonical)

    def findings_of(p) -> list[tuple]:
        result = audit([p], pack="tda-2024")
        assert result.quarantined == []
        return sorted(finding_rows(result))

    hidden = set(w.HIDDEN_CATEGORIES)
    assert findings_of(path) == [f for f in findings_of(canonical) if f[2] not in hidden]
