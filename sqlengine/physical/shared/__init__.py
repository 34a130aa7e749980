"""Building blocks several operators share (window assignment, joins of signed multisets,
state logs, ranking). Operators import from here, never from one another
(an import-linter independence contract keeps the operator packages apart)."""
