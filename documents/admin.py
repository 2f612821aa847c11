from django.contrib import admin

from .models import Document


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "media_type", "sensitivity", "status", "uploaded_at"]
    list_filter = ["status", "sensitivity"]
    search_fields = ["name"]
