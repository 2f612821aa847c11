"""The narrative route's checks: what a retrieved passage is about, and that every figure it states is grounded."""
