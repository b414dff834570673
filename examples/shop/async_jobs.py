"""An async service enqueueing with taskiq and arq (our own example code)."""

from taskiq_redis import ListQueueBroker

broker = ListQueueBroker("redis://localhost:6379")


@broker.task
async def index_document(document_id: int) -> None:
    print(f"indexing {document_id}")


async def on_upload(document_id: int) -> None:
    index_document.kiq(document_id)  # JL105: never awaited, nothing is sent
    await index_document.kiq(document_id)


async def on_delete(ctx: dict, document_id: int) -> None:
    await ctx["redis"].enqueue_job("purge_document", document_id)
