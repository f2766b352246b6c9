"""The knowledge graph as the report draws it: entities, facts, contradictions, laid out.

Two sources, one shape. Offline, the graph comes from the certificates' claims (the facts
the monitor proved to conflict, which is what an investigator needs first). Live, the
worker also has the conversation's engine graph, and `graph_from_facts` takes its fact
edges as plain values; the report never imports the engine, so the engine can change
freely as long as a fact still says subject, relation, object, negated, speaker and turn.
The layout is networkx's spring layout with a fixed seed: the same graph is drawn the same
way every time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

from monitor.contracts import Claim, ContradictionCertificate

WIDTH, HEIGHT, MARGIN = 640.0, 380.0, 70.0
MAX_FACTS = 60
LABEL_CHARS = 26


@dataclass(frozen=True)
class FactEdge:
    subject: str
    relation: str
    object: str
    negated: bool
    speaker: str
    turn: int
    conflict: bool = False


@dataclass(frozen=True)
class PlacedNode:
    label: str
    short: str
    x: float
    y: float
    kind: str  # "entity" (a subject) or "value" (only ever an object)
    conflict: bool


@dataclass(frozen=True)
class PlacedEdge:
    path: str  # SVG path: a straight line, or a curve when two nodes share several edges
    lx: float  # where the label goes (the curve's midpoint)
    ly: float
    label: str
    title: str
    kind: str  # "fact", "negated" or "conflict"


def _edge(p1: tuple[float, float], p2: tuple[float, float], bend: float, label: str,
          title: str, kind: str) -> PlacedEdge:
    """A quadratic curve bent `bend` px off the straight line (0: straight)."""
    (x1, y1), (x2, y2) = p1, p2
    dx, dy = x2 - x1, y2 - y1
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    cx = (x1 + x2) / 2 - dy / length * bend * 2
    cy = (y1 + y2) / 2 + dx / length * bend * 2
    path = f"M{x1},{y1} Q{round(cx, 1)},{round(cy, 1)} {x2},{y2}"
    lx = 0.25 * x1 + 0.5 * cx + 0.25 * x2
    ly = 0.25 * y1 + 0.5 * cy + 0.25 * y2
    return PlacedEdge(path, round(lx, 1), round(ly - 4, 1), label, title, kind)


@dataclass
class KnowledgeGraph:
    facts: list[FactEdge] = field(default_factory=list)
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)
    """(object node, object node, detector) of each certificate whose values differ."""
    source: str = "certificates"  # or "engine": the engine graph's facts were merged in

    @property
    def empty(self) -> bool:
        return not self.facts

    def layout(self) -> tuple[list[PlacedNode], list[PlacedEdge], float]:
        """Placed nodes and edges, and the drawing's height (small graphs draw small)."""
        g = nx.Graph()
        subjects = {f.subject for f in self.facts}
        conflicted = {n for a, b, _ in self.conflicts for n in (a, b)}
        conflicted |= {n for f in self.facts if f.conflict for n in (f.subject, f.object)}
        for f in self.facts:
            g.add_edge(f.subject, f.object)
        for a, b, _ in self.conflicts:
            g.add_edge(a, b)
        if not g:
            return [], [], 120.0
        placed, height = _pack(g, conflicted)

        def at(node: str) -> tuple[float, float]:
            return placed[node]

        pairs: dict[frozenset[str], int] = {}
        totals: dict[frozenset[str], int] = {}
        for a, b in [(f.subject, f.object) for f in self.facts] + [
                (a, b) for a, b, _ in self.conflicts]:
            totals[frozenset((a, b))] = totals.get(frozenset((a, b)), 0) + 1

        def bend(a: str, b: str) -> float:
            key = frozenset((a, b))
            k = pairs.get(key, 0)
            pairs[key] = k + 1
            sign = 1.0 if a <= b else -1.0  # same side whichever way the edge points
            return sign * (k - (totals[key] - 1) / 2) * 36.0

        nodes = [PlacedNode(n, _short(n), *at(n), "entity" if n in subjects else "value",
                            n in conflicted) for n in sorted(g.nodes)]
        edges: list[PlacedEdge] = []
        for f in self.facts:
            (x1, y1), (x2, y2) = at(f.subject), at(f.object)
            relation = ("not " if f.negated else "") + f.relation
            kind = ("conflict" if f.conflict else "fact") + (" negated" if f.negated else "")
            edges.append(_edge((x1, y1), (x2, y2), bend(f.subject, f.object), _short(relation),
                               f"{f.subject} {relation} {f.object} "
                               f"({f.speaker}, turn {f.turn})", kind))
        for a, b, detector in self.conflicts:
            edges.append(_edge(at(a), at(b), bend(a, b), detector.replace("_", " "),
                               f"contradiction ({detector}): {a} / {b}", "conflict"))
        return nodes, edges, height


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _node(text: str) -> str:
    return " ".join(text.lower().split()) or "?"


