"""A Parquet footer read by our own code, so pyarrow never builds row-group or column-chunk metadata from it.

Why: pyarrow's `FileMetaData.row_group(i)` and `RowGroupMetaData.column(j)` are declared in Cython without
`except +`; when Arrow's C++ constructor of that metadata rejects a damaged footer (for instance a
SizeStatistics histogram of the wrong length: "Definition level histogram size mismatch") the C++
exception cannot become a Python one and the interpreter calls std::terminate: the whole audit dies of
SIGABRT on one hostile file. So the limits (`decoded_bytes`, `stream_refusal`, `range_refusal`) take the
few numbers they need from this parse instead, and a footer it cannot read is refused as `damaged`.

The parser reads the Thrift compact protocol of `FileMetaData` (parquet.thrift): only the fields the checks
use are kept, every other field is skipped by its wire type. It is bounded: the footer is at most
`parquet_max_footer_bytes` (checked before it is read), every length and list size is checked against the
bytes left (each element takes at least one byte), nesting is depth-limited, and the work is linear in the
footer's bytes. Whatever is wrong is one `FooterError` with a one-line reason. Column paths come from the
schema (what Arrow reads), and a chunk whose own `path_in_schema` or count disagrees is damaged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

#: Parquet's physical types and encodings by their Thrift enum values, named as pyarrow names them
PHYSICAL_TYPES = ("BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")
ENCODINGS = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
             6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}
#: nesting deeper than this is not a footer any writer makes (the canonical tables nest lists two deep)
_MAX_DEPTH = 32

# compact protocol wire types
_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(13)


class FooterError(ValueError):
    """A Parquet footer that cannot be read: its reason is one line naming what is wrong."""


@dataclass(frozen=True)
class ChunkInfo:
    """One column chunk, as the limits need it (the names are pyarrow's `ColumnChunkMetaData` ones)."""

    path_in_schema: str
    physical_type: str
    encodings: tuple[str, ...]
    num_values: int
    total_compressed_size: int
    total_uncompressed_size: int


@dataclass(frozen=True)
class GroupInfo:
    """One row group: its row count, the footer's uncompressed size, and its column chunks."""

    num_rows: int
    total_byte_size: int
    columns: tuple[ChunkInfo, ...]

    @property
    def num_columns(self) -> int:
        return len(self.columns)


@dataclass(frozen=True)
class FooterInfo:
    """The parts of `FileMetaData` the limits use."""

    num_rows: int
    row_groups: tuple[GroupInfo, ...]

    @property
    def num_row_groups(self) -> int:
        return len(self.row_groups)


class _Reader:
    """The compact protocol over one bytes object; every read checks the bytes left."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        try:
            value = self.data[self.pos]
        except IndexError:
            raise FooterError("the footer ends in the middle of a value") from None
        self.pos += 1
        return value

    def varint(self) -> int:
        data, pos = self.data, self.pos
        result = shift = 0
        try:
            while True:
                b = data[pos]
                pos += 1
                result |= (b & 0x7F) << shift
                if not b & 0x80:
                    self.pos = pos
                    return result
                shift += 7
                if shift > 63:
                    raise FooterError("the footer holds a varint longer than 64 bits")
        except IndexError:
            raise FooterError("the footer ends in the middle of a value") from None

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def binary(self) -> bytes:
        n = self.varint()
        if n > len(self.data) - self.pos:
            raise FooterError(f"the footer declares a string of {n} bytes, more than it holds")
        value = self.data[self.pos:self.pos + n]
        self.pos += n
        return value

    def list_header(self) -> tuple[int, int]:
        b = self.byte()
        size, kind = b >> 4, b & 0x0F
        if size == 15:
            size = self.varint()
        if size > len(self.data) - self.pos:  # every element, a bool too, takes at least one byte
            raise FooterError(f"the footer declares a list of {size} elements, more than it holds")
        return size, kind

    def fields(self, depth: int) -> Iterator[tuple[int, int]]:
        """(field id, wire type) of each field of a struct, up to its STOP (the caller reads or skips each)."""
        if depth > _MAX_DEPTH:
            raise FooterError(f"the footer nests deeper than {_MAX_DEPTH} structs")
        last = 0
        while True:
            b = self.byte()
            kind = b & 0x0F
            if kind == _STOP:
                return
            delta = b >> 4
            last = last + delta if delta else self.zigzag()
            yield last, kind

    def skip(self, kind: int, depth: int) -> None:
        """Pass over one value of wire type `kind` (a field we do not use)."""
        if depth > _MAX_DEPTH:
            raise FooterError(f"the footer nests deeper than {_MAX_DEPTH} values")
        if kind in (_TRUE, _FALSE):
            return
        if kind == _BYTE:
            self.byte()
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            if len(self.data) - self.pos < 8:
                raise FooterError("the footer ends in the middle of a value")
            self.pos += 8
        elif kind == _BINARY:
            self.binary()
        elif kind in (_LIST, _SET):
            size, element = self.list_header()
            for _ in range(size):
                if element in (_TRUE, _FALSE):
                    self.byte()  # a bool in a list is one byte
                else:
                    self.skip(element, depth + 1)
        elif kind == _MAP:
            size = self.varint()
            if size:
                if size > len(self.data) - self.pos:
                    raise FooterError(f"the footer declares a map of {size} entries, more than it holds")
                types = self.byte()
                for _ in range(size):
                    self.skip(types >> 4, depth + 1)
                    self.skip(types & 0x0F, depth + 1)
        elif kind == _STRUCT:
            for _, field_kind in self.fields(depth + 1):
                self.skip(field_kind, depth + 1)
        else:
            raise FooterError(f"the footer holds a value of unknown Thrift type {kind}")

    def int_field(self, kind: int) -> int:
        if kind not in (_I16, _I32, _I64, _BYTE):
            raise FooterError(f"the footer holds an integer field of Thrift type {kind}")
        return self.byte() if kind == _BYTE else self.zigzag()

    def struct_list(self, kind: int, what: str) -> int:
        """The size of a list of structs (the field's type checked)."""
        if kind != _LIST:
            raise FooterError(f"the footer's {what} is not a list")
        size, element = self.list_header()
        if size and element != _STRUCT:
            raise FooterError(f"the footer's {what} is not a list of structs")
        return size


@dataclass(frozen=True)
class _Leaf:
    """A leaf column of the schema: its dotted path and the largest definition and repetition levels its
    pages may hold (what the SizeStatistics histograms' lengths must follow)."""

    path: str
    max_definition: int
    max_repetition: int
    #: the schema's physical type (Thrift enum; -1 when it gives none), what Arrow decodes the pages as
    physical_type: int


def _schema_leaves(r: _Reader, count: int) -> list[_Leaf]:
    """The leaf columns of the schema (depth first, as Arrow numbers the column chunks)."""
    elements: list[tuple[str, int, int, int]] = []
    for _ in range(count):
        name, children, repetition, physical = "", 0, 0, -1
        for field, kind in r.fields(2):
            if field == 1:
                physical = r.int_field(kind)
            elif field == 3:
                repetition = r.int_field(kind)
            elif field == 4 and kind == _BINARY:
                name = r.binary().decode("utf-8", "replace")
            elif field == 5:
                children = r.int_field(kind)
            else:
                r.skip(kind, 3)
        if children < 0 or children > count:
            raise FooterError(f"the footer's schema element {name!r} has {children} children")
        if not 0 <= repetition <= 2:
            raise FooterError(f"the footer's schema element {name!r} has unknown repetition {repetition}")
        elements.append((name, children, repetition, physical))
    if not elements:
        raise FooterError("the footer has no schema")
    leaves: list[_Leaf] = []
    # per open group below the root: [children left, name, definition level, repetition level]
    stack: list[list] = [[elements[0][1], "", 0, 0]]
    for name, children, repetition, physical in elements[1:]:
        while stack and stack[-1][0] == 0:
            stack.pop()
        if not stack:
            raise FooterError("the footer's schema has more elements than its root's children hold")
        parent = stack[-1]
        parent[0] -= 1
        path = f"{parent[1]}.{name}" if parent[1] else name
        definition = parent[2] + (repetition != 0)  # OPTIONAL and REPEATED add a level, REQUIRED none
        repeated = parent[3] + (repetition == 2)
        if children:
            stack.append([children, path, definition, repeated])
        else:
            leaves.append(_Leaf(path, definition, repeated, physical))
    while stack and stack[-1][0] == 0:
        stack.pop()
    if stack:
        raise FooterError("the footer's schema ends before its groups' children do")
    return leaves


def _size_statistics(r: _Reader) -> tuple[int, int, bool]:
    """The lengths of a SizeStatistics' repetition and definition level histograms (0 when absent), and
    whether it gives unencoded_byte_array_data_bytes."""
    lengths = [0, 0]
    unencoded = False
    for field, kind in r.fields(5):
        if field == 1:
            unencoded = True
            r.skip(kind, 6)
        elif field in (2, 3) and kind == _LIST:
            size, element = r.list_header()
            for _ in range(size):
                r.skip(element, 6)
            lengths[field - 2] = size
        else:
            r.skip(kind, 6)
    return lengths[0], lengths[1], unencoded


def _column_metadata(r: _Reader) -> dict:
    out: dict = {}
    for field, kind in r.fields(4):
        if field == 1:
            out["type"] = r.int_field(kind)
        elif field == 2 and kind == _LIST:
            size, element = r.list_header()
            if size and element not in (_I32, _I16, _I64):
                raise FooterError("the footer's encodings are not integers")
            out["encodings"] = [r.zigzag() for _ in range(size)]
        elif field == 3 and kind == _LIST:
            size, element = r.list_header()
            if size and element != _BINARY:
                raise FooterError("the footer's path_in_schema is not a list of strings")
            out["path"] = ".".join(r.binary().decode("utf-8", "replace") for _ in range(size))
        elif field in (5, 6, 7):
            out[field] = r.int_field(kind)
        elif field == 16 and kind == _STRUCT:
            out["sizes"] = _size_statistics(r)
        else:
            r.skip(kind, 5)
    return out


def _row_group(r: _Reader, g: int, leaves: list[_Leaf]) -> GroupInfo:
    chunks: list[ChunkInfo] = []
    num_rows = total = None
    for field, kind in r.fields(2):
        if field == 1:
            for j in range(r.struct_list(kind, f"row group {g} columns")):
                meta = None
                for chunk_field, chunk_kind in r.fields(3):
                    if chunk_field == 3 and chunk_kind == _STRUCT:
                        meta = _column_metadata(r)
                    elif chunk_field in (8, 9):  # crypto_metadata, encrypted_column_metadata
                        raise FooterError(f"row group {g} column {j} is encrypted (not read)")
                    else:
                        r.skip(chunk_kind, 4)
                chunks.append(_chunk(meta, g, j, leaves))
        elif field == 2:
            total = r.int_field(kind)
        elif field == 3:
            num_rows = r.int_field(kind)
        else:
            r.skip(kind, 3)
    if num_rows is None or total is None or num_rows < 0 or total < 0:
        raise FooterError(f"row group {g} lacks a valid num_rows or total_byte_size")
    if len(chunks) != len(leaves):
        raise FooterError(f"row group {g} has {len(chunks)} column chunks for {len(leaves)} schema columns")
    return GroupInfo(num_rows, total, tuple(chunks))


def _chunk(meta: dict | None, g: int, j: int, leaves: list[_Leaf]) -> ChunkInfo:
    where = f"row group {g} column {j}"
    if meta is None:
        raise FooterError(f"{where} has no column metadata (encrypted or damaged)")
    if j >= len(leaves):
        raise FooterError(f"row group {g} has more column chunks than the schema has columns")
    if any(k not in meta for k in ("type", "encodings", "path", 5, 6, 7)):
        raise FooterError(f"{where} lacks a required metadata field")
    if not 0 <= meta["type"] < len(PHYSICAL_TYPES):
        raise FooterError(f"{where} has unknown physical type {meta['type']}")
    leaf = leaves[j]
    if meta["path"] != leaf.path:
        raise FooterError(f"{where} says it is column {meta['path']!r}, the schema says {leaf.path!r}")
    # Arrow's SizeStatistics::Validate throws on these from a constructor pyarrow cannot catch (the abort)
    repetitions, definitions, unencoded = meta.get("sizes", (0, 0, False))
    for what, size, level in (("repetition", repetitions, leaf.max_repetition),
                              ("definition", definitions, leaf.max_definition)):
        if size and size != level + 1:
            raise FooterError(f"{where} has a {what} level histogram of {size} entries, its column "
                              f"{leaf.path!r} has {level + 1} levels")
    if meta["type"] != leaf.physical_type:
        raise FooterError(f"{where} says its values are {PHYSICAL_TYPES[meta['type']]}, the schema says "
                          f"type {leaf.physical_type}")
    if unencoded and leaf.physical_type != 6:  # Arrow's same check, again one that would abort
        raise FooterError(f"{where} gives unencoded byte array sizes for a column of type "
                          f"{PHYSICAL_TYPES[meta['type']]}")
    if meta[5] < 0 or meta[6] < 0 or meta[7] < 0:
        raise FooterError(f"{where} has a negative value count or size")
    encodings = tuple(dict.fromkeys(ENCODINGS.get(e, "UNKNOWN") for e in meta["encodings"]))
    return ChunkInfo(leaf.path, PHYSICAL_TYPES[meta["type"]], encodings, meta[5], meta[7], meta[6])


def parse_footer(data: bytes) -> FooterInfo:
    """`FileMetaData` from its Thrift bytes (the footer without its length and magic), or FooterError."""
    r = _Reader(data)
    leaves: list[_Leaf] | None = None
    num_rows: int | None = None
    groups: list[GroupInfo] = []
    for field, kind in r.fields(1):
        if field == 2:
            leaves = _schema_leaves(r, r.struct_list(kind, "schema"))
        elif field == 3:
            num_rows = r.int_field(kind)
        elif field == 4:
            if leaves is None:
                raise FooterError("the footer gives row groups before its schema")
            for g in range(r.struct_list(kind, "row groups")):
                groups.append(_row_group(r, g, leaves))
        else:
            r.skip(kind, 2)
    if leaves is None or num_rows is None or num_rows < 0:
        raise FooterError("the footer lacks its schema or row count")
    return FooterInfo(num_rows, tuple(groups))


def read_footer(path: Path, max_footer_bytes: int) -> FooterInfo:
    """The footer of Parquet file `path`, parsed by `parse_footer`; FooterError (reason naming the file's
    problem, not the file) for a file that has no Parquet ending, a footer longer than the file or than
    `max_footer_bytes`, or one that cannot be parsed. Cached per file identity (path, size, mtime, inode):
    the planner and every range of a worker ask for the same footers."""
    st = os.stat(path)
    return _cached(str(path), st.st_size, st.st_mtime_ns, st.st_ino, max_footer_bytes)


@lru_cache(maxsize=16)
def _cached(path: str, size: int, _mtime: int, _inode: int, max_footer_bytes: int) -> FooterInfo:
    if size < 12:
        raise FooterError("the file is too short to be Parquet")
    with open(path, "rb") as file:
        file.seek(size - 8)
        tail = file.read(8)
        if tail[4:] != b"PAR1":
            raise FooterError("the file does not end as Parquet does (PAR1; an encrypted footer is not read)")
        length = int.from_bytes(tail[:4], "little")
        if length > max_footer_bytes:
            raise FooterError(f"the footer of {length} bytes is over the limit of {max_footer_bytes}")
        if length > size - 12:
            raise FooterError(f"the footer claims {length} bytes, more than the file holds")
        file.seek(size - 8 - length)
        data = file.read(length)
    return parse_footer(data)
