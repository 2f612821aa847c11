"""Refresh the `curator` role: a team lead's reading of the questions asked
(`agent.view_question_text`) is granted per user, like the RESTRICTED clearance, never through
the role (`facts.roles.PER_USER`)."""

from django.db import migrations

from facts.migrations._roles import roles_refresh


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0019_dispute_outcomes"),
        ("agent", "0006_question_text_permission"),
        ("documents", "0009_document_issuer_proposed"),
    ]

    operations = [migrations.RunPython(roles_refresh, migrations.RunPython.noop)]
