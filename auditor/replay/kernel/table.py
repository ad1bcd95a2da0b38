"""The cross-hand kernel: what a table remembers from one hand to the next, walked in `replay_order`.

Why a kernel of its own: the per-hand kernel (`hand.py`) replays hands independently; what crosses hands
(the previous button, big blind and small blind, who the blinds give the button to, the players
established at the table, blinds owed across hands, the previous hand's id, hand ids seen before,
quarantine breaks) is a short sequential pass over the hands of each table, here over integer codes:
players are codes of the batch's dictionary (extended with names only the carried state knows), hand ids
codes of the batch's ids (extended likewise). `TableState`'s dicts are converted to arrays once per batch
for the tables of the batch (`state_arrays`) and back once after it (`store_state`), never per hand.

It also decides the one failure the reference engine raises on a schema-valid hand: the button the blinds
give is looked up among the seats dealt in, and a seat dealt cards that nobody sits in is a KeyError
there ("replay failed: KeyError: <seat>"); the hand is then dropped and the table forgotten, as in the
reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.model.compiled import njit
from auditor.replay.kernel.encode import S_NEW, WIDTH

#: `seats.owed` words by code (bit 1: bb, bit 2: sb), as ",".join(sorted(...)) writes them
OWED_WORDS = ("", "bb", "sb", "bb,sb")


# column numbers of the kernel's tables (`HAND_COLUMNS`, `SEATS_COLUMNS`, `FINAL_COLUMNS`, checked at import below)
(TH_FAIL_SEAT, TH_PREV_BUTTON, TH_EXPECTED_BUTTON, TH_BUTTON_BY_BLINDS, TH_DUPLICATE, TH_PREV_BB, TH_PREV_HAND,
    TH_PREV_SB_PLAYER, TH_PREV_SB_MISSED, TH_PREV_SB_ON_BUTTON, TH_BIG_BLIND_PLAYER) = range(11)
(TS_HAND, TS_SEAT, TS_OWED, TS_IN_BB, TS_MADE_UP, TS_MISSED_NOW, TS_NEW, TS_BETWEEN, TS_LIVE_BB, TS_PREV_HAND,
    TS_MISS_SB, TS_MISS_BB) = range(12)
(TF_TOUCHED, TF_HAS, TF_BUTTON, TF_BB, TF_HEIR, TF_SB_KIND, TF_SB_PLAYER, TF_SB_MISSED, TF_SB_ON_BUTTON,
    TF_LAST) = range(10)
N_TH, N_TS, N_TF = 11, 12, 10


@dataclass
class GroupState:
    """The carried state of each table of the batch (index = group), as arrays."""

    has_button: np.ndarray
    button: np.ndarray
    has_bb: np.ndarray
    bb: np.ndarray
    has_heir: np.ndarray
    heir: np.ndarray
    has_sb: np.ndarray
    sb_kind: np.ndarray
    sb_player: np.ndarray
    sb_missed: np.ndarray
    sb_on_button: np.ndarray
    has_est: np.ndarray
    est_off: np.ndarray
    est: np.ndarray
    has_last: np.ndarray
    last: np.ndarray
    owed_off: np.ndarray
    owed_player: np.ndarray
    owed_sb: np.ndarray
    owed_bb: np.ndarray


@njit(cache=True, no_rewrites=True)
def _forget_players(est_mark, est_list, n_est, owed_sb, owed_bb, owed_in, owed_list, n_owed):
    """Clear the working memory of established players and blinds owed (another table begins, the chain is
    broken, or the hand failed): only the entries listed are cleared, so it costs the players remembered,
    not the batch's vocabulary. Returns the emptied list lengths."""
    for k in range(n_est):
        est_mark[est_list[k]] = False
    for k in range(n_owed):
        owed_sb[owed_list[k]] = -1
        owed_bb[owed_list[k]] = -1
        owed_in[owed_list[k]] = False
    return 0, 0


