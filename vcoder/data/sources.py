"""Local tabular sources: a parquet file, a folder of parquet files, or a ``datasets.save_to_disk`` folder.

Read with pyarrow in record batches so a large file is never loaded whole, and column by column so that
sampling (which needs only the HTML) does not decode every screenshot.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any


class TableSource:
    """Rows of one or more local parquet / arrow files, read lazily.

    Args:
        path: a ``.parquet`` file, a folder containing ``*.parquet`` files (searched recursively, sorted), or a
            folder written by ``datasets.Dataset.save_to_disk`` (``*.arrow`` files).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"dataset source {str(self.path)!r} does not exist; pass a parquet file or folder")
        if self.path.is_file():
            self.files = [self.path]
        else:
            self.files = sorted(self.path.rglob("*.parquet")) or sorted(self.path.rglob("*.arrow"))
        if not self.files:
            raise FileNotFoundError(
                f"no .parquet or .arrow files under {str(self.path)!r}; pass a parquet file, a folder of them, "
                "or a folder written by datasets' save_to_disk"
            )

    def _open(self, file: Path):
        import pyarrow as pa
        import pyarrow.parquet as pq

        if file.suffix == ".arrow":
            # save_to_disk writes the arrow streaming format
            with pa.memory_map(str(file)) as source:
                return pa.ipc.open_stream(source).read_all()
        return pq.ParquetFile(file)

    @property
    def columns(self) -> list[str]:
        """Column names of the first file."""
        handle = self._open(self.files[0])
        return list(handle.schema_arrow.names if hasattr(handle, "schema_arrow") else handle.schema.names)

    def iter_rows(self, columns: list[str], batch_size: int = 256) -> Iterator[dict[str, Any]]:
        """Yield ``{column: value}`` for the given columns, file by file, in order."""
        for file in self.files:
            handle = self._open(file)
            batches = (
                handle.iter_batches(batch_size=batch_size, columns=columns)
                if hasattr(handle, "iter_batches")
                else handle.select(columns).to_batches(max_chunksize=batch_size)
            )
            for batch in batches:
                yield from batch.to_pylist()

    def __len__(self) -> int:
        total = 0
        for file in self.files:
            handle = self._open(file)
            total += handle.metadata.num_rows if hasattr(handle, "metadata") and handle.metadata else handle.num_rows
        return total
