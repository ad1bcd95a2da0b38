"""Canonical hands written as an XML room's hand history: the room's dialect (`rooms/xml/<room>.yaml`) run
backwards, the writer's side of the XML dialect engine (`auditor/ingest/xml_rooms.py` reads what it writes).

Why: `auditor verify --via ROOM` proves the room's reader by writing simulated hands, one planted fault each,
in the room's XML and auditing what the reader gives back. The elements, attributes, action codes, card and
money syntax are the dialect's; only the order of statements is code, and no room is named in it.

What the XML cannot carry, and how it is handled:

- Chips: a hand without a currency is written counted in its own chip unit (every amount divided by
  `stakes.chip_unit`), as the reader takes one chip as the unit; a raked hand in other chips is refused (a rake
  schedule is in the log's own units). A cash hand is written in its money, in cents, with a chip of one cent.
- The file states no rake, no return of an uncalled bet, no show and no muck: the reader derives them (the
  dialect's conventions). The writer states `uncalled_flag` true, so a `win` is the award alone; a hand whose
  derived return, rake or shows are not those of the log (an uncalled bet kept, a rake the file cannot
  imply, chips missing without a flop, a show out of order, a muck) is refused with that reason.
- Cards: every hole card the log knows is written, except those of a player still in at the end who did not
  show (written hidden: the file shows a player's cards only when they were shown). Burns have no element
  (`HIDDEN_CATEGORIES`).
- `cannot_express` writes the hand and reads it back: whatever the reader would give back differently from
  `carried(hand)` is refused, named by what differs, so a hand verify writes is one the reader returns whole.

A writer never judges: an illegal action is written as the room would (a check facing a bet is a check), so
the reader records it and a rule reports it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from auditor.export import burns_left_out
from auditor.export.game_checks import game_problem
from auditor.ingest.limits import DEFAULT_LIMITS
from auditor.ingest.xml_dialect import XmlDialect, xml_dialect

__all__ = ["XmlRoomWriter", "xml_room_writer"]

#: the chip unit (in the log's integer amounts) the reader takes for a hand without a currency
IMPLIED_CHIP_UNIT = 1
_KINDS = {"holdem": "Holdem", "omaha": "Omaha"}


def xml_room_writer(room: str) -> XmlRoomWriter:
    """The writer of the XML room `room` (KeyError if it has no dialect)."""
    try:
        return XmlRoomWriter(xml_dialect(room))
    except FileNotFoundError as exc:
        raise KeyError(room) from exc


class XmlRoomWriter:
    """An XML room's writer (the interface `auditor.export` documents), from its dialect."""

    IMPLIED_CHIP_UNIT = IMPLIED_CHIP_UNIT

    def __init__(self, spoken: XmlDialect) -> None:
        self.d = spoken
        self.SUFFIX = spoken.suffix
        self.HIDDEN_CATEGORIES = dict(spoken.data["writes"]["hidden_categories"])
        game = spoken.data["game"]
        self.games = {v: k for k, v in reversed(list(game["games"].items())) if isinstance(v, str)}
        self.structures = {v: k for k, v in reversed(list(game["structures"].items())) if isinstance(v, str)}

    # -- what the XML can hold ---------------------------------------------------------------------------

    def cannot_express(self, hand: dict) -> str | None:
        """Why the room's XML cannot hold `hand`, or None when it can (see the module docstring)."""
        title = self.d.title
        problem = game_problem(title, "XML", hand, self.games, self.structures, self.d.places)
        if problem:
            return problem
        stakes = hand["stakes"]
        if hand["structure"] == "fixed-limit" and not stakes.get("bet_units"):
            return f"a fixed-limit hand with no bet units: {title} names the game by its small and big bet"
        if hand.get("currency") is not None and hand["currency"] not in self.d.symbol_of \
                and hand["currency"] not in self.d.data["money"].get("codes", {}).values():
            return f"{title} writes no symbol for {hand['currency']}"
        unit = self._unit(hand)
        if any(s["stack"] % unit for s in hand["seats"]) or any(
                e.get(k, 0) % unit for e in hand["events"] if e["kind"] != "deal" for k in ("amount", "to")):
            return f"an amount that is not a whole number of chips of {unit}"
        if unit != 1 and any(e["kind"] == "rake" for e in hand["events"]):
            return (f"a raked hand in chips of {unit}: {title} XML states no chip unit, so this writer counts chips "
                    "in the hand's unit, which would move the rake against a schedule in the log's own units")
        return (self._names_problem(hand) or self._events_problem(hand) or self._all_in_problem(hand)
                or self._round_trip_problem(hand))

    def _unit(self, hand: dict) -> int:
        return 1 if hand.get("currency") is not None else hand["stakes"]["chip_unit"]

    def _names_problem(self, hand: dict) -> str | None:
        """Names the XML cannot keep as they are: control characters (not XML), white space the reader trims or
        an attribute folds, one name in two seats (actions name the player, not the seat)."""
        for what, name in [("table", hand["table_id"])] + [("player", s["player"]) for s in hand["seats"]]:
            if any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF or ord(c) in (0xFFFE, 0xFFFF) for c in name):
                return f"{what} {name!r} holds a character XML cannot hold"
            if name != name.strip():
                return f"{what} {name!r} starts or ends in white space, which {self.d.title} XML does not keep"
        by_seat = self.d.doc.get("players_named_by") == "seat"
        if not by_seat and len({s["player"] for s in hand["seats"]}) < len(hand["seats"]):
            return (f"one player name in two seats: {self.d.title} actions name the player, not the seat, so the "
                    "XML cannot say which of the two seats acts")
        if any(s.get("status", "active") not in ("active", "sitting_out") for s in hand["seats"]):
            return f"{self.d.title} marks an absent seat only as sitting out"
        return None

    def _events_problem(self, hand: dict) -> str | None:
        title = self.d.title
        events = hand["events"]
        seating = next((e["kind"] for e in events if e["kind"].startswith("seat_")), None)
        if seating:
            return f"{title} XML has no element for a {seating.replace('_', ' ')} (a hand's players are only listed)"
        if not events or events[0]["kind"] != "button" or sum(e["kind"] == "button" for e in events) != 1:
            return f"{title} marks one dealer, before the hand starts"
        for e in events:
            kind = e["kind"]
            if kind == "post" and (e["post"] not in ("blind", "ante", "missed", "dead") or not self._post_code(e)):
                return f"{title} has no action code for a post of kind {e['post']!r}"
            if kind == "post" and e["post"] == "blind" and e.get("blind") not in (1, 2):
                return f"{title} has no third blind"
            if kind not in ("button", "post", "deal", "action", "show", "muck", "return", "award", "rake"):
                return f"{title} XML has no element for a {kind} event"
            if kind == "deal" and e["to"] == "board" and "??" in e["cards"]:
                return f"a community card whose face the log does not know ({title} writes every board card)"
            if kind == "deal" and e["to"] == "hole" and "??" in e["cards"] and len(set(e["cards"])) > 1:
                return f"hole cards partly known ({title} writes a hand whole or hidden)"
        boards = sum(e["kind"] == "deal" and e["to"] == "board" for e in events)
        if boards > len(self.d.data["rounds"]["betting"]) - 1:
            return f"{boards} community-card deals ({title} has {len(self.d.data['rounds']['betting']) - 1})"
        return None

    def _post_code(self, e: dict) -> str | None:
        """The room's action code for post `e` (a missed blind is a second big blind, a dead one a second small
        blind), or None when the dialect has none."""
        spec = {"blind": {"post": "blind", "blind": e.get("blind")}, "ante": {"post": "ante"},
                "missed": {"post": "blind", "blind": 2}, "dead": {"post": "blind", "blind": 1}}.get(e["post"])
        try:
            return self.d.code_for(**spec) if spec else None
        except KeyError:
            return None

    def _round_trip_problem(self, hand: dict) -> str | None:
        """Write the hand, read it back, and name the first thing the reader would give back otherwise."""
        from auditor.ingest.xml_hand import Refusal, convert
        from auditor.ingest.xml_stream import Broken, games

        doc = self.d.doc
        text = self.session_text([hand])
        items = list(games(io.BytesIO(text.encode("utf-8")), doc["session"], doc["header"], doc["hand"],
                           doc["hand_id"], DEFAULT_LIMITS, doc.get("encoding_without_mark"), doc.get("wrapper")))
        if len(items) != 1 or isinstance(items[0], Broken):
            return f"{self.d.title} XML of this hand does not read back as one hand"
        try:
            back = convert(items[0], self.d, hand["rule_pack"]).hand
        except Refusal as refusal:
            return f"its {self.d.title} XML would be refused: {refusal.reason}"
        return _difference(self.carried(hand), back, self.d.title)

    # -- writing -------------------------------------------------------------------------------------------

    def write_hands(self, hands: Iterable[dict], path: str | Path) -> int:
        """Write the hands (each one `cannot_express` accepts) to one file of the room's XML, in order: a
        session per run of hands at the same table and game; returns how many were written. UTF-8."""
        runs: list[list[dict]] = []
        for hand in hands:
            problem = self.cannot_express(hand)
            if problem:
                raise ValueError(f"hand {hand.get('hand_id')!r} cannot be written as {self.d.title} XML: {problem}")
            if runs and self._header(runs[-1][-1]) == self._header(hand):
                runs[-1].append(hand)
            else:
                runs.append([hand])
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            for k, run in enumerate(runs):
                stream.write(self.session_text(run, declaration=k == 0))
        return sum(map(len, runs))

    def _header(self, hand: dict) -> dict[str, str]:
        """The table-wide fields of the hand's session, by field name: its game line (one field or several, as
        the dialect's `writes.game_line` spells them), table, currency, table size and uncalled-bet flag."""
        fields = self.d.doc["header_fields"]
        writes = self.d.data["writes"]
        currency = hand.get("currency")
        stakes = hand["stakes"]
        small, big = (stakes["bet_units"][0], stakes["bet_units"][-1]) if hand["structure"] == "fixed-limit" \
            else tuple(stakes["blinds"])
        parts = {"game": self.games[hand["variant"]], "structure": self.structures[hand["structure"]],
                 "small": self._money(hand, small), "big": self._money(hand, big)}
        lines = writes.get("game_line") or {fields["game"]: "{game} {structure} {small}/{big}"}
        out = {name: template.format(**parts) for name, template in lines.items()}
        out[fields["table"]] = writes.get("table", "{table}").format(table=hand["table_id"])
        if currency is not None and "currency" in fields:
            codes = {v: k for k, v in reversed(list(self.d.data["money"].get("codes", {}).items()))}
            out[fields["currency"]] = codes.get(currency, currency)
        if "table_size" in fields:
            out[fields["table_size"]] = str(hand["max_seats"])
        if "uncalled_flag" in fields:
            out[fields["uncalled_flag"]] = "true"
        return out

    def _money(self, hand: dict, value: int) -> str:
        currency = hand.get("currency")
        if currency is not None and not self.d.data["writes"].get("amount_symbols", True):
            return self.d.money_text(value, None, hand.get("money_scale", self.d.scale))
        if currency is not None:
            return self.d.money_text(value, currency, hand.get("money_scale", self.d.scale))
        return self.d.money_text(value // hand["stakes"]["chip_unit"], None, 1)

    def session_text(self, hands: list[dict], declaration: bool = True) -> str:
        """One session holding `hands` (which share a header), as the room writes it: a session element with its
        header element's fields as child elements, or (a dialect with no session) the header element with its
        fields as attributes, each hand a document after it. The fields the dialect writes on each hand element
        (`writes.hand_attributes`) go there instead."""
        doc = self.d.doc
        on_hand = set(self.d.data["writes"].get("hand_attributes", []))
        header = {k: v for k, v in self._header(hands[0]).items() if k not in on_hand}
        out = ['<?xml version="1.0" encoding="utf-8"?>'] if declaration and doc["session"] else []
        # the byte-order mark that says UTF-8, where a file without one is read in another encoding
        mark = "\ufeff" if declaration and not doc["session"] and doc.get("encoding_without_mark") else ""
        if doc["session"]:
            out.append(f'<{doc["session"]} sessioncode="0">')
            out.append(f"  <{doc['header']}>")
            out.extend(f"    <{tag}>{escape(value)}</{tag}>" for tag, value in header.items())
            out.append(f"  </{doc['header']}>")
        elif doc["header"] != doc["hand"]:  # else the hand element is its own header
            out.append(f"<{doc['header']} " + " ".join(f"{k}={quoteattr(v)}" for k, v in header.items()) + "/>")
        for hand in hands:
            out.extend(self._game(hand).lines("  " if doc["session"] else ""))
        if doc["session"]:
            out.append(f"</{doc['session']}>")
        return mark + "\n".join(out) + "\n"

    def _seat_key(self, seat: int) -> str:
        """A seat as the file numbers it (`seat_base`)."""
        return str(seat - 1 + self.d.doc.get("seat_base", 1))

    def _game(self, hand: dict) -> _El:
        d, doc = self.d, self.d.doc
        writes = d.data["writes"]
        events = hand["events"]
        button = events[0]["seat"]
        wins: dict[int, int] = {}
        for e in events:
            if e["kind"] == "award":
                wins[e["seat"]] = wins.get(e["seat"], 0) + e["amount"]
        pf = doc["player_fields"]
        game = _El(doc["hand"], {doc["hand_id"]: hand["hand_id"]})
        header = self._header(hand)
        game.attrs.update({k: header[k] for k in writes.get("hand_attributes", []) if k in header})
        started = _stamp(hand.get("started_at"))
        where = doc["hand_started"]
        if isinstance(where, dict):
            if started and where["format"] == "epoch":  # seconds since 1970, UTC
                moment = datetime.fromisoformat(started).replace(tzinfo=UTC)
                game.attrs[where["attribute"]] = str(int(moment.timestamp()))
            elif started:
                game.attrs[where["attribute"]] = datetime.fromisoformat(started).strftime(where["format"])
        elif started:
            game.child(where[:-1]).children.append(_El(where[-1], {}, started))
        players = game.child(doc["player"][:-1])
        flag = doc.get("not_dealt_in")
        rows = list(hand["seats"])
        if doc.get("seats_listed"):  # every seat of the table, an empty one marked as such
            taken = {s["seat"] for s in rows}
            rows = sorted(rows + [{"seat": n} for n in range(1, hand["max_seats"] + 1) if n not in taken],
                          key=lambda s: s["seat"])
        for s in rows:
            if "player" not in s:
                players.children.append(_El(doc["player"][-1], {
                    pf["seat"]: self._seat_key(s["seat"]), **writes.get("empty_seat_row", {}),
                    doc["empty_seat"]["attribute"]: doc["empty_seat"]["value"]}))
                continue
            attrs = {pf["seat"]: self._seat_key(s["seat"]), pf["name"]: s["player"],
                     pf["stack"]: self._money(hand, s["stack"])}
            if "button" in pf:
                attrs[pf["button"]] = doc["button_flag"] if s["seat"] == button else writes.get("not_button_value", "0")
            if "win" in pf:
                attrs[pf["win"]] = self._money(hand, wins.get(s["seat"], 0))
            if flag and s.get("status") == "sitting_out":
                attrs[flag["attribute"]] = flag["value"]
            elif flag and "dealt_in_value" in writes:
                attrs[flag["attribute"]] = writes["dealt_in_value"]
            players.children.append(_El(doc["player"][-1], attrs))
        if "dealer" in doc:
            game.child(doc["dealer"]["path"]).attrs[doc["dealer"]["attribute"]] = self._seat_key(button)
        rake = d.conventions["rake"]
        if rake["value"] == "written" and "path" not in rake:  # in the money's smallest unit
            scale = hand.get("money_scale", d.scale) if hand.get("currency") is not None else 1
            total = sum(e["amount"] for e in events if e["kind"] == "rake")
            game.attrs[rake["field"]] = str(total * d.scale // scale if scale != d.scale else total)
        rounds = self._rounds(hand)
        if doc["round_number"] is None:  # one element holds every event, the wins in an element of their own
            flat = [child for _number, children in rounds for child in children]
            if "win" in doc:
                path = doc["win"]["path"]
                flat.append(_El(path[-2], dict(writes.get("win_parent", {})), None, self._win_elements(hand, wins)))
            if doc["round"] is None:  # the hand element itself holds them
                game.children.extend(flat)
            else:
                game.children.append(_El(doc["round"], {}, None, flat))
            if rake["value"] == "written" and "path" in rake:  # an amount, on the element at its path
                total = sum(e["amount"] for e in events if e["kind"] == "rake")
                game.child(rake["path"]).attrs[rake["field"]] = self._money(hand, total)
            return game
        if "win" in doc:
            rounds.append((writes["wins_round"], self._win_elements(hand, wins)))
        for number, children in rounds:
            game.children.append(_El(doc["round"], {doc["round_number"]: str(number)}, None, children))
        return game

    def _card_el(self, card: str) -> _El:
        """A card as an element of its own, its rank and suit as attributes (`document.card`)."""
        spec = self.d.doc["card"]
        if "number" in spec:
            return _El(spec["element"], {spec["number"]: self.d.card_word(card)})
        return _El(spec["element"], {spec["rank"]: self.d.rank_word[card[0]], spec["suit"]: self.d.suit_word[card[1]]})

    def _player_key(self, hand: dict, seat: int) -> str:
        if self.d.doc.get("players_named_by") == "seat":
            return self._seat_key(seat)
        return next(s["player"] for s in hand["seats"] if s["seat"] == seat)

    def _win_elements(self, hand: dict, wins: dict[int, int]) -> list[_El]:
        """Wins written as elements: each player's awards together, and the return of an uncalled bet marked; in a
        dialect whose win elements hold the cards shown (`win.cards`), one for each player who showed (the cards
        as its elements) or mucked (marked) too."""
        w = self.d.doc["win"]
        extra = self.d.data["writes"].get("win_attributes", {})
        if w.get("cards"):
            events = hand["events"]
            shows = {e["seat"]: e["cards"] for e in events if e["kind"] == "show"}
            mucks = {e["seat"] for e in events if e["kind"] == "muck"}
            out = []
            for seat in dict.fromkeys([*wins, *shows, *sorted(mucks)]):
                attrs = {w["player"]: self._player_key(hand, seat), w["amount"]: self._money(hand, wins.get(seat, 0)),
                         **extra}
                if seat in mucks and "muck" in w:
                    attrs[w["muck"]["attribute"]] = w["muck"]["value"]
                out.append(_El(w["path"][-1], attrs, None, [self._card_el(c) for c in shows.get(seat, [])]))
            return out
        out = [_El(w["path"][-1], {w["player"]: self._player_key(hand, seat), w["amount"]: self._money(hand, amount)})
               for seat, amount in wins.items()]
        for e in hand["events"]:
            if e["kind"] == "return" and "returned" in w:
                out.append(_El(w["path"][-1], {w["amount"]: self._money(hand, e["amount"]), w["returned"]:
                                              w.get("returned_value", "true"),
                                              w["player"]: self._player_key(hand, e["seat"])}))
        return out

    def _rounds(self, hand: dict) -> list[tuple[str, list[_El]]]:
        """The round elements: the posts (and who sits out), then each betting round with its cards and actions,
        every action numbered in the order it was taken."""
        d, doc = self.d, self.d.doc
        writes = d.data["writes"]
        af, cf = doc["action_fields"], doc["cards_fields"]
        rounds = d.data["rounds"]
        events = hand["events"]
        live = _live_at_end(events)
        shown = {e["seat"] for e in events if e["kind"] == "show"}
        mucked = _told_mucks(d, events)
        posts: list[_El] = []
        betting: dict[str, list[_El]] = {str(r): [] for r in rounds["betting"]}
        number = 0
        sep = writes.get("card_separator", " ")
        hole = rounds["hole_cards"] if isinstance(rounds["hole_cards"], str) else rounds["hole_cards"][0]

        code_field = af["code"] if isinstance(af["code"], str) else af["code"][-1]
        code_attributes = writes.get("code_attributes", {})

        def action(seat: int | None, code: str, amount: int | None) -> _El:
            nonlocal number
            number += 1
            attrs = {af["order"]: str(number), af["player"]: "" if seat is None else self._player_key(hand, seat)}
            if code in code_attributes:  # a code read from the first of several attributes, the others with it
                attrs.update({**code_attributes[code], af["code"][0]: code})
            else:
                attrs[code_field] = code
            if amount or writes.get("zero_amounts", True):
                attrs[af["amount"]] = self._money(hand, amount or 0)
            return _El(doc["action"], attrs)

        def cards(kind: str, seat: int | None, shown_cards: list[str]) -> _El:
            if "card" in doc:  # an event of its own (its code `kind`), the cards as elements
                el = action(seat, kind, None)
                if seat is None:
                    del el.attrs[af["player"]]
                el.children = [self._card_el(c) for c in shown_cards]
                return el
            text = sep.join(d.card_word(c) for c in shown_cards)
            attrs = {cf["kind"]: kind, cf["player"]: "" if seat is None else self._player_key(hand, seat)}
            if "cards" in cf:
                return _El(doc["cards"], {**attrs, cf["cards"]: text})
            return _El(doc["cards"], attrs, text)

        if "not_dealt_in" not in doc:
            for s in hand["seats"]:
                if s.get("status") == "sitting_out":
                    posts.append(action(s["seat"], d.code_for(sits_out=True), 0))
        ids = [str(r) for r in rounds["betting"]]
        current = ids[0]
        boards = iter(ids[1:])
        kinds = list(rounds["board"])
        if "card" in doc:  # each deal of the board is an event, its code the deal's (flop, turn, river)
            kinds = [code for code, spec in d.actions.items() if spec.get("deal") == "board"]
        board: list[str] = []
        said: list[_El] = []  # the shows and mucks of a dialect that says them as events, after the betting
        for e in events:
            kind = e["kind"]
            if kind == "post":
                posts.append(action(e["seat"], self._post_code(e) or "", e["amount"]))
            elif kind == "deal" and e["to"] == "hole":
                hidden = e["seat"] in live and e["seat"] not in shown and e["seat"] not in mucked
                dealt = ["??"] * len(e["cards"]) if hidden else e["cards"]
                if "??" in dealt and not writes.get("hidden_hole_cards", True):
                    continue
                if "card" in doc and doc.get("win", {}).get("cards"):  # the shows go with the wins
                    dealt = ["??"] * len(e["cards"]) if e["seat"] in shown else dealt
                    betting[current].append(cards(d.code_for(cards="hole"), e["seat"], dealt))
                    continue
                if "card" in doc:
                    word = d.code_for(shows="muck") if e["seat"] in mucked else d.code_for(shows="show") \
                        if e["seat"] in live else d.code_for(cards="hole")
                    (said if e["seat"] in live else betting[current]).append(cards(word, e["seat"], dealt))
                    continue
                word = rounds.get("mucked_cards", hole) if e["seat"] in mucked else hole
                betting[current].append(cards(word, e["seat"], dealt))
            elif kind == "deal" and e["to"] == "board":
                current = next(boards)
                word = kinds[min(ids.index(current) - 1, len(kinds) - 1)] if kinds else ""
                board = board + e["cards"] if rounds.get("board_cumulative") else e["cards"]
                betting[current].append(cards(word, None, board))
            elif kind == "action":
                what = e["action"]
                if what in ("fold", "check"):
                    betting[current].append(action(e["seat"], d.code_for(action=what), 0))
                elif what == "raise" and any(s == {"action": "raise", "amount": "to"} for s in d.actions.values()):
                    betting[current].append(action(e["seat"], d.code_for(action="raise", amount="to"), e["to"]))
                else:
                    betting[current].append(action(e["seat"], d.code_for(action=what, amount="added"), e["amount"]))
            elif kind == "return" and any("returned" in s for s in d.actions.values()):
                betting[current].append(action(e["seat"], d.code_for(returned=True), e["amount"]))
            elif kind == "muck" and "card" in doc and not doc.get("win", {}).get("cards") and e["seat"] not in {
                    x["seat"] for x in events if x["kind"] == "deal" and x["to"] == "hole" and "??" not in x["cards"]}:
                said.append(action(e["seat"], d.code_for(shows="muck"), None))
        if said:
            betting[current].extend(said)
        out = [(str(rounds["posts"]), posts)]
        out.extend((r, lines) for r, lines in betting.items() if lines)
        return out

    # -- what the reader gives back --------------------------------------------------------------------------

    def carried(self, hand: dict) -> dict:
        """`hand` as the room's reader should give it back from this writer's XML: the room's title, the time in
        whole seconds (UTC), chips of a hand without a currency counted in its chip unit, burns and event times
        gone, `all_in` only where true, a seat's status only when sitting out."""
        unit = self._unit(hand)
        out: dict[str, Any] = {"hand_id": hand["hand_id"], "table_id": hand["table_id"], "room": self.d.title,
                               "variant": hand["variant"], "structure": hand["structure"],
                               "rule_pack": hand["rule_pack"]}
        stamp = _stamp(hand.get("started_at"))
        if stamp:
            out["started_at"] = stamp.replace(" ", "T") + "+00:00"
        if hand.get("currency") is not None:
            out["currency"] = hand["currency"]
            out["money_scale"] = hand.get("money_scale", 1)
        out["max_seats"] = hand["max_seats"]
        stakes = {k: (v // unit if isinstance(v, int) else [x // unit for x in v]) for k, v in hand["stakes"].items()}
        stakes["chip_unit"] = 1
        out["stakes"] = stakes
        out["seats"] = [{"seat": s["seat"], "player": s["player"], "stack": s["stack"] // unit,
                         **({"status": "sitting_out"} if s.get("status") == "sitting_out" else {})}
                        for s in sorted(hand["seats"], key=lambda s: s["seat"])]
        live = _live_at_end(hand["events"])
        shown = {e["seat"] for e in hand["events"] if e["kind"] == "show"} | _told_mucks(self.d, hand["events"])
        left = {s["seat"]: s["stack"] // unit for s in hand["seats"]}
        events = []
        for e in hand["events"]:
            if e["kind"] == "deal" and e["to"] == "burn":
                continue
            e = {k: (v // unit if k in ("amount", "to") and e["kind"] != "deal" else v) for k, v in e.items()
                 if k not in ("time", "all_in")}
            if e["kind"] in ("post", "action") and "amount" in e:
                left[e["seat"]] = left.get(e["seat"], 0) - e["amount"]
                if left[e["seat"]] == 0 and e["amount"] > 0:
                    e["all_in"] = True
            elif e["kind"] == "return":
                left[e["seat"]] = left.get(e["seat"], 0) + e["amount"]
            elif e["kind"] == "deal" and e["to"] == "hole" and e["seat"] in live and e["seat"] not in shown:
                e["cards"] = ["??"] * len(e["cards"])
            events.append(e)
        out["events"] = events
        return out

    def _all_in_problem(self, hand: dict) -> str | None:
        """The XML has no all-in mark: the reader marks a post or action all-in when it leaves no chips behind,
        so a mark that says otherwise cannot be written."""
        left = {s["seat"]: s["stack"] for s in hand["seats"]}
        for e in hand["events"]:
            if e["kind"] in ("post", "action") and "amount" in e:
                left[e["seat"]] = left.get(e["seat"], 0) - e["amount"]
                if bool(e.get("all_in")) != (left[e["seat"]] == 0 and e["amount"] > 0):
                    return (f"an all-in mark that disagrees with the chips left ({self.d.title} XML has no all-in "
                            "mark: its reader marks an action all-in when it leaves no chips behind)")
            elif e["kind"] == "return":
                left[e["seat"]] = left.get(e["seat"], 0) + e["amount"]
        return None

    def event_index(self, hand: dict) -> list[int | None]:
        """For each event of `hand`, its index in the hand read back (None for a burn, which has no element)."""
        return burns_left_out(hand)


@dataclass
class _El:
    """An element to write: its tag, attributes, text and children (a hand is built whole, then written)."""
    tag: str
    attrs: dict[str, str]
    text: str | None = None
    children: list[_El] = field(default_factory=list)

    def child(self, path: list[str]) -> _El:
        """The element at `path` below this one, made where it is not there yet (the last one of its tag)."""
        node = self
        for tag in path:
            found = next((c for c in reversed(node.children) if c.tag == tag), None)
            if found is None:
                found = _El(tag, {})
                node.children.append(found)
            node = found
        return node

    def lines(self, indent: str) -> list[str]:
        attrs = "".join(f" {k}={quoteattr(v)}" for k, v in self.attrs.items())
        if self.text is not None:
            return [f"{indent}<{self.tag}{attrs}>{escape(self.text)}</{self.tag}>"]
        if not self.children:
            return [f"{indent}<{self.tag}{attrs} />"]
        out = [f"{indent}<{self.tag}{attrs}>"]
        for c in self.children:
            out.extend(c.lines(indent + "  "))
        out.append(f"{indent}</{self.tag}>")
        return out


def _told_mucks(d: XmlDialect, events: list[dict]) -> set[int]:
    """The players whose muck the room's XML can say (by their mucked cards, or an event of its own, when it has
    an element or a code for them)."""
    if "mucked_cards" not in d.data["rounds"] and not any(s.get("shows") == "muck" for s in d.actions.values()) \
            and "muck" not in d.doc.get("win", {}):
        return set()
    return {e["seat"] for e in events if e["kind"] == "muck"}


def _live_at_end(events: list[dict]) -> set[int]:
    dealt = {e["seat"] for e in events if e["kind"] == "deal" and e["to"] == "hole"}
    folded = {e["seat"] for e in events if e["kind"] == "action" and e["action"] == "fold"}
    live = dealt - folded
    return live if len(live) > 1 else set()


def _stamp(started: str | None) -> str | None:
    """`2024-01-01T00:02:30Z` as the room writes a start: `2024-01-01 00:02:30`, in UTC."""
    if not started:
        return None
    try:
        moment = datetime.fromisoformat(started.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


_WHAT = {"return": "an uncalled bet returned otherwise than the room's reader derives it (where the XML writes no "
                   "return)",
         "rake": "a rake the XML cannot imply (it writes none: chips not paid after a flop, up to its share, are rake)",
         "show": "shows the XML cannot say (it writes who showed, not in which order)",
         "muck": "a muck (the XML writes none)",
         "award": "awards the XML cannot lay on the pots as the log does (it writes one win per player)",
         "deal": "cards dealt otherwise than the XML deals them (clockwise from the dealer, at once)",
         "action": "an action whose amounts the XML cannot state (a raise's total, a call's or bet's chips)",
         "post": "a post the XML's action codes read back otherwise",
         "button": "the dealer"}


#: the events the reader derives rather than reads, in the order a difference is put down to them
_DERIVED = ("return", "rake", "show", "muck", "award")


def _difference(want: dict, got: dict, title: str) -> str | None:
    """What differs between the hand expected back and the hand read back, as a reason (None when equal)."""
    for key in ("hand_id", "table_id", "variant", "structure", "currency", "money_scale", "max_seats", "started_at"):
        if want.get(key) != got.get(key):
            return f"{title} XML reads back another {key.replace('_', ' ')}"
    if want["stakes"] != got["stakes"]:
        return (f"the stakes {want['stakes']} are not what {title} XML states ({got['stakes']}: the blinds from its "
                "game line, an ante from the antes posted)")
    if want["seats"] != got["seats"]:
        return (f"seats {title} XML reads back otherwise (a player dealt in while sitting out, or sitting out "
                "without a mark)")
    a, b = want["events"], got["events"]
    for x, y in zip(a, b, strict=False):
        if x != y:  # where two kinds meet, the one the reader derives names the cause (a return it placed...)
            kind = min((x["kind"], y["kind"]), key=lambda k: _DERIVED.index(k) if k in _DERIVED else len(_DERIVED))
            return _WHAT.get(kind, f"a {kind} event {title} XML cannot hold")
    if len(a) != len(b):
        extra = (a if len(a) > len(b) else b)[min(len(a), len(b))]
        return _WHAT.get(extra["kind"], f"a {extra['kind']} event {title} XML cannot hold")
    return None