@njit(cache=True, no_rewrites=True)
def cross_hands(order, group, forget_before, hand_code, nbl, sb_amount, bb_amount, heir_list, button,
                sb_seat, b2_seat, bbl_seat, hs_seated, hs_player, hs_status, hs_dealt, dealt_order, hs_live_posts,
                hs_dead_posts, n_groups, g_has_button, g_button, g_has_bb, g_bb, g_has_heir, g_heir, g_has_sb,
                g_sb_kind, g_sb_player, g_sb_missed, g_sb_on_button, g_has_est, est_off, est, g_has_last, g_last,
                owed_off, owed_player, owed_sb0, owed_bb0, n_players, seen, remembers):
    """Walk the hands in `order` (tables contiguous); per hand the cross-hand facts, the seats rows, and per
    table the state after its last hand."""
    n = len(order)
    nh = len(hand_code)
    # per hand (TH_*), seats rows (TS_*) and per group (TF_*): one int64 table each, columns by name
    TH = np.full((N_TH, nh), -1, np.int64)
    TH[TH_DUPLICATE, :] = 0
    first_walk = np.full(len(seen), -1, np.int64)
    # seats rows
    nsmax = nh * WIDTH
    TS = np.empty((N_TS, nsmax), np.int64)
    ns = 0
    # final state per group: has (the group's memory is set, else forgotten), touched (the batch replayed a
    # hand of the group)
    TF = np.full((N_TF, n_groups), -1, np.int64)
    TF[TF_HAS, :] = 0
    TF[TF_TOUCHED, :] = 0
    TF[TF_SB_KIND, :] = 0
    TF[TF_SB_MISSED, :] = 0
    f_est_off = np.zeros(n_groups + 1, np.int64)
    f_est = np.empty(nh * WIDTH + len(est), np.int64)
    f_owed_off = np.zeros(n_groups + 1, np.int64)
    f_owed_player = np.empty(nh * WIDTH + len(owed_player), np.int64)
    f_owed_sb = np.empty(nh * WIDTH + len(owed_player), np.int64)
    f_owed_bb = np.empty(nh * WIDTH + len(owed_player), np.int64)
    nfe = 0
    nfo = 0
    # working memory of the current table
    est_mark = np.zeros(n_players, np.int64)
    est_list = np.empty(nh * WIDTH + len(est) + 1, np.int64)
    n_est = np.int64(0)
    owed_sb = np.full(n_players, -1, np.int64)
    owed_bb = np.full(n_players, -1, np.int64)
    owed_list = np.empty(nh * WIDTH + len(owed_player) + 1, np.int64)
    owed_in = np.zeros(n_players, np.int64)  # listed in owed_list
    n_owed = np.int64(0)
    new_est = np.empty(WIDTH, np.int64)
    order_seats = np.empty(WIDTH, np.int64)
    before_bb = np.zeros(WIDTH, np.int64)
    missed = np.full(WIDTH, -1, np.int8)
    has_button = has_bb = has_heir = has_sb = has_est = has_last = False
    m_button = m_bb = m_heir = m_sb_player = m_last = -1
    m_sb_kind = 0
    m_sb_missed = False
    m_sb_on_button = -1
    g = -1
    for w in range(n + 1):
        if w == n or group[w] != g:
            if g >= 0:
                # the table's state after its last hand of the batch
                TF[TF_TOUCHED, g] = True
                TF[TF_HAS, g] = has_last
                TF[TF_BUTTON, g] = m_button if has_button else -1
                TF[TF_BB, g] = m_bb
                TF[TF_HEIR, g] = m_heir
                TF[TF_SB_KIND, g] = m_sb_kind
                TF[TF_SB_PLAYER, g] = m_sb_player
                TF[TF_SB_MISSED, g] = m_sb_missed
                TF[TF_SB_ON_BUTTON, g] = m_sb_on_button
                TF[TF_LAST, g] = m_last
                for k in range(n_est):
                    f_est[nfe] = est_list[k]
                    nfe += 1
                for k in range(n_owed):
                    p = owed_list[k]
                    if owed_sb[p] >= 0 or owed_bb[p] >= 0:
                        f_owed_player[nfo] = p
                        f_owed_sb[nfo] = owed_sb[p]
                        f_owed_bb[nfo] = owed_bb[p]
                        nfo += 1
                f_est_off[g + 1] = nfe
                f_owed_off[g + 1] = nfo
            if w == n:
                break
            # clear the previous table's working memory, load this one's
            n_est, n_owed = _forget_players(est_mark, est_list, n_est, owed_sb, owed_bb, owed_in, owed_list, n_owed)
            g = group[w]
            f_est_off[g] = nfe
            f_owed_off[g] = nfo
            has_button, m_button = g_has_button[g], g_button[g]
            has_bb, m_bb = g_has_bb[g], g_bb[g]
            has_heir, m_heir = g_has_heir[g], g_heir[g]
            has_sb, m_sb_kind, m_sb_player = g_has_sb[g], g_sb_kind[g], g_sb_player[g]
            m_sb_missed, m_sb_on_button = g_sb_missed[g], g_sb_on_button[g]
            has_est = g_has_est[g]
            for k in range(est_off[g], est_off[g + 1]):
                p = est[k]
                if not est_mark[p]:
                    est_mark[p] = True
                    est_list[n_est] = p
                    n_est += 1
            has_last, m_last = g_has_last[g], g_last[g]
            if has_last:
                for k in range(owed_off[g], owed_off[g + 1]):
                    p = owed_player[k]
                    owed_sb[p] = owed_sb0[k]
                    owed_bb[p] = owed_bb0[k]
                    if not owed_in[p]:
                        owed_in[p] = True
                        owed_list[n_owed] = p
                        n_owed += 1
        h = order[w]
        if forget_before[w]:
            has_button = has_bb = has_heir = has_sb = has_est = has_last = False
            m_button = m_bb = m_heir = m_sb_player = m_last = -1
            m_sb_kind = 0
            n_est, n_owed = _forget_players(est_mark, est_list, n_est, owed_sb, owed_bb, owed_in, owed_list, n_owed)
        seated = hs_seated[h]
        players = hs_player[h]
        status = hs_status[h]
        dealt = hs_dealt[h]
        code = hand_code[h]
        TH[TH_DUPLICATE, h] = seen[code]
        pb = m_button if has_button else -1
        TH[TH_PREV_BUTTON, h] = pb
        if has_bb:
            TH[TH_PREV_BB, h] = m_bb
        if has_last:
            TH[TH_PREV_HAND, h] = m_last
        if has_sb and m_sb_kind == 1:
            TH[TH_PREV_SB_PLAYER, h] = m_sb_player
            TH[TH_PREV_SB_MISSED, h] = 1 if m_sb_missed else 0
            TH[TH_PREV_SB_ON_BUTTON, h] = m_sb_on_button
        if pb >= 0:
            first = -1
            after = -1
            for s in range(WIDTH):
                if dealt[s]:
                    if first < 0:
                        first = s
                    if s > pb and after < 0:
                        after = s
            TH[TH_EXPECTED_BUTTON, h] = after if after >= 0 else first
        heir = m_heir if has_heir else -1
        failed = False
        if pb >= 0 and heir >= 0:  # the dealt-in seats in the reference's set order (hand.py, _set_add)
            for k in range(WIDTH):
                s = dealt_order[h, k]
                if s >= 0:
                    if not seated[s]:
                        TH[TH_FAIL_SEAT, h] = s
                        failed = True
                        break
                    if players[s] == heir:
                        TH[TH_BUTTON_BY_BLINDS, h] = s
                        break
        if failed:
            has_button = has_bb = has_heir = has_sb = has_est = has_last = False
            m_button = m_bb = m_heir = m_sb_player = m_last = -1
            m_sb_kind = 0
            n_est, n_owed = _forget_players(est_mark, est_list, n_est, owed_sb, owed_bb, owed_in, owed_list, n_owed)
            continue
        bbl = bbl_seat[h]
        btn = button[h]
        TH[TH_BIG_BLIND_PLAYER, h] = players[bbl] if bbl >= 0 else -1
        # ---- seats: blinds owed across hands, new players
        known = has_last
        for s in range(WIDTH):
            before_bb[s] = False
            missed[s] = -1
        between_known = btn >= 0 and bbl >= 0
        if between_known:
            no = 0
            for s in range(btn + 1, WIDTH):
                if seated[s]:
                    order_seats[no] = s
                    no += 1
            for s in range(0, min(btn + 1, WIDTH)):
                if seated[s]:
                    order_seats[no] = s
                    no += 1
            stop = no
            for k in range(no):
                if order_seats[k] == bbl:
                    stop = k
                    break
            for k in range(stop):
                s = order_seats[k]
                before_bb[s] = True
                if nbl[h] >= 2 and not dealt[s] and status[s] != S_NEW:
                    missed[s] = 0 if k == 0 else 1
        sba = sb_amount[h]
        bba = bb_amount[h]
        for s in range(WIDTH):
            if not seated[s]:
                continue
            p = players[s]
            b_sb = owed_sb[p]
            b_bb = owed_bb[p]
            nonempty = b_sb >= 0 or b_bb >= 0
            in_bb = bbl >= 0 and bbl == s
            if b_bb >= 0:
                made_up = hs_live_posts[h, s] >= bba and hs_dead_posts[h, s] >= sba
            else:
                made_up = hs_dead_posts[h, s] >= sba
            r = ns
            ns += 1
            TS[TS_HAND, r] = h
            TS[TS_SEAT, r] = s
            TS[TS_OWED, r] = ((1 if b_bb >= 0 else 0) + (2 if b_sb >= 0 else 0)) if known else -1
            TS[TS_IN_BB, r] = in_bb
            TS[TS_MADE_UP, r] = (1 if made_up else 0) if nonempty else -1
            TS[TS_MISSED_NOW, r] = missed[s]
            TS[TS_NEW, r] = (0 if est_mark[p] else 1) if has_est else -1
            TS[TS_BETWEEN, r] = (1 if before_bb[s] else 0) if between_known else -1
            TS[TS_LIVE_BB, r] = hs_live_posts[h, s] >= bba and bba > 0
            TS[TS_PREV_HAND, r] = m_last if has_last else -1
            TS[TS_MISS_SB, r] = b_sb if nonempty else -1
            TS[TS_MISS_BB, r] = b_bb if nonempty else -1
            if dealt[s] and (in_bb or made_up):
                owed_sb[p] = -1
                owed_bb[p] = -1
            if missed[s] >= 0:
                if not owed_in[p]:
                    owed_in[p] = True
                    owed_list[n_owed] = p
                    n_owed += 1
                if missed[s] == 0 and owed_sb[p] < 0:
                    owed_sb[p] = code
                elif missed[s] == 1 and owed_bb[p] < 0:
                    owed_bb[p] = code
        # ---- remember this hand for the table's next
        has_button, m_button = True, btn
        has_bb, m_bb = True, TH[TH_BIG_BLIND_PLAYER, h]
        m_heir = -1
        if nbl[h] == 2:
            for k in range(heir_list.shape[1]):
                which = heir_list[h, k]
                post = sb_seat[h] if which == 1 else (b2_seat[h] if which == 2 else -1)
                if post >= 0 and post != btn:
                    m_heir = players[post]
                    break
        has_heir = True
        has_sb = True
        if nbl[h] != 2:
            m_sb_kind, m_sb_player, m_sb_missed, m_sb_on_button = 0, -1, False, -1
        elif sb_seat[h] < 0:
            m_sb_kind, m_sb_player, m_sb_missed, m_sb_on_button = 1, -1, True, -1
        else:
            m_sb_kind, m_sb_player, m_sb_missed = 1, players[sb_seat[h]], False
            m_sb_on_button = 1 if sb_seat[h] == btn else 0
        ne = 0
        for s in range(WIDTH):
            if seated[s]:
                p = players[s]
                if dealt[s] or (est_mark[p] if has_est else status[s] != S_NEW):
                    new_est[ne] = p
                    ne += 1
        for k in range(n_est):
            est_mark[est_list[k]] = False
        n_est = np.int64(0)
        for k in range(ne):
            p = new_est[k]
            if not est_mark[p]:
                est_mark[p] = True
                est_list[n_est] = p
                n_est += 1
        has_est = True
        # owed entries emptied stay listed (skipped when stored); compact the list when it grows
        if n_owed > len(owed_list) - 2 * WIDTH:
            m = 0
            for k in range(n_owed):
                p = owed_list[k]
                if owed_sb[p] >= 0 or owed_bb[p] >= 0:
                    owed_list[m] = p
                    m += 1
                else:
                    owed_in[p] = False
            n_owed = m
        has_last, m_last = True, code
        if remembers:
            seen[code] = True
        if first_walk[code] < 0:
            first_walk[code] = w
    return (TH, first_walk, ns, TS, TF, f_est_off, f_est[:nfe], f_owed_off, f_owed_player[:nfo], f_owed_sb[:nfo],
            f_owed_bb[:nfo])


