"""The analyst page: its views and form, and the answer panel they show (`panel`), built once
from the stored `/v1/ask` answer and read by the template, the CSV export and the stream."""
