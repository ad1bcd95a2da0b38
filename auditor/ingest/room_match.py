"""A dialect's line templates run over a file's bytes: which template a line is, and where its fields are.

Why compiled and not regular expressions: a million hands are some twenty-five million lines, and a pattern per
template per line (Arrow's or Python's) costs tens of seconds; here the templates are a small program of
literals and typed fields (`dialect.Program`) that one compiled function runs over the line's bytes, with the
hand's seated names as the `player` field's only values (a name is never split on punctuation: it is matched
whole, longest first, as the room wrote it in the seat list).

Matching is a backtracking walk over the program: a literal must match byte for byte; `int`, `amount`,
`cards` (up to `]` or `)`), `word`, `bracketless`, `code` and `zone` take the longest run of their bytes; `text`
takes as little as lets the rest match, `name` as much; `blanks` a whole run of blanks (none before it: a name
before them ends in no blank); `player` tries the hand's names longest first; a choice tries its words longest
first; an optional part is tried present, then absent. The whole line must be used. A field's slot holds its
[start, end) in the data (-1 when its optional part is absent; for `player` the start is the seat number's row in
the names given, see `match`). Each is a `callee` of the ledger (`model.compiled`): it allocates
nothing.
"""

from __future__ import annotations

from auditor.model.compiled import callee

__all__ = ["OPS", "TYPES", "at_literal", "match"]

#: program operations (a row of the program: op, a, b, c)
OPS = ("lit", "field", "maybe", "end", "done")
OP_LIT, OP_FIELD, OP_MAYBE, OP_END, OP_DONE = range(len(OPS))
#: field types the kernel knows (`dialect.FIELD_TYPES` maps the dialect's types onto these)
TYPES = ("int", "amount", "cards", "player", "text", "name", "word", "choice", "bracketless", "code", "zone",
         "blanks")
T_INT, T_AMOUNT, T_CARDS, T_PLAYER, T_TEXT, T_NAME, T_WORD, T_CHOICE, T_BRACKETLESS, T_CODE, T_ZONE, T_BLANKS = range(
    len(TYPES))
#: how deep a walk may go back (choice points held at once); a line needing more is not matched
STACK = 64
#: steps a line may take per byte before the walk gives up (a hostile line cannot take quadratic time: the walk is
#: linear on every template of the dialects, `text` before a closing literal resolved at once)
STEPS_PER_BYTE = 64


@callee
def _digits(data, p, e):  # pragma: no cover - compiled
    while p < e and 48 <= data[p] <= 57:
        p += 1
    return p


@callee
def amount_end(data, p, e, symbols, thousands, decimal):  # pragma: no cover - compiled
    """Where the amount at p ends (p: none): a currency symbol (one of `symbols`, each a row of bytes padded
    with 0), digits (1-3 then groups of `thousands` and three digits, or digits alone), then `decimal` and
    digits if there, then the symbol when none came before (rooms write it before or after the number)."""
    q = p + _symbol_at(data, p, e, symbols)
    stop = _digits(data, q, e)
    if stop == q:
        return p
    if stop - q <= 3 and thousands >= 0:
        while stop + 4 <= e and data[stop] == thousands and 48 <= data[stop + 1] <= 57 \
                and 48 <= data[stop + 2] <= 57 and 48 <= data[stop + 3] <= 57:
            stop += 4
    if stop + 1 < e and data[stop] == decimal and 48 <= data[stop + 1] <= 57:
        stop = _digits(data, stop + 2, e)
    return stop + (_symbol_at(data, stop, e, symbols) if q == p else 0)


@callee
def _symbol_at(data, p, e, symbols):  # pragma: no cover - compiled
    """The length of the currency symbol at p (0: none)."""
    for k in range(symbols.shape[0]):
        m = 0
        while m < symbols.shape[1] and symbols[k, m] != 0:
            m += 1
        if m and p + m <= e:
            same = True
            for j in range(m):
                if data[p + j] != symbols[k, j]:
                    same = False
                    break
            if same:
                return m
    return 0


@callee
def _munch(data, p, e, kind, symbols, thousands, decimal):  # pragma: no cover - compiled
    """The end of the longest run of a greedy type at p (p itself for an empty run)."""
    if kind == T_INT:
        return _digits(data, p, e)
    if kind == T_AMOUNT:
        return amount_end(data, p, e, symbols, thousands, decimal)
    if kind == T_CARDS:
        while p < e and data[p] != 93 and data[p] != 41:  # ] or )
            p += 1
        return p
    if kind == T_BLANKS:  # the whole run of blanks, never after a blank
        if p > 0 and data[p - 1] == 32:
            return p
        while p < e and data[p] == 32:
            p += 1
        return p
    if kind == T_WORD:
        while p < e and data[p] != 32 and data[p] != 9:
            p += 1
        return p
    if kind == T_BRACKETLESS:
        while p < e and data[p] != 40 and data[p] != 41:
            p += 1
        return p
    q = p
    while q < e and 65 <= data[q] <= 90 and q - p < 5:
        q += 1
    if kind == T_CODE:
        # [A-Z]{3} between word boundaries
        if q - p != 3 or (q < e and (48 <= data[q] <= 57 or 65 <= data[q] <= 90 or 97 <= data[q] <= 122
                                     or data[q] == 95)):
            return p
        return q
    if q - p < 2 or (q < e and 65 <= data[q] <= 90):  # zone: [A-Z]{2,5}
        return p
    return q


