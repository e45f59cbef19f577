from typing import Any

Words = tuple[int, int, int, int]

def chunk(words: Words, size: int, order: tuple[int, int, int, int], predeal: bytes,
          nodes: bytes, tables: bytes, shapes: bytes, condition: int, exprs: tuple[int, ...],
          keep_deals: bool, stacker: Any = None, /) -> tuple[bytes, bytes, tuple[bytes, ...]]: ...
def stacker(seat: int, cumulative: bytes, cells: bytes, row_cells: int, cell_add: int,
            sizes: tuple[int, ...], part: tuple[int, ...],
            suits: tuple[tuple[bytes, ...], ...], /) -> Any: ...
def integers(words: Words, bounds: list[int], /) -> list[int]: ...
