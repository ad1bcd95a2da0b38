"""One hand element of an XML room turned into a canonical hand, by the room's dialect (`xml_dialect`).

Readers record, rules judge: an action is written as the file has it, legal or not (a check facing a bet, an
action out of turn or after a fold, a raise too small, a seat listed twice); the hand is refused (`Refusal`) only
when the canonical log cannot hold what the file says: a game or structure the engine lacks (`unsupported-game`),
an action code the dialect does not know or a player acting who has no seat (`damaged`), more than ten seats
(`unsupported-feature`), an amount that is no amount (`damaged`), a player putting in more than they have
behind or raising to no more than they have in (`inconsistent-amounts`, in the text rooms' words).

The room's conventions (the dialect's `conventions`, docs/xml-rooms.md) each apply only where their evidence
holds; what each applied is returned with the hand, so the reader can say it once per file:

- `action_order: by_number`: actions are taken in the order of their `no` attribute, not the document's;
- `uncalled_return: in_the_win`: the unmatched part of the last bet is in its bettor's `win`; read as a return
  only where that win holds it (a file flagged `uncalled_flag` true writes the win without it);
  `uncalled_return: not_written`: the return is written nowhere and the wins leave it out: it is returned;
- `rake: the_chips_not_paid`: what was put in and not paid out is rake, only after a flop and up to
  `max_percent` of the pot; any other difference stays, and the chips do not balance;
- `silent_seats: sitting_out`: a cash player with no cards and no action was not dealt in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from auditor.ingest.xml_dialect import XmlDialect
from auditor.ingest.xml_stream import Game, Node
from auditor.model.pots import build_pots

__all__ = ["Read", "Refusal", "convert"]

HOLE_CARDS = {"holdem": 2, "omaha": 4}


@dataclass(frozen=True)
class Refusal(Exception):
    """Why the hand cannot be a canonical hand: a quarantine code and a one-line reason."""
    code: str
    reason: str


@dataclass
class Read:
    """A hand read: the canonical dict and the conventions applied to it (note codes)."""
    hand: dict[str, Any]
    applied: list[str] = field(default_factory=list)


class _Acts(list):
    """The hand's actions, and whether the file wrote them in another order than their numbers."""
    reordered = False


@dataclass
class _Act:
    order: int
    round: int
    player: str
    spec: dict[str, Any]
    amount: int
    line: int = 0


def convert(game: Game, d: XmlDialect, rule_pack: str) -> Read:
    """The canonical hand of `game`, or Refusal (see the module)."""
    node, doc = game.node, d.doc
    hand_id = node.attrs.get(doc["hand_id"], "").strip()
    if not hand_id:
        raise Refusal("damaged", f"a hand with no {doc['hand_id']} attribute")
    variant, structure, small, big = _game(d, game)
    fields = doc["header_fields"]
    tournament = _field(game, fields.get("tournament"))
    table = _table(d, game) or (f"tournament {tournament}" if tournament else "")
    if not table:
        raise Refusal("damaged", "the session names no table")
    players = _players(d, node)
    currency = players.currency
    written = _field(game, fields.get("currency"))
    declared = d.data["money"].get("codes", {}).get(written, written).upper()
    if tournament:
        currency = None
    elif declared and len(declared) == 3 and declared.isalpha() and declared != "T$":
        currency = declared
    plays = _rounds(d, node, players.keys)
    acts, pockets, boards = plays.acts, plays.pockets, plays.boards
    returns = {s: players.returns.get(s, 0) + plays.returns.get(s, 0) for s in {*players.returns, *plays.returns}}
    applied: list[str] = []
    stacks = _less_fees(players.stacks, plays.fees, applied)
    rake = _written_rake(d, game)
    amounts = [*stacks.values(), *players.wins.values(), *returns.values(), *(a.amount for a in acts),
               *(x for x in (small, big, rake) if x)]
    cash = currency is not None
    div = 1 if cash or any(a % d.scale for a in amounts) else d.scale
    scale = d.scale // div

    def m(v: int) -> int:
        return v // div

    if getattr(acts, "reordered", False):
        applied.append("action_order")
    ctx = _Hand(d, variant, players.seats, {s: m(v) for s, v in stacks.items()}, applied)
    ctx.names = players.keys
    ctx.sitting.update(players.not_dealt)
    ctx.mucked = plays.mucked
    ctx.written_rake = None if rake is None else m(rake)
    events = ctx.play(players.button, acts, pockets, boards, m, cash)
    flagged = _field(game, fields.get("uncalled_flag")).lower() == "true"
    returned, paid = ctx.settle({s: m(v) for s, v in players.wins.items()}, flagged, bool(boards),
                                {s: m(v) for s, v in returns.items()})
    if returned is not None:  # after the betting round its bettor last put chips in
        events.insert(ctx.round_ends.get(ctx.last_put_round.get(returned["seat"], 0), len(events)), returned)
    events += ctx.showdown() + paid
    hand: dict[str, Any] = {
        "hand_id": hand_id, "table_id": table, "room": d.title,
        "variant": variant, "structure": structure, "rule_pack": rule_pack,
    }
    started = _time(node, doc["hand_started"])
    if started:
        hand["started_at"] = started
    if cash:
        hand["currency"] = currency
        hand["money_scale"] = scale
    elif scale != 1:
        hand["money_scale"] = scale
    size = _field(game, fields.get("table_size"))
    if doc.get("seats_listed") and 2 <= players.listed <= 10:  # every seat listed, the empty ones too
        size = str(players.listed)
    sized = size.isascii() and size.isdigit() and len(size) <= 2 and 2 <= int(size) <= 10
    max_seats = int(size) if sized else d.data["game"]["default_max_seats"]
    hand["max_seats"] = max(max_seats, max(players.seats))
    hand["stakes"] = _stakes(structure, events, m(small) if small else None, m(big) if big else None)
    # a seat listed twice is recorded as listed (the replay plays it as its first player; a rule reports it)
    hand["seats"] = sorted([ctx.seat_record(s) for s in players.seats]
                           + [{**x, "stack": m(x["stack"])} for x in players.doubles], key=lambda rec: rec["seat"])
    hand["events"] = events
    return Read(hand, applied)


