"""Reductions: Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin."""