#: `cross_hands`' outputs by name (see `named`): the kernel writes each group into one int64 table, a row per
#: column, by the column numbers below (few arrays compile faster than one array per column)
OUTPUTS = {
    "hand": ("fail_seat", "prev_button", "expected_button", "button_by_blinds", "duplicate", "first_walk", "prev_bb",
             "prev_hand", "prev_sb_player", "prev_sb_missed", "prev_sb_on_button", "big_blind_player"),
    "seats": ("hand", "seat", "owed", "in_bb", "made_up", "missed_now", "new", "between", "live_bb", "prev_hand",
              "miss_sb", "miss_bb"),
    "final": ("touched", "has", "button", "bb", "heir", "sb_kind", "sb_player", "sb_missed", "sb_on_button", "last",
              "est_off", "est", "owed_off", "owed_player", "owed_sb", "owed_bb"),
}
#: the columns of the kernel's per-hand table (`first_walk`, per hand id code, is apart), of its seats rows
#: table and of its per-group table (the lists after them are apart)
HAND_COLUMNS = tuple(name for name in OUTPUTS["hand"] if name != "first_walk")
SEATS_COLUMNS = OUTPUTS["seats"]
FINAL_COLUMNS = OUTPUTS["final"][:10]
#: columns whose dtype is not int64 (`named` casts them back)
DTYPES = {
    ("hand", "duplicate"): np.bool_, ("hand", "prev_sb_missed"): np.int8, ("hand", "prev_sb_on_button"): np.int8,
    ("seats", "owed"): np.int8, ("seats", "in_bb"): np.bool_, ("seats", "made_up"): np.int8,
    ("seats", "missed_now"): np.int8, ("seats", "new"): np.int8, ("seats", "between"): np.int8,
    ("seats", "live_bb"): np.bool_,
    ("final", "touched"): np.bool_, ("final", "has"): np.bool_, ("final", "sb_kind"): np.int8,
    ("final", "sb_missed"): np.bool_, ("final", "sb_on_button"): np.int8,
}