def _less_fees(stacks: dict[int, int], fees: dict[int, int], applied: list[str]) -> dict[int, int]:
    """The stacks the players play the hand with: a fee the room takes outside the pot (a bad-beat jackpot's
    drop) comes off the chips the file lists; more than the player has cannot be placed."""
    out = dict(stacks)
    for seat, fee in fees.items():
        if seat not in out or fee > out[seat]:
            raise Refusal("inconsistent-amounts", f"seat {seat} pays a fee of {fee} with {out.get(seat, 0)}")
        out[seat] -= fee
    if fees:
        applied.append("fees")
    return out


def _written_rake(d: XmlDialect, game: Game) -> int | None:
    """The rake the file writes (`rake: written`): a field in the money's smallest unit, or (`path`) an attribute
    of the element at that path below the hand, an amount as the dialect writes amounts; None where the file
    writes none."""
    rake = d.conventions["rake"]
    if rake["value"] != "written":
        return None
    if "path" in rake:
        found = game.node.path(rake["path"])
        if not found:
            return None
        text = found[0].attrs.get(rake["field"], "")
        amount = d.amount(text)
        if amount is None:
            raise Refusal("damaged", f"a rake that is no amount: {text[:20]!r} (line {found[0].line})")
        return amount.value
    text = _field(game, rake["field"])
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise Refusal("damaged", f"a rake that is no number: {text[:20]!r}")
    return int(text)


def _field(game: Game, name: str | None) -> str:
    """A table-wide field: the header's (an element's text or the header element's attribute), else an
    attribute of the hand element itself; "" when neither says it."""
    if not name:
        return ""
    return (game.header.get(name) or game.node.attrs.get(name, "")).strip()


def _table(d: XmlDialect, game: Game) -> str:
    text = _field(game, d.doc["header_fields"]["table"])
    pattern = d.table_pattern
    if pattern is not None and text:
        found = pattern.search(text)
        return found["table"].strip() if found else ""
    return text


def _game(d: XmlDialect, game_node: Game) -> tuple[str, str, int | None, int | None]:
    names = d.doc["header_fields"]["game"]
    text = " ".join(_field(game_node, n) for n in ([names] if isinstance(names, str) else names)).strip()
    m = d.game_pattern.match(text)
    if not m:
        raise Refusal("damaged", f"game type not understood: {text[:80]!r}")
    games, structures = d.data["game"]["games"], d.data["game"]["structures"]
    game = games.get(m["game"])
    if game is None:
        raise Refusal("unsupported-game", f"unsupported variant: {m['game'][:60]} (a game this room's dialect "
                      "does not name)")
    if isinstance(game, dict):
        raise Refusal("unsupported-game", f"unsupported variant: {m['game']} ({game['unsupported']})")
    structure = structures[m["structure"]]
    if isinstance(structure, dict):
        raise Refusal("unsupported-game", f"unsupported betting structure: {m['structure']} "
                      f"({structure['unsupported']})")
    small = d.amount(m["small"]) if m["small"] else None
    big = d.amount(m["big"]) if m["big"] else None
    if (m["small"] and small is None) or (m["big"] and big is None):
        raise Refusal("damaged", f"stakes that are no amounts: {text[:80]!r}")
    return game, structure, small.value if small else None, big.value if big else None


