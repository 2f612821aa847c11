import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragspine_site.settings.base")
application = get_wsgi_application()

# The first question of this worker should not wait for dictionaries and indexes to load.
from agent.warmup import process_warm_in_background  # noqa: E402

process_warm_in_background()