def named(raw: tuple) -> dict[str, dict[str, np.ndarray]]:
    """`cross_hands`' tables as {group: {name: array}} in `OUTPUTS` order, each column in its own dtype (the
    seats rows cut to their count)."""
    TH, first_walk, ns, TS, TF, *lists = raw

    def typed(group: str, name: str, values: np.ndarray) -> np.ndarray:
        return values.astype(DTYPES.get((group, name), np.int64), copy=False)

    hand = {name: typed("hand", name, TH[k]) for k, name in enumerate(HAND_COLUMNS)}
    hand["first_walk"] = first_walk
    final = {name: typed("final", name, TF[k]) for k, name in enumerate(FINAL_COLUMNS)}
    final.update(zip(OUTPUTS["final"][10:], lists, strict=True))
    return {
        "hand": {name: hand[name] for name in OUTPUTS["hand"]},
        "seats": {name: typed("seats", name, TS[k, :ns]) for k, name in enumerate(SEATS_COLUMNS)},
        "final": final,
    }


def _check_columns() -> None:
    """The column numbers are written out for the kernel (Numba reads module constants): fail at import if one
    no longer matches its name's place, rather than write a column under another's name."""
    for prefix, names in (("TH_", HAND_COLUMNS), ("TS_", SEATS_COLUMNS), ("TF_", FINAL_COLUMNS)):
        if globals()[f"N_{prefix[:-1]}"] != len(names):
            raise ImportError(f"kernel table {prefix[:-1]} has {len(names)} columns")
        for k, name in enumerate(names):
            if globals()[prefix + name.upper()] != k:
                raise ImportError(f"kernel column {prefix}{name.upper()} is not column {k} of its table")


_check_columns()