@dataclass
class _Players:
    """The players listed: seat -> first name listed there, the key each is named by in the hand's elements
    (its name, or its seat number as written) -> seat, stacks, wins and returns written by seat, the dealer's
    seat, the seats marked not dealt in, the currency the amounts show, and the later rows of a seat listed twice
    (recorded, not refused), and how many rows list them (with the empty seats')."""
    seats: dict[int, str] = field(default_factory=dict)
    keys: dict[str, int] = field(default_factory=dict)
    stacks: dict[int, int] = field(default_factory=dict)
    wins: dict[int, int] = field(default_factory=dict)
    returns: dict[int, int] = field(default_factory=dict)
    button: int | None = None
    not_dealt: set[int] = field(default_factory=set)
    currency: str | None = None
    doubles: list[dict[str, Any]] = field(default_factory=list)
    listed: int = 0  # the player rows, empty seats' too


def _seat_number(d: XmlDialect, text: str) -> int | None:
    """The log's seat (1 to 10 and beyond) of a seat number as the file writes it, or None when it is none."""
    if not text.isascii() or not text.isdigit() or len(text) > 4:
        return None
    return int(text) + 1 - d.doc.get("seat_base", 1)


def _players(d: XmlDialect, node: Node) -> _Players:
    doc = d.doc
    f = doc["player_fields"]
    by_seat = doc.get("players_named_by") == "seat"
    out = _Players()
    names: set[str] = set()
    empty, requires = doc.get("empty_seat"), doc.get("player_requires")
    for p in node.path(doc["player"]):
        out.listed += 1
        if empty and p.attrs.get(empty["attribute"]) == empty["value"]:  # a seat nobody sits in: no player
            continue
        if requires and requires["attribute"] not in p.attrs:
            raise Refusal("unsupported-feature", f"{requires['reason']} (line {p.line})")
        seat_text, name = p.attrs.get(f["seat"], ""), p.attrs.get(f["name"], "")
        seat = _seat_number(d, seat_text)
        if seat is None or not name:
            raise Refusal("damaged", f"a player with no seat number or no name (line {p.line})")
        if not 1 <= seat <= 10:
            raise Refusal("unsupported-feature", f"seat {seat}: the log numbers seats 1 to 10")
        if name in names and not by_seat:
            raise Refusal("damaged", f"player {name!r} listed twice: the file names actions by player, so they "
                          "cannot be put on a seat")
        stack, win = d.amount(p.attrs.get(f["stack"])), d.amount(p.attrs.get(f.get("win", ""), "0"))
        if stack is None or win is None:
            raise Refusal("damaged", f"an amount that is no number for {name!r} (line {p.line})")
        out.currency = out.currency or stack.currency or win.currency
        names.add(name)
        if seat in out.seats:  # two players in one seat: the seat's chips are its first player's
            out.doubles.append({"seat": seat, "player": name, "stack": stack.value})
            out.wins[seat] += win.value
            if not by_seat:
                out.keys[name] = seat
            continue
        out.keys[seat_text if by_seat else name] = seat
        out.seats[seat], out.stacks[seat], out.wins[seat] = name, stack.value, win.value
        if "button" in f and p.attrs.get(f["button"]) == doc.get("button_flag"):
            out.button = seat
        flag = doc.get("not_dealt_in")
        if flag and p.attrs.get(flag["attribute"]) == flag["value"]:
            out.not_dealt.add(seat)
    if not out.seats:
        raise Refusal("truncated", "a hand with no players")
    if "dealer" in doc:
        found = node.path(doc["dealer"]["path"])
        text = found[0].attrs.get(doc["dealer"]["attribute"], "") if found else ""
        out.button = _seat_number(d, text)
    if "win" in doc:
        _wins(d, node, out)
    return out


def _wins(d: XmlDialect, node: Node, out: _Players) -> None:
    """Wins written as elements of their own (at `win.path` below the hand): each adds to its player's win, or,
    marked as a return, to the chips given back to that player."""
    w = d.doc["win"]
    for child in node.path(w["path"]):
        key = child.attrs.get(w["player"], "")
        if key not in out.keys:
            raise Refusal("damaged", f"a win for {key[:40]!r}, who has no seat (line {child.line})")
        amount = d.amount(child.attrs.get(w["amount"], ""))
        if amount is None:
            raise Refusal("damaged", f"a win that is no amount (line {child.line})")
        seat = out.keys[key]
        returned = "returned" in w and child.attrs.get(w["returned"]) == w.get("returned_value")
        book = out.returns if returned else out.wins
        book[seat] = book.get(seat, 0) + amount.value
        out.currency = out.currency or amount.currency