@callee
def at_literal(data, p, e, blob, lo, n):  # pragma: no cover - compiled
    """Whether data[p:e] begins with the literal blob[lo:lo + n]."""
    if e - p < n:
        return False
    j = 0
    while j < n and data[p + j] == blob[lo + j]:
        j += 1
    return j == n


@callee
def match(data, s, e, program, start, lit, words, names, symbols, thousands, decimal, slots, stack):  # pragma: no cover
    """Whether line data[s:e] is the template whose program begins at row `start` of `program`; its fields'
    [start, end) go to `slots` (a row per slot). `lit` holds the literals' bytes; `words[c]` a choice's words as
    rows (lo, length) of `lit`; `names` the hand's names as rows (seat, lo, hi) of `data`, longest first (for a
    `player` field the slot holds [lo, hi) of the name and the seat is found by the caller from it).
    `symbols`, `thousands`, `decimal`: the dialect's amount syntax. `stack`: (STACK, 3) scratch."""
    depth = 0
    op = start
    p = s
    alt = 0
    steps = 0
    most = STEPS_PER_BYTE * (e - s + 64)
    for k in range(slots.shape[0]):
        slots[k, 0] = -1
        slots[k, 1] = -1
    while True:
        steps += 1
        if steps > most:
            return False
        op0 = op
        p0 = p
        code = program[op, 0]
        ok = True
        resume = -1  # an alternative after `alt` exists at this choice point
        if code == OP_DONE:
            if p == e:
                return True
            ok = False
        elif code == OP_LIT:
            if at_literal(data, p, e, lit, program[op, 1], program[op, 2]):
                p += program[op, 2]
                op += 1
            else:
                ok = False
        elif code == OP_END:
            slots[program[op, 1], 1] = p
            op += 1
        elif code == OP_MAYBE:
            slot = program[op, 1]
            if alt == 0:  # present
                slots[slot, 0] = p
                resume = 1
                op += 1
            else:  # absent: every slot inside it unset
                for q in range(op, program[op, 2]):
                    if program[q, 0] == OP_FIELD:
                        slots[program[q, 2], 0] = -1
                        slots[program[q, 2], 1] = -1
                    elif program[q, 0] == OP_MAYBE:
                        slots[program[q, 1], 0] = -1
                        slots[program[q, 1], 1] = -1
                op = program[op, 2]
        else:  # a field
            kind = program[op, 1]
            slot = program[op, 2]
            if kind in (T_TEXT, T_NAME):
                # text: as little as lets the rest match (alt = extra bytes); name: as much (alt = bytes less);
                # either, when only a closing literal (or nothing) follows, is the one size that leaves it
                closing = -1
                if program[op + 1, 0] == OP_DONE:
                    closing = 0
                elif program[op + 1, 0] == OP_LIT and program[op + 2, 0] == OP_DONE:
                    closing = program[op + 1, 2]
                size = alt if kind == T_TEXT else e - p - alt
                if closing >= 0:
                    size = e - p - closing if alt == 0 else -1
                if size < (0 if kind == T_TEXT else 1) or p + size > e:
                    ok = False
                else:
                    slots[slot, 0] = p
                    slots[slot, 1] = p + size
                    if closing < 0:
                        resume = alt + 1
                    p += size
                    op += 1
            elif kind in (T_PLAYER, T_CHOICE):
                found = -1
                if kind == T_PLAYER:
                    for k in range(alt, names.shape[0]):
                        lo = names[k, 1]
                        n = names[k, 2] - lo
                        if n > 0 and e - p >= n:
                            same = True
                            for j in range(n):
                                if data[p + j] != data[lo + j]:
                                    same = False
                                    break
                            if same:
                                found = k
                                size = n
                                break
                else:
                    table = program[op, 3]
                    for k in range(alt, words.shape[1]):
                        n = words[table, k, 1]
                        if n < 0:
                            break
                        if at_literal(data, p, e, lit, words[table, k, 0], n):
                            found = k
                            size = n
                            break
                if found < 0:
                    ok = False
                else:
                    slots[slot, 0] = p
                    slots[slot, 1] = p + size
                    resume = found + 1
                    p += size
                    op += 1
            else:
                q = _munch(data, p, e, kind, symbols, thousands, decimal)
                if kind == T_CARDS and program[op + 1, 0] == OP_LIT and lit[program[op + 1, 1]] == 32:
                    while q > p and data[q - 1] == 32:  # cards before a closing ` ]`: the blanks are the literal's
                        q -= 1
                if q == p and kind != T_CARDS and kind != T_BRACKETLESS:
                    ok = False
                else:
                    slots[slot, 0] = p
                    slots[slot, 1] = q
                    p = q
                    op += 1
        if resume >= 0:
            if depth >= stack.shape[0]:
                return False
            # the choice point: come back to its row and position with the next alternative
            stack[depth, 0] = op0
            stack[depth, 1] = p0
            stack[depth, 2] = resume
            depth += 1
            alt = 0
            continue
        if ok:
            alt = 0
            continue
        if depth == 0:
            return False
        depth -= 1
        op = stack[depth, 0]
        p = stack[depth, 1]
        alt = stack[depth, 2]