def _fact(claim: Claim, conflict: bool) -> FactEdge:
    obj, relation = claim.object, claim.relation
    if not obj.strip():  # an attribute ("box 1 is empty"): the relation is the value
        obj, relation = relation, "is"
    if claim.quantity is not None and claim.unit and not any(c.isdigit() for c in obj):
        obj = f"{claim.quantity:g} {claim.unit}"
    return FactEdge(_node(claim.subject), relation, _node(obj), claim.negated,
                    claim.speaker, claim.turn_index, conflict)


def graph_from_certificates(certificates: Iterable[ContradictionCertificate]) -> KnowledgeGraph:
    """The claims the certificates quote, each pair joined by a red contradiction edge."""
    return graph_from_facts([], certificates)


def graph_from_facts(facts: Iterable[FactEdge],
                     certificates: Iterable[ContradictionCertificate]) -> KnowledgeGraph:
    """Engine facts (newest kept, bounded) merged with the certificates' claims."""
    facts = list(facts)
    graph = KnowledgeGraph(source="engine" if facts else "certificates")
    seen: dict[tuple[str, str, str, bool, int], int] = {}
    for cert in certificates:
        pair = [_fact(cert.prior, True), _fact(cert.claim, True)]
        for f in pair:
            key = (f.subject, f.relation, f.object, f.negated, f.turn)
            if key not in seen:
                seen[key] = len(graph.facts)
                graph.facts.append(f)
        if pair[0].object != pair[1].object:
            graph.conflicts.append((pair[0].object, pair[1].object, cert.detector))
    rest = sorted(facts, key=lambda f: f.turn)[::-1]
    for f in rest:
        if len(graph.facts) >= MAX_FACTS:
            break
        key = (_node(f.subject), f.relation, _node(f.object), f.negated, f.turn)
        if key not in seen:
            seen[key] = len(graph.facts)
            graph.facts.append(FactEdge(key[0], f.relation, key[2], f.negated, f.speaker,
                                        f.turn))
    return graph


def _pack(g: nx.Graph, first: set[str]) -> tuple[dict[str, tuple[float, float]], float]:
    """Lay out each connected component on its own and shelve them left to right.

    A spring layout of a disconnected graph pushes the components to the corners and
    crushes each into a clump; laying them out separately keeps every one readable. The
    component with a contradiction comes first, then the larger ones.
    """
    parts = sorted(nx.connected_components(g),
                   key=lambda c: (not (c & first), -len(c), min(c)))
    placed: dict[str, tuple[float, float]] = {}
    x = y = 0.0
    shelf = 0.0
    for part in parts:
        n = len(part)
        w = min(WIDTH, 150.0 * n ** 0.5 + (40.0 if n > 1 else 0.0))
        h = min(HEIGHT * 1.2, 95.0 * n ** 0.5) if n > 1 else 60.0
        if x + w > WIDTH and x > 0:
            x, y, shelf = 0.0, y + shelf, 0.0
        sub = g.subgraph(part)
        pos = nx.spring_layout(sub, seed=7, iterations=100) if n > 1 else {
            next(iter(part)): (0.0, 0.0)}
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        span_x = (max(xs) - min(xs)) or 1.0
        span_y = (max(ys) - min(ys)) or 1.0
        pad_x, pad_y = 55.0, 22.0
        for node, (px, py) in pos.items():
            nx_ = x + w / 2 if n == 1 else x + pad_x + (px - min(xs)) / span_x * (w - 2 * pad_x)
            ny_ = y + h / 2 if n == 1 else y + pad_y + (py - min(ys)) / span_y * (h - 2 * pad_y)
            placed[node] = (round(nx_, 1), round(ny_ + 10, 1))
        x += w
        shelf = max(shelf, h)
    width_used = max(px for px, _ in placed.values()) + 60.0
    if width_used < WIDTH:  # centre a narrow drawing
        shift = (WIDTH - width_used) / 2
        placed = {k: (round(px + shift, 1), py) for k, (px, py) in placed.items()}
    return placed, round(y + shelf + 30.0, 1)