@dataclass
class _Plays:
    """What the hand's rounds say: the actions taken, the hole cards known by seat, the board cards each round
    adds, the players whose cards are given as mucked, and by seat the returns and the fees (chips taken outside
    the pot) the file writes as events."""
    acts: list[_Act] = field(default_factory=list)
    pockets: dict[int, list[str]] = field(default_factory=dict)
    boards: dict[int, list[str]] = field(default_factory=dict)
    mucked: set[int] = field(default_factory=set)
    returns: dict[int, int] = field(default_factory=dict)
    fees: dict[int, int] = field(default_factory=dict)


def _rounds(d: XmlDialect, node: Node, names: dict[str, int]) -> _Plays:
    """The rounds read: elements each naming its round (`round_number`), or, a dialect with no round number, one
    element holding every event, its rounds told by the deals of the board (`{deal: board}` codes)."""
    doc = d.doc
    index = d.round_index
    plays = _Plays()
    flat = doc["round_number"] is None
    number = 0
    for r in [node] if doc["round"] is None else node.all(doc["round"]):
        if not flat:
            number_text = r.attrs.get(doc["round_number"], "")
            if number_text not in index:
                raise Refusal("damaged", f"a round numbered {number_text[:20]!r} (line {r.line})")
            number = index[number_text]
        for child in r.children:
            if child.tag == doc["cards"]:
                _cards(d, child, number, names, plays)
            elif child.tag == doc["action"]:
                number = _event(d, child, number, names, plays, flat)
    if d.data["rounds"].get("board_cumulative"):
        plays.boards = _dealt_by_round(plays.boards)
    if doc.get("win", {}).get("cards"):
        _win_cards(d, node, names, plays)
    if d.convention("action_order") == "by_number":
        acts = plays.acts
        orders = [a.order for a in acts]
        if len(set(orders)) != len(orders):
            raise Refusal("damaged", "two actions with the same number: their order cannot be known")
        acts.sort(key=lambda a: a.order)
        if orders != [a.order for a in acts]:
            plays.acts = _Acts(acts)
            plays.acts.reordered = True
    return plays


def _win_cards(d: XmlDialect, node: Node, names: dict[str, int], plays: _Plays) -> None:
    """Cards written in a player's win element (`win.cards`): the cards the player showed (hidden ones say
    nothing); the element marked as a muck (`win.muck`) says the player mucked. Shown cards that are not the ones
    the file dealt the player cannot both be true."""
    w = d.doc["win"]
    muck = w.get("muck")
    for child in node.path(w["path"]):
        seat = names.get(child.attrs.get(w["player"], ""))
        if seat is None:
            continue  # a win for no seat is refused with the wins
        cards = _card_list(d, child)
        if cards and "??" not in cards:
            dealt = plays.pockets.get(seat)
            if dealt and "??" not in dealt and dealt != cards:
                raise Refusal("damaged", f"seat {seat} shows {' '.join(cards)}, dealt {' '.join(dealt)} "
                              f"(line {child.line})")
            plays.pockets[seat] = cards
        if muck and child.attrs.get(muck["attribute"]) == muck["value"]:
            plays.mucked.add(seat)


def _code(d: XmlDialect, child: Node) -> str:
    """An event's code: its code attribute, or (a list of them) the first of them the element has."""
    field = d.doc["action_fields"]["code"]
    if isinstance(field, str):
        return child.attrs.get(field, "")
    return next((child.attrs[f] for f in field if child.attrs.get(f)), "")


def _event(d: XmlDialect, child: Node, number: int, names: dict[str, int], plays: _Plays, flat: bool) -> int:
    """One action element read into `plays`; returns the round the next one is in (a flat layout moves on at
    the first action after the posts and at each deal of the board)."""
    code = _code(d, child)
    spec = d.actions.get(code)
    if spec is None or code not in d.said_codes:  # a bet, a post, or a code to refuse: an action
        if flat and spec is not None and number == 0 and "action" in spec:
            number = 1
        act = _action(d, child, number, d.doc["action_fields"], names, spec, code)
        if act is not None:
            plays.acts.append(act)
        return number
    if "deal" in spec:
        if flat:
            number = max(number, 1) + 1
        cards = _card_list(d, child)
        if number >= 0:
            plays.boards.setdefault(number, []).extend(cards)
        return number
    _said(d, child, spec, names, plays)
    return number


