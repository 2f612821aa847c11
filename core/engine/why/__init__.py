"""A quantitative why: a figure's change split over the parts the fact table holds for it.

Takes a `FactLookup` (read with the user's clearance), the figure asked about, the period it is
compared with and the parts to split over (its channels, its subsidiaries, its quarters);
returns a `Decomposition`, or None when fewer than two parts have a figure in both periods.

- **An amount** (revenue, profit): each part's change `part[now] − part[before]` and its share
  of the whole's change, largest movers first. The rows sum exactly to the whole's change: what
  no part holds (the parts do not add up to the whole, a part has a figure in one period only)
  is its own row, `unallocated`, never spread over the parts.
- **A ratio** (a margin `N ÷ D`): each part's rate effect `w₀ × (r₁ − r₀)` and mix effect
  `r₁ × (w₁ − w₀)`, where `r` is the part's ratio and `w` its share of the parts' `D`. The
  effects sum to the change of the parts' pooled ratio `ΣN ÷ ΣD` (an identity); where the
  whole's own ratio moved otherwise, the difference is again a row of its own.

Every number is a `Computed` over the facts it lists, so it re-evaluates from its formula
(`computed_reevaluate`). Only facts the lookup returns are read: a part the user may not see
does not exist here, so it changes nothing the user is shown (the caller says the parts are
those it may see). A long list of parts is cut after `shown` rows; the rest is one row,
computed as the whole's change less the rows shown, so its lineage stays short.

`decomposition` holds what a why returns, `amount` and `ratio` the two splits, `numbers` how
each of their numbers is built over the facts it lists, and `words` what each is called.
"""
