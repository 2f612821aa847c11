"""Chunks of documents: the narrative channel's unit of retrieval and citation."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.db import models
from django.utils.translation import gettext_lazy

from core.model.facts import SENSITIVITIES


class EmbeddingField(models.Field):  # type: ignore[type-arg]
    """A float vector: pgvector `vector` on PostgreSQL, float32 bytes on SQLite."""

    description = "Embedding vector"

    def db_type(self, connection: Any) -> str:
        return "vector" if connection.vendor == "postgresql" else "blob"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> list[float] | None:
        if value is None:
            return None
        if isinstance(value, (bytes, memoryview)):
            return np.frombuffer(bytes(value), dtype=np.float32).tolist()
        if isinstance(value, str):
            return [float(x) for x in value.strip("[]").split(",") if x]
        return [float(x) for x in value]

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if value is None:
            return None
        vector = np.asarray(value, dtype=np.float32)
        if connection.vendor == "postgresql":
            return "[" + ",".join(repr(float(x)) for x in vector) + "]"
        return vector.tobytes()


class Chunk(models.Model):
    document = models.ForeignKey("documents.Document", on_delete=models.CASCADE, related_name="chunks")
    seq = models.PositiveIntegerField()
    text = models.TextField()
    locator = models.CharField(max_length=255)
    heading = models.CharField(max_length=255, blank=True)
    sensitivity = models.CharField(max_length=12, choices=[(s, s) for s in SENSITIVITIES], default="INTERNAL")
    tokens = models.TextField(help_text=gettext_lazy("Retrieval tokens, space-separated, stored at ingestion."))
    embedding = EmbeddingField(null=True, blank=True)
    embedder = models.CharField(
        max_length=120,
        blank=True,
        default="",
        help_text=gettext_lazy("Signature of the embedder the vector was made with."),
    )
    active = models.BooleanField(default=True)

    class Meta:
        verbose_name = gettext_lazy("chunk")
        verbose_name_plural = gettext_lazy("chunks")
        ordering = ["document_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["document", "seq"], name="chunk_document_seq")]
        indexes = [models.Index(fields=["active", "sensitivity"], name="chunk_active_sensitivity")]

    def __str__(self) -> str:
        return f"{self.document_id}:{self.seq} {self.locator}"


class RetrievalState(models.Model):
    """Version stamps: `version`/`token` of the chunk set (bumped on every change, so each process
    rebuilds its lexical index) and `vectors` of the stored embeddings (bumped by each batch the
    background embedding writes, so only the vector index reloads)."""

    version = models.PositiveBigIntegerField(default=0)
    token = models.CharField(max_length=32, default="")
    vectors = models.PositiveBigIntegerField(default=0)
