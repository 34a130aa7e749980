"""A relation being bound: its plan node and how its columns are named in the query."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from sqlengine.binder.expressions import Scope, ScopeColumn
from sqlengine.plan import nodes as P


@dataclass
class Relation:
    node: P.Node
    qualifiers: list[Optional[str]]  # per output column
    hidden: set[int] = field(default_factory=set)  # not in `*` nor found unqualified (USING)

    def scope(self, source: str) -> Scope:
        return Scope([ScopeColumn(q, f.name, f.type, i, i in self.hidden)
                      for i, (q, f) in enumerate(zip(self.qualifiers, self.node.schema))], source)


def dedupe(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if n in seen:
            seen[n] += 1
            out.append(f"{n}{seen[n] - 1}")
        else:
            seen[n] = 0
            out.append(n)
    return out