def _said(d: XmlDialect, child: Node, spec: dict[str, Any], names: dict[str, int], plays: _Plays) -> None:
    """An event that is no bet: a player's cards dealt, shown or mucked (its card elements), the return of an
    uncalled bet, or a fee taken from the player outside the pot."""
    player = child.attrs.get(d.doc["action_fields"]["player"], "")
    if player not in names:
        raise Refusal("damaged", f"an event for {player[:40]!r}, who has no seat (line {child.line})")
    seat = names[player]
    if "returned" in spec or "fee" in spec:
        amount = d.amount(child.attrs.get(d.doc["action_fields"]["amount"], ""))
        if amount is None:
            raise Refusal("damaged", f"an amount that is no number (line {child.line})")
        book = plays.returns if "returned" in spec else plays.fees
        book[seat] = book.get(seat, 0) + amount.value
        return
    cards = _card_list(d, child)
    if cards:
        plays.pockets[seat] = cards
    if spec.get("shows") == "muck":
        plays.mucked.add(seat)


def _card_list(d: XmlDialect, child: Node) -> list[str]:
    """The cards an element gives: its card elements (`document.card`: rank and suit attributes), else the
    cards attribute or the text, separated by commas or white space."""
    spec = d.doc.get("card")
    if spec is not None and "number" in spec:  # a card element whose one attribute is its number
        tokens = [c.attrs.get(spec["number"], "") for c in child.all(spec["element"])]
        text = " ".join(tokens)
    elif spec is not None:
        tokens = [c.attrs.get(spec["rank"], "") + c.attrs.get(spec["suit"], "") if not d.suit_first
                  else c.attrs.get(spec["suit"], "") + c.attrs.get(spec["rank"], "")
                  for c in child.all(spec["element"])]
        text = " ".join(tokens)
    else:
        cf = d.doc["cards_fields"]
        text = child.attrs.get(cf["cards"], "") if "cards" in cf else child.text
        tokens = text.replace(",", " ").split()
    cards = [d.card(t) for t in tokens]
    if any(c is None for c in cards):
        raise Refusal("damaged", f"a card that is no card: {text.strip()[:40]!r} (line {child.line})")
    return [c for c in cards if c]


def _dealt_by_round(boards: dict[int, list[str]]) -> dict[int, list[str]]:
    """A file writing the whole board so far in each round: the cards each round adds. A board that does not
    begin with the one before it cannot be read."""
    out: dict[int, list[str]] = {}
    before: list[str] = []
    for number in sorted(boards):
        whole = boards[number]
        if whole[:len(before)] != before:
            raise Refusal("damaged", f"the board {' '.join(whole)} does not go on from {' '.join(before)}")
        if len(whole) > len(before):
            out[number] = whole[len(before):]
        before = whole
    return out


def _cards(d: XmlDialect, child: Node, number: int, names: dict[str, int], plays: _Plays) -> None:
    cf = d.doc["cards_fields"]
    rounds = d.data["rounds"]
    kind, owner = child.attrs.get(cf["kind"], ""), child.attrs.get(cf["player"], "")
    cards = _card_list(d, child)
    hole = rounds["hole_cards"]
    if kind in ([hole] if isinstance(hole, str) else hole) or kind == rounds.get("mucked_cards"):
        if owner not in names:
            raise Refusal("damaged", f"cards dealt to {owner!r}, who has no seat (line {child.line})")
        plays.pockets[names[owner]] = cards
        if kind == rounds.get("mucked_cards"):
            plays.mucked.add(names[owner])
    elif kind in rounds["board"]:
        if number >= 0:  # after the betting, the board cards are a rabbit hunt: not dealt in the hand
            plays.boards.setdefault(number, []).extend(cards)
    else:
        raise Refusal("damaged", f"cards of a kind the dialect does not know: {kind[:30]!r} (line {child.line})")


def _action(d: XmlDialect, child: Node, number: int, af: dict[str, str], names: dict[str, int],
            spec: dict[str, Any] | None, code: str) -> _Act | None:
    """One action element read (`spec`, its code's description), or None for one the dialect marks as said
    rather than done (a chat line)."""
    player, order = child.attrs.get(af["player"], ""), child.attrs.get(af["order"], "")
    if spec is None:
        raise Refusal("damaged", f"action type {code[:20]!r} not understood (line {child.line})")
    if "ignored" in spec:
        return None
    if "cancelled" in spec:
        raise Refusal("cancelled", f"{spec['cancelled']} (line {child.line})")
    if "unsupported" in spec:
        raise Refusal("unsupported-feature", f"{spec['unsupported']} (line {child.line})")
    if number < 0:
        raise Refusal("damaged", f"an action after the betting (line {child.line})")
    if player not in names:
        raise Refusal("damaged", f"a player acting who has no seat: {player[:40]!r} (line {child.line})")
    by_number = d.by_number
    if by_number and (not order.isascii() or not order.isdigit()):
        raise Refusal("damaged", f"an action with no number (line {child.line})")
    if by_number and len(order) > 9:  # (Python will not even read a number of thousands of digits)
        raise Refusal("damaged", f"an action numbered {order[:12]}... past any hand's actions (line {child.line})")
    written = child.attrs.get(af["amount"], "0") or "0"
    amount = d.amount(written)
    if amount is None:
        what = "too large for the log" if d.too_large(written) else "that is no number"
        raise Refusal("damaged", f"an amount {what}: {written[:30]!r} (line {child.line})")
    return _Act(int(order) if by_number else 0, number, player, spec, amount.value, child.line)


