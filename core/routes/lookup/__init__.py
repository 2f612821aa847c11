"""The lookup route: the tool loop's `query_metric` tool and the offline provider that calls it."""
