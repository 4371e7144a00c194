def honest_cases(): return []