def _time(node: Node, where: list[str] | dict[str, str]) -> str | None:
    """The hand's start (`2014-01-06 11:49:59`, `20120529182537`, as the dialect's format says), read as UTC (the
    rooms write no zone)."""
    if isinstance(where, dict):
        text, form = node.attrs.get(where["attribute"], "").strip(), where["format"]
    else:
        found = node.path(where)
        text, form = (found[0].text.strip() if found else ""), "%Y-%m-%d %H:%M:%S"
    if form == "epoch":  # seconds since 1970-01-01 UTC
        if not text.isascii() or not text.isdigit() or not 1 <= len(text) <= 11:
            return None
        try:
            return datetime.fromtimestamp(int(text), UTC).strftime("%Y-%m-%dT%H:%M:%S") + "+00:00"
        except (OverflowError, OSError, ValueError):
            return None
    if not text.isascii() or not 8 <= len(text) <= 19:
        return None
    if form == "%Y-%m-%d %H:%M:%S":  # the common spelling, without strptime's cost (one call a hand)
        if len(text) != 19 or text[10] != " " or not text.replace("-", "").replace(":", "").replace(" ", "").isdigit():
            return None
        try:
            datetime.fromisoformat(text)
        except ValueError:
            return None
        return text.replace(" ", "T") + "+00:00"
    try:
        moment = datetime.strptime(text, form)
    except ValueError:
        return None
    if moment.strftime(form) != text:  # only the format's own spelling (strptime also takes `2014-1-6`)
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + "+00:00"


