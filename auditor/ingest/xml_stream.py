"""An XML room's file streamed into its hands: each hand element (`<game>`) as a small tree, with the table-wide
fields of the session it belongs to and the line it starts on.

Two layouts, by the dialect: hands inside a session element whose header element's child elements are the
table-wide fields (`session` named), or hands that are documents of their own, each after the header element
it shares with the hands that follow (`session` None: the header's attributes are the fields).

Why streaming with expat: a room's export may be one session of thousands of hands; only one hand is held at a
time. Why so guarded: the file comes from the party being audited. A document type declaration (`<!DOCTYPE`,
and with it `<!ENTITY`) is refused before anything in it is used, so no entity is ever expanded (the "billion
laughs" and external entities); nesting deeper than `xml_max_depth`, a hand element longer than
`xml_max_hand_bytes` and one tag or text run longer than `xml_max_token_bytes` are refused as `limit`
(`auditor/ingest/limits.py`), the last one before expat holds it. Text is kept as text, never evaluated.

A room may also wrap a file's hands in one root element, or not (the dialect's `wrapper`): the hands are read
at either depth.

A room may write a file without a byte-order mark or an XML declaration in another encoding than UTF-8 (the
dialect's `encoding_without_mark`): such a file's documents are all read in it, and each hand says so.

A room's file may hold several documents in a row (sessions appended to one file, each with its own XML
declaration): when a document ends and another begins, a fresh parser reads on from there, lines counted
through. Anything else not well-formed ends the file with one `Broken` naming its line and expat's reason; a
file that ends inside a hand gives that hand as `truncated`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO
from xml.parsers import expat

from auditor.ingest.limits import Limits

__all__ = ["Broken", "Game", "Node", "games"]

CHUNK = 64 * 1024
_SPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"


@dataclass
class Node:
    """One element: its tag, attributes, text and children, and the line its start tag is on."""
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def all(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]

    def first(self, tag: str) -> Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def path(self, tags: list[str]) -> list[Node]:
        """The elements at `tags` below this one (every match at each step)."""
        found = [self]
        for tag in tags:
            found = [c for n in found for c in n.all(tag)]
        return found


@dataclass(frozen=True)
class Game:
    """A hand element read whole, with its session's header fields (element name -> text), and the encoding
    it was read in when the file named none (`encoding_without_mark`), else None."""
    node: Node
    header: dict[str, str]
    encoding: str | None = None


@dataclass(frozen=True)
class Broken:
    """Something in the file that is no hand: why, where, and the hand it cut short when there was one."""
    line: int
    reason: str
    code: str
    hand_id: str | None = None


class _Refused(Exception):
    def __init__(self, reason: str, code: str) -> None:
        super().__init__(reason)
        self.reason, self.code = reason, code


class _Builder:
    """The expat handlers: which element we are in, the session header, the hand being built."""

    def __init__(self, session: str | None, header: str, hand: str, hand_id: str, limits: Limits,
                 wrapper: str | None = None) -> None:
        self.session, self.header_tag, self.hand_tag, self.hand_id_attr = session, header, hand, hand_id
        #: the depth of a hand element and of the header element (the session, when there is one, is 1), one
        #: deeper in a document whose root is the dialect's `wrapper` (an element that may hold the hands, or not)
        self.base_depth = 2 if session else 1
        self.hand_depth = self.base_depth
        self.wrapper = wrapper
        self.limits = limits
        self.stack: list[str] = []
        self.header: dict[str, str] = {}
        self.field: tuple[str, list[str]] | None = None
        self.nodes: list[Node] = []  # the open elements of the hand being built
        self.hand_start = 0
        self.too_big = False
        self.done: list[Game | Broken] = []
        self.root_closed = False
        self.parser: expat.XMLParserType | None = None
        self.line_base = 0
        self.at_end = False
        self.encoding: str | None = None  # the encoding every document of the file is read in, when not UTF-8's

    # -- a parser for each document of the file ---------------------------------------------------------------

    def new_parser(self) -> expat.XMLParserType:
        p = expat.ParserCreate(self.encoding)
        p.buffer_text = True
        p.StartElementHandler = self.start
        p.EndElementHandler = self.end
        p.CharacterDataHandler = self.chars
        p.StartDoctypeDeclHandler = self.doctype
        p.EntityDeclHandler = self.entity
        p.ExternalEntityRefHandler = self.external
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.parser = p
        self.root_closed = False
        return p

    def line(self) -> int:
        assert self.parser is not None
        return self.line_base + self.parser.CurrentLineNumber

    def doctype(self, *_args: object) -> None:
        raise _Refused("a document type declaration (<!DOCTYPE ...>): refused, its entities are never expanded",
                       "damaged")

    def entity(self, *_args: object) -> None:
        raise _Refused("an entity declaration (<!ENTITY ...>): refused, never expanded", "damaged")

    def external(self, *_args: object) -> int:
        raise _Refused("a reference to an external entity: refused, never fetched", "damaged")

    # -- elements ---------------------------------------------------------------------------------------------

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self.stack.append(tag)
        depth = len(self.stack)
        if depth == 1:  # a document's root: the hands are inside it when it is the wrapper
            self.hand_depth = self.base_depth + (tag == self.wrapper and tag != self.hand_tag)
        if depth > self.limits.xml_max_depth:
            raise _Refused(f"elements nested past xml_max_depth ({self.limits.xml_max_depth})", "limit")
        if self.nodes:
            if self.too_big or self._hand_bytes() > self.limits.xml_max_hand_bytes:
                self.too_big = True
                return
            node = Node(tag, attrs, self.line())
            self.nodes[-1].children.append(node)
            self.nodes.append(node)
        elif depth == self.hand_depth and tag == self.hand_tag and (self.session is None
                                                                    or self.stack[0] == self.session):
            self.nodes.append(Node(tag, attrs, self.line()))
            assert self.parser is not None
            self.hand_start = self.parser.CurrentByteIndex
            self.too_big = False
        elif depth == 1 and tag == self.session:
            self.header = {}
        elif depth == self.hand_depth and tag == self.header_tag:
            if self.session is None:  # a header of its own: its fields are for the hands after it
                self.header = {}
            self.header.update({k: v.strip() for k, v in attrs.items()})
        elif depth == self.hand_depth + 1 and self.stack[-2] == self.header_tag and tag not in self.header:
            self.field = (tag, [])

    def _hand_bytes(self) -> int:
        assert self.parser is not None
        return self.parser.CurrentByteIndex - self.hand_start

    def end(self, tag: str) -> None:
        depth = len(self.stack)
        self.stack.pop()
        if self.nodes:
            if self.too_big and depth > self.hand_depth:
                return
            node = self.nodes.pop()
            if self.too_big or self._hand_bytes() > self.limits.xml_max_hand_bytes:
                self.too_big = True
            if not self.nodes:
                if self.too_big:
                    self.done.append(Broken(node.line, f"a hand element longer than xml_max_hand_bytes "
                                            f"({self.limits.xml_max_hand_bytes})", "limit",
                                            node.attrs.get(self.hand_id_attr)))
                else:
                    self.done.append(Game(node, dict(self.header), self.encoding))
                self.too_big = False
        elif self.field is not None and depth == self.hand_depth + 1:
            self.header[self.field[0]] = "".join(self.field[1]).strip()
            self.field = None
        if not self.stack:
            self.root_closed = True

    def chars(self, text: str) -> None:
        if self.nodes:
            if not self.too_big:
                self.nodes[-1].parts.append(text)
        elif self.field is not None:
            self.field[1].append(text)

    def open_hand(self) -> tuple[int, str | None] | None:
        if not self.nodes:
            return None
        return self.nodes[0].line, self.nodes[0].attrs.get(self.hand_id_attr)


def games(stream: BinaryIO, session: str | None, header: str, hand: str, hand_id: str,
          limits: Limits, encoding_without_mark: str | None = None,
          wrapper: str | None = None) -> Iterator[Game | Broken]:
    """Every hand element of the stream, each a Game, and at most one Broken ending it (see the module)."""
    b = _Builder(session, header, hand, hand_id, limits, wrapper)
    b.encoding = encoding_without_mark
    try:
        yield from _run(b, stream, limits)
    except _Refused as exc:
        yield from _drain(b)
        yield _broken(b, exc.reason, exc.code)
    except (LookupError, UnicodeError) as exc:  # an encoding declared that Python cannot decode
        yield from _drain(b)
        yield _broken(b, f"text in an encoding that cannot be read: {exc}", "damaged")
    except expat.ExpatError as exc:
        yield from _drain(b)
        broken = _not_well_formed(b, exc)
        if broken is not None:
            yield broken


_NEXT_DOCUMENT = (expat.errors.codes[expat.errors.XML_ERROR_JUNK_AFTER_DOC_ELEMENT],
                  expat.errors.codes[expat.errors.XML_ERROR_MISPLACED_XML_PI])


def _run(b: _Builder, stream: BinaryIO, limits: Limits) -> Iterator[Game | Broken]:
    parser: expat.XMLParserType | None = None
    fed = 0  # bytes the current parser has been given
    kept, kept_at = b"", 0  # the last bytes given to it, and their offset in its input
    since_tag_end = 0
    marked: bool | None = None  # whether the file opens on a byte-order mark or an XML declaration
    while True:
        chunk = stream.read(CHUNK)
        if marked is None and chunk.lstrip(_SPACE):
            marked = chunk.lstrip(_SPACE).startswith((_BOM, b"\xff\xfe", b"\xfe\xff", b"<?xml"))
            if marked:  # the file says its encoding: `encoding_without_mark` is not for it
                b.encoding = None
        runs = chunk.split(b">")  # the bytes between one `>` and the next: a tag with its attributes, or text
        longest = max(since_tag_end + len(runs[0]), max(map(len, runs[1:-1]), default=0))
        since_tag_end = since_tag_end + len(chunk) if len(runs) == 1 else len(runs[-1])
        if max(longest, since_tag_end) > limits.xml_max_token_bytes:
            raise _Refused(f"a tag or text longer than xml_max_token_bytes ({limits.xml_max_token_bytes})", "limit")
        data = chunk
        while data:
            if parser is None:
                stripped = data.lstrip(_SPACE + _BOM)
                b.line_base += data[:len(data) - len(stripped)].count(b"\n")
                if not stripped:
                    break
                data, parser, fed, kept, kept_at = stripped, b.new_parser(), 0, b"", 0
            try:
                parser.Parse(data, False)
            except expat.ExpatError as exc:
                if not b.root_closed or exc.code not in _NEXT_DOCUMENT:
                    raise
                # one document ended and the next begins where expat stopped: read on with a fresh parser
                held = kept + data
                data = held[max(0, parser.ErrorByteIndex - kept_at):]
                b.line_base += parser.ErrorLineNumber - 1
                parser = None
            else:
                held = (kept + data)[-CHUNK:]
                kept, kept_at = held, fed + len(data) - len(held)
                fed += len(data)
                data = b""
            yield from _drain(b)
        if not chunk:
            break
    b.at_end = True
    if parser is not None:
        parser.Parse(b"", True)
    yield from _drain(b)


def _drain(b: _Builder) -> Iterator[Game | Broken]:
    while b.done:
        yield b.done.pop(0)


def _broken(b: _Builder, reason: str, code: str) -> Broken:
    open_hand = b.open_hand()
    line = b.line() if b.parser is not None else b.line_base + 1
    if open_hand is not None:
        return Broken(open_hand[0], f"{reason} (line {line}); the rest of the file is not read", code, open_hand[1])
    return Broken(line, f"{reason}; the rest of the file is not read", code)


def _not_well_formed(b: _Builder, exc: expat.ExpatError) -> Broken | None:
    open_hand = b.open_hand()
    where = f"line {b.line_base + exc.lineno}, column {exc.offset + 1}"
    message = expat.errors.messages.get(exc.code, str(exc)) if exc.code else str(exc)
    if b.at_end:
        # the file stops before its elements close: the hand it stops in is cut short; after the last hand,
        # nothing of a hand is missing
        if open_hand is None:
            return None
        return Broken(open_hand[0], f"the file ends inside the hand ({where})", "truncated", open_hand[1])
    if open_hand is not None:
        return Broken(open_hand[0], f"XML not well-formed: {message} ({where}); the rest of the file is not read",
                      "damaged", open_hand[1])
    return Broken(b.line_base + exc.lineno, f"XML not well-formed: {message} ({where}); the rest of the file is "
                  "not read", "damaged")
