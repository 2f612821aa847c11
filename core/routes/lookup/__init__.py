"""The lookup route: the tool loop, its `query_metric` tool and the offline provider that calls it."""