def _stakes(structure: str, events: list[dict], small: int | None, big: int | None) -> dict[str, Any]:
    posts = {e["blind"]: e["amount"] for e in events
             if e["kind"] == "post" and e["post"] == "blind" and not e.get("all_in")}
    stakes: dict[str, Any] = {}
    if structure == "fixed-limit":
        small_bet = small or posts.get(2) or 0
        big_bet = big or 2 * small_bet
        stakes["blinds"] = [posts.get(1, small_bet // 2), small_bet]
        stakes["bet_units"] = [small_bet, small_bet, big_bet, big_bet]
    else:
        stakes["blinds"] = [small if small is not None else posts.get(1, 0),
                            big if big is not None else posts.get(2, 0)]
    antes = [e["amount"] for e in events if e["kind"] == "post" and e["post"] == "ante"]
    if antes:
        stakes["ante"] = max(antes)
    stakes["chip_unit"] = 1
    return stakes


class _Hand:
    """The betting ledger of one hand: who is in, what each put in, in the round and in all."""

    def __init__(self, d: XmlDialect, variant: str, seats: dict[int, str], stacks: dict[int, int],
                 applied: list[str]) -> None:
        self.d, self.variant, self.seats, self.stacks, self.applied = d, variant, seats, stacks, applied
        self.left = dict(stacks)
        self.put = dict.fromkeys(seats, 0)
        self.live = dict.fromkeys(seats, 0)  # what each put in that counts toward a bet (no antes, no dead money)
        self.dead = 0  # dead money: in the main pot, nobody's bet
        self.folded: set[int] = set()
        self.sitting: set[int] = set()
        self.dealt: list[int] = []
        self.pockets: dict[int, list[str]] = {}
        self.last_put_round: dict[int, int] = {}
        self.round_ends: dict[int, int] = {}  # betting round -> index after its last event
        self.aggressors: dict[int, int] = {}  # betting round -> its last bettor or raiser
        self.last_round = -1  # the last betting round anyone acted in
        self.order: list[int] = []  # the seats clockwise from the button's left
        self.names: dict[str, int] = {n: s for s, n in seats.items()}  # every player listed -> seat
        self.mucked: set[int] = set()  # players whose cards the file gives as mucked, not shown
        self.written_rake: int | None = None  # the rake the file writes, when it writes one

    def seat_record(self, seat: int) -> dict[str, Any]:
        rec: dict[str, Any] = {"seat": seat, "player": self.seats[seat], "stack": self.stacks[seat]}
        if seat in self.sitting:
            rec["status"] = "sitting_out"
        return rec

    def play(self, button: int | None, acts: list[_Act], pockets: dict[int, list[str]],
             boards: dict[int, list[str]], m: Any, cash: bool) -> list[dict]:
        d = self.d
        if button is None:
            raise Refusal("damaged", "no player is marked as the dealer")
        names = self.names
        events: list[dict] = [{"kind": "button", "seat": button}]
        rounds = d.data["rounds"]
        posts = [a for a in acts if a.round == 0]
        betting = [a for a in acts if a.round != 0]
        in_round: dict[int, int] = {}
        blinds: set[int] = set()
        for a in posts:
            seat = names[a.player]
            if a.spec.get("sits_out"):
                self.sitting.add(seat)
                continue
            if "post" not in a.spec:
                raise Refusal("damaged", f"a {a.spec.get('action')} among the posts")
            amount = m(a.amount)
            e: dict[str, Any] = {"kind": "post", "seat": seat, "post": a.spec["post"]}
            if "blind" in a.spec:
                blind = a.spec["blind"]
                if blind in blinds:  # a second big blind is a player's entry; a second small one, dead money
                    e["post"] = "missed" if blind == 2 else "dead"
                else:
                    blinds.add(blind)
                    e["blind"] = blind
            e["amount"] = amount
            self._spend(seat, amount, e, a.line, dead=e["post"] == "dead")
            if e["post"] not in ("ante", "dead"):  # live money: it counts toward the player's bets
                in_round[seat] = in_round.get(seat, 0) + amount
                self.live[seat] += amount
                self.last_put_round[seat] = 1
            events.append(e)
        acting = {names[a.player] for a in acts if not a.spec.get("sits_out")}
        order = sorted(self.seats, key=lambda s: (s - button - 1) % 10)
        self.order = order
        silent = [s for s in order if s not in acting and s not in pockets]
        if d.convention("silent_seats") == "sitting_out" and cash and silent:
            self.sitting.update(silent)
            self.applied.append("silent_seats")
        self.pockets = pockets
        for seat in order:
            if seat in self.sitting and seat not in pockets and seat not in acting:
                continue
            self.dealt.append(seat)
            cards = pockets.get(seat) or ["??"] * HOLE_CARDS.get(self.variant, 2)
            events.append({"kind": "deal", "to": "hole", "seat": seat, "cards": cards})
        betting_rounds = list(range(1, len(rounds["betting"]) + 1))
        for r in betting_rounds:
            if r != 1:
                in_round = {}
                if r in boards:
                    events.append({"kind": "deal", "to": "board", "cards": boards[r]})
            for a in (a for a in betting if a.round == r):
                if a.spec.get("sits_out") or "post" in a.spec:
                    raise Refusal("damaged", "a post or a sitting-out mark after the posts")
                events.append(self._act(names[a.player], a, in_round, m, r))
            self.round_ends[r] = len(events)
        stray = sorted(set(boards) - set(betting_rounds[1:]))
        if stray:
            raise Refusal("damaged", f"community cards in round {stray[0]}, where none are dealt")
        return events

    def _spend(self, seat: int, amount: int, e: dict, line: int, dead: bool = False) -> None:
        """Chips the seat puts in (dead money: in the main pot, nobody's bet); more than it has behind cannot be
        placed (the text rooms' words)."""
        if amount > self.left[seat]:
            raise Refusal("inconsistent-amounts", f"line {line}: seat {seat} puts in {amount} with {self.left[seat]} "
                          "behind")
        self.left[seat] -= amount
        if dead:
            self.dead += amount
        else:
            self.put[seat] += amount
        if self.left[seat] == 0 and amount > 0:
            e["all_in"] = True

    def _act(self, seat: int, a: _Act, in_round: dict[int, int], m: Any, r: int) -> dict:
        kind = a.spec["action"]
        self.last_round = r
        e: dict[str, Any] = {"kind": "action", "seat": seat}
        if kind in ("fold", "check"):
            e["action"] = kind
            if kind == "fold":
                self.folded.add(seat)
            return e
        before = in_round.get(seat, 0)
        amount = m(a.amount)
        to = amount if a.spec.get("amount") == "to" else before + amount
        added = to - before
        if a.spec.get("amount") == "to" and added <= 0:
            raise Refusal("inconsistent-amounts", f"line {a.line}: seat {seat} raises to {to}, no more than the "
                          f"{before} it has in")
        if kind == "all_in":
            top = max(in_round.values(), default=0)
            kind = "call" if to <= top else ("bet" if top == 0 else "raise")
        if kind in ("bet", "raise"):
            self.aggressors[r] = seat
        if added:
            self.last_put_round[seat] = r
        e.update(action=kind, amount=added, to=to)
        in_round[seat] = to
        self._spend(seat, added, e, a.line)
        self.live[seat] += added
        return e

    def showdown(self) -> list[dict]:
        """The cards the file shows of players still in at the end, when two or more are: a show each. The file
        says who showed, not in which order: they are read in the order the rules ask for (the last bettor or
        raiser of the last round anyone acted in first, else the first player left of the button, then
        clockwise), so no order is made up against a player."""
        live = [s for s in self.dealt if s not in self.folded]
        if len(live) < 2:
            return []
        first = self.aggressors.get(self.last_round)
        if first in live:
            k = live.index(first)
            live = live[k:] + live[:k]
        return [{"kind": "muck", "seat": s} if s in self.mucked else {"kind": "show", "seat": s,
                                                                       "cards": self.pockets[s]}
                for s in live if s in self.pockets and "??" not in self.pockets[s]]

    def settle(self, wins: dict[int, int], flagged: bool, flop: bool,
               written: dict[int, int]) -> tuple[dict | None, list[dict]]:
        """The return of the uncalled bet (or None), then the awards by pot and the rake: from the players' wins
        and what each put in (see the module). A return the file writes (`written`) is read as it stands."""
        events: list[dict] = []
        back: dict | None = None
        tops = sorted(self.live.values(), reverse=True)  # the unmatched part of the last bet: live money only
        unmatched = tops[0] - (tops[1] if len(tops) > 1 else 0)
        bettor = max(self.live, key=lambda s: self.live[s])
        paid = dict(wins)
        written = {s: v for s, v in written.items() if v > 0}
        if written:
            if len(written) > 1:
                raise Refusal("inconsistent-amounts", "uncalled bets returned to two players")
            ((seat, returned),) = written.items()
            if returned > self.put[seat]:
                raise Refusal("inconsistent-amounts", f"seat {seat} is returned {returned}, more than the "
                              f"{self.put[seat]} it put in")
            self.put[seat] -= returned
            back = {"kind": "return", "seat": seat, "amount": returned}
        elif unmatched > 0:
            if flagged:
                returned = unmatched
            elif self.d.convention("uncalled_return") == "not_written":  # the wins leave it out
                returned = unmatched
                self.applied.append("uncalled_return")
            elif self.d.convention("uncalled_return") == "in_the_win" and paid.get(bettor, 0) >= unmatched:
                returned = unmatched
                paid[bettor] -= unmatched
                self.applied.append("uncalled_return")
            else:
                returned = 0
            if returned:
                self.put[bettor] -= returned
                back = {"kind": "return", "seat": bettor, "amount": returned}
        pots = [(pot.amount, set(pot.eligible)) for pot in build_pots(self.put, self.folded, self.dead)] \
            or [(sum(self.put.values()) + self.dead, set())]
        awards = _share(pots, {s: v for s, v in paid.items() if v > 0})
        place = {s: k for k, s in enumerate(self.order)}  # a pot's winners clockwise from the button's left
        awards.sort(key=lambda a: (a[0], place.get(a[1], len(place))))
        events.extend({"kind": "award", "pot": p, "seat": s, "amount": v} for p, s, v in awards)
        total = sum(self.put.values()) + self.dead
        kept = total - sum(paid.values())
        rake = self.d.conventions["rake"]
        if self.written_rake:  # the rake the file writes, as it stands (from the main pot)
            events.append({"kind": "rake", "pot": 0, "amount": self.written_rake})
        elif kept > 0 and rake["value"] == "the_chips_not_paid" and flop and kept * 100 <= rake["max_percent"] * total:
            events.append({"kind": "rake", "pot": 0, "amount": kept})
            self.applied.append("rake")
        return back, events


def _share(pots: list[tuple[int, set[int]]], wins: dict[int, int]) -> list[tuple[int, int, int]]:
    """Each winner's win laid on the pots it could win: the side pots first, the last one first, each paid whole
    as far as the wins go and split in equal parts between the winners who may win it, an odd chip to whoever
    has the most left to place; what is left lies on the main pot (the rake comes out of it): (pot, seat,
    amount). The file gives one win per player, and a pot's share of it is what a split can be."""
    left = dict(wins)
    out: dict[tuple[int, int], int] = {}

    def give(index: int, seat: int, amount: int) -> None:
        out[(index, seat)] = out.get((index, seat), 0) + amount
        left[seat] -= amount

    for index in range(len(pots) - 1, 0, -1):
        amount, eligible = pots[index]
        takers = sorted(s for s in eligible if left.get(s, 0) > 0)
        while amount > 0 and takers:
            share = amount // len(takers)
            if share == 0:  # odd chips: to those with the most still to place
                for seat in sorted(takers, key=lambda s: -left[s])[:amount]:
                    give(index, seat, 1)
                    amount -= 1
            else:
                for seat in takers:
                    given = min(share, left[seat])
                    give(index, seat, given)
                    amount -= given
            takers = [s for s in takers if left[s] > 0]
    for seat, value in left.items():
        if value > 0:
            give(0, seat, value)
    return sorted((p, s, v) for (p, s), v in out.items())
