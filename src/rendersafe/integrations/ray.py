"""`Sanitize`: rendersafe as a Ray Data batch transform (`pip install 'rendersafe[ray]'`).

    import ray
    from rendersafe import Policy
    from rendersafe.integrations.ray import Sanitize

    ray.data.DataContext.get_current().target_max_block_size = 4 << 20  # work for every actor
    ds = ray.data.read_parquet("s3://lake/chats/")
    out = ds.map_batches(
        Sanitize,
        fn_constructor_kwargs={"policy": Policy(), "conversation": "messages"},
        batch_format="pyarrow",
        concurrency=8,              # actors: one Sanitizer each, reused for every batch
    )
    out.write_parquet("s3://lake/chats-sanitised/")

Each batch leaves with one more column (`output`, "rendersafe" by default): a struct of
`text`, `changed` and `findings` (a JSON list), as `rendersafe.batch.sanitize_arrow`
gives them. `keep=("id",)` carries only those input columns beside it: the conversations
then never travel through Ray's object store a second time. An instance works too
(`ds.map_batches(Sanitize(policy), ...)`, run as tasks). Ray is not imported here: the
class only answers Ray's batch contract.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from ..batch import ColumnError, sanitize_arrow, sanitizer_for
from ..policy import Policy

__all__ = ["Sanitize"]


class Sanitize:
    """Sanitise the `reply` column of each `pyarrow.Table` batch (judged with the
    `conversation` column, if named) into a new `output` column."""

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        reply: str = "reply",
        conversation: str | None = None,
        output: str = "rendersafe",
        keep: Sequence[str] | None = None,
    ) -> None:
        self.policy = policy if policy is not None else Policy()
        self.reply, self.conversation, self.output = reply, conversation, output
        self.keep = None if keep is None else tuple(keep)
        sanitizer_for(self.policy)  # compiled and warmed as the actor starts, not per batch

    def __call__(self, batch: pa.Table) -> pa.Table:
        """`batch` (its `keep` columns, if given) with the `output` column appended."""
        names = batch.column_names
        for name in (self.reply, self.conversation, *(self.keep or ())):
            if name is not None and name not in names:
                raise ColumnError(f"the batch has no column {name!r} (it has {names})")
        conversations = batch.column(self.conversation) if self.conversation else None
        result = sanitize_arrow(batch.column(self.reply), conversations, policy=self.policy)
        kept = batch if self.keep is None else batch.select(list(self.keep))
        return kept.append_column(self.output, result)
