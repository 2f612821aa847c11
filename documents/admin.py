from django.contrib import admin

from .models import Document


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "media_type", "sensitivity", "status", "chunk_count", "error", "uploaded_at"]
    readonly_fields = ["sha256", "media_type", "size_bytes", "status", "error", "uploaded_by", "uploaded_at"]

    @admin.display(description="chunks")
    def chunk_count(self, document: Document) -> int:
        return document.chunks.count()

    list_filter = ["status", "sensitivity"]
    search_fields = ["name"]
