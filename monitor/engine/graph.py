"""The per-conversation Semantic Knowledge Graph.

A `networkx.MultiDiGraph` whose nodes are canonical entity labels and whose edges are either
*fact* edges (one per extracted claim, with full provenance) or *semantic* edges (a new node
to its most similar older nodes). The graph is the index the detectors use: a new claim is
compared only with the facts hanging off the same subject node, never with all history.

Bounded by construction: at most `max_nodes` nodes and `max_fact_edges` fact edges. When a
cap is exceeded, facts that an identical later fact restates go first, then the oldest
facts; nodes left without facts and not touched recently are evicted after them. Semantic
edges exist only between live nodes and at most `semantic_link_top_k` per new node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt

from monitor.engine.bounds import SENTENCE_CHARS
from monitor.engine.extract import Triple

_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Fact:
    """A fact edge's payload: the triple plus its life cycle in the conversation."""

    subject: str
    relation: str
    object: str
    object_text: str
    negated: bool
    modality: str
    speaker: str
    turn: int
    sentence: str
    predicate: str
    prep: str
    time_scope: str | None
    importance: float
    superseded_at: int | None = None
    quarantined: bool = False
    object_type: str = "concept"
    context: str = ""
    item: int | None = None
    resolved: bool = False
    """The subject was a pronoun ("it is closed"), resolved by a guess."""

    @classmethod
    def from_triple(cls, triple: Triple, subject: str, obj: str) -> Fact:
        return cls(
            subject=subject, relation=triple.relation, object=obj,
            object_text=triple.object_text, negated=triple.negated,
            modality=triple.modality, speaker=triple.speaker, turn=triple.turn_index,
            sentence=triple.sentence[:SENTENCE_CHARS], predicate=triple.predicate, prep=triple.prep,
            time_scope=triple.time_scope, importance=triple.importance,
            object_type=triple.object_type, context=triple.context, item=triple.item,
            resolved=triple.subject_type == "anaphor",
        )


def head_word(label: str) -> str:
    """The noun a label is about, with the symbols that name it: "hotel" for "user hotel",
    "statement (p or q)" for "compound statement (p or q)"."""
    base, bracket, symbols = label.partition(" (")
    words = base.split(" of ")[0].split()
    head = words[-1] if words else ""
    return f"{head} ({symbols}" if head and bracket else head


def may_merge(new: str, old: str) -> bool:
    """Word-boundary guard for merging by similarity.

    Labels must share their head word ("hotel" / "user hotel") and neither may carry a
    number or a named identifier unless both are identical, so "art" never absorbs "heart
    rate", "600 gbp" never absorbs "1,000 gbp", and "statement (p and q)" never absorbs
    "statement (p or q)".
    """
    if _DIGIT.search(new) or _DIGIT.search(old) or "(" in new or "(" in old:
        return False
    return head_word(new) == head_word(old) and head_word(new) != ""


class _Graph(nx.MultiDiGraph):
    """A MultiDiGraph that makes its edge and degree views on each use.

    networkx caches them on the graph, and each holds the graph: a reference cycle, so a
    conversation's dropped graph (an evicted or decoded-again state) waited for a
    whole-heap garbage collection instead of going at once (stop 47: 5,500 such graphs and
    their 116,000 dicts in 6,000 turns over 2,000 conversations). The node view holds no
    graph and stays cached."""

    edges = property(nx.MultiDiGraph.edges.func)
    out_edges = property(nx.MultiDiGraph.out_edges.func)
    in_edges = property(nx.MultiDiGraph.in_edges.func)
    degree = property(nx.MultiDiGraph.degree.func)
    in_degree = property(nx.MultiDiGraph.in_degree.func)
    out_degree = property(nx.MultiDiGraph.out_degree.func)
    adj = property(nx.MultiDiGraph.adj.func)
    succ = property(nx.MultiDiGraph.succ.func)
    pred = property(nx.MultiDiGraph.pred.func)


class ConversationGraph:
    """Nodes, fact edges and semantic edges of one conversation."""

    def __init__(self) -> None:
        self._g: nx.MultiDiGraph = _Graph()
        """Private: callers use the methods below, so the shape can change in one place."""
        self._next_edge = 0

    # --- nodes ----------------------------------------------------------------------
    def labels(self) -> list[str]:
        return list(self._g.nodes)

    def node_count(self) -> int:
        return int(self._g.number_of_nodes())

    def live_labels(self) -> set[str]:
        """Nodes that may anchor later turns (not quarantined by a failed turn)."""
        return {n for n, d in self._g.nodes(data=True) if not d["quarantined"]}

    def is_quarantined(self, label: str) -> bool:
        return bool(self._g.nodes[label]["quarantined"])

    def quarantine(self, label: str) -> None:
        """A failed turn's node: kept for the record, never an anchor again."""
        self._g.nodes[label]["quarantined"] = True

    def importance(self, label: str) -> float:
        return float(self._g.nodes[label]["importance"])

    def resolve(
        self,
        label: str,
        vector: npt.NDArray[np.float32] | None,
        known: list[str],
        known_vectors: npt.NDArray[np.float32] | None,
        threshold: float,
    ) -> str:
        """The node a label belongs to: itself if present, else the most similar mergeable."""
        if label in self._g or vector is None or known_vectors is None or not known:
            return label
        sims = known_vectors @ vector
        for idx in np.argsort(-sims, kind="stable"):
            if sims[idx] < threshold:
                break
            if may_merge(label, known[idx]):
                return known[int(idx)]
        return label

    def touch(self, label: str, kind: str, importance: float, speaker: str, turn: int) -> bool:
        """Create or update a node; True when it is new."""
        if label in self._g:
            data = self._g.nodes[label]
            data["importance"] = max(data["importance"], importance)
            data["last_turn"] = turn
            if speaker not in data["speakers"]:
                data["speakers"] = sorted([*data["speakers"], speaker])
            return False
        self._g.add_node(
            label, type=kind, importance=importance, speakers=[speaker],
            first_turn=turn, last_turn=turn, quarantined=False,
        )
        return True

    # --- edges ----------------------------------------------------------------------
    def add_fact(self, fact: Fact) -> int:
        key = self._next_edge
        self._next_edge += 1
        target = fact.object or fact.subject
        self._g.add_edge(fact.subject, target, key=key, kind="fact", fact=fact)
        return key

    def add_semantic(self, new: str, old: str, weight: float) -> None:
        self._g.add_edge(new, old, key=f"s:{old}", kind="semantic", weight=round(weight, 6))

    def facts_about(self, subject: str) -> list[tuple[int, Fact]]:
        """Facts whose subject is this node, oldest first."""
        if subject not in self._g:
            return []
        found = [
            (k, d["fact"]) for _, _, k, d in self._g.out_edges(subject, keys=True, data=True)
            if d["kind"] == "fact"
        ]
        found.sort(key=lambda kv: kv[0])
        return found

    def replace_fact(self, key: int, fact: Fact) -> None:
        for u, v, k, d in self._g.out_edges(fact.subject, keys=True, data=True):
            if k == key and d["kind"] == "fact":
                self._g.edges[u, v, k]["fact"] = fact
                return

    def supersede_claims(self, turn: int, sentence: str, claim: Callable[[Fact], bool],
                         at: int) -> None:
        """The live facts of one turn's sentence that `claim` picks are out of date from
        turn `at`."""
        for u, v, k, d in list(self._g.edges(keys=True, data=True)):
            fact = d["fact"] if d["kind"] == "fact" else None
            if (fact is not None and fact.turn == turn and fact.sentence == sentence
                    and fact.superseded_at is None and claim(fact)):
                self._g.edges[u, v, k]["fact"] = replace(fact, superseded_at=at)

    def has_fact_link(self, node: str, others: set[str]) -> bool:
        for u, _, d in self._g.in_edges(node, data=True):
            if d["kind"] == "fact" and u in others and not d["fact"].quarantined:
                return True
        for _, v, d in self._g.out_edges(node, data=True):
            if d["kind"] == "fact" and v in others and not d["fact"].quarantined:
                return True
        return False

    def has_semantic_link(self, node: str, others: set[str]) -> bool:
        return any(
            d["kind"] == "semantic" and v in others
            for _, v, d in self._g.out_edges(node, data=True)
        )

    def all_facts(self) -> list[Fact]:
        """Every fact edge's payload, in edge order."""
        return [d["fact"] for *_, d in self._g.edges(data=True) if d["kind"] == "fact"]

    def composed_at(self, turn: int) -> bool:
        """That turn left facts, and all of them are a composed text's (a story, a draft):
        the answer was one."""
        facts = [f for f in self.all_facts() if f.turn == turn]
        return bool(facts) and all(f.modality == "composed" for f in facts)

    def fact_count(self) -> int:
        return sum(1 for *_, d in self._g.edges(data=True) if d["kind"] == "fact")

    # --- bounds ---------------------------------------------------------------------
    def compact(self, max_nodes: int, max_fact_edges: int, keep_turn: int) -> None:
        """Enforce the caps; nodes and facts of `keep_turn` (the current turn) survive."""
        if (self._g.number_of_edges() <= max_fact_edges
                and self._g.number_of_nodes() <= max_nodes):
            return  # O(1) on the common path: all edges together are within the fact cap
        facts = [
            (u, v, k, d["fact"]) for u, v, k, d in self._g.edges(keys=True, data=True)
            if d["kind"] == "fact"
        ]
        excess = len(facts) - max_fact_edges
        if excess > 0:
            latest: dict[tuple[Any, ...], int] = {}
            for _, _, k, f in facts:
                sig = (f.subject, f.relation, f.object, f.negated)
                latest[sig] = max(latest.get(sig, -1), k)
            restated = [
                (u, v, k) for u, v, k, f in facts
                if latest[(f.subject, f.relation, f.object, f.negated)] != k
                and f.turn != keep_turn
            ]
            oldest = sorted(
                ((u, v, k) for u, v, k, f in facts if f.turn != keep_turn),
                key=lambda e: e[2],
            )
            doomed: list[tuple[Any, Any, Any]] = []
            seen: set[Any] = set()
            for edge in [*sorted(restated, key=lambda e: e[2]), *oldest]:
                if len(doomed) >= excess:
                    break
                if edge[2] not in seen:
                    seen.add(edge[2])
                    doomed.append(edge)
            self._g.remove_edges_from(doomed)
        if self._g.number_of_nodes() > max_nodes:
            candidates = sorted(
                (
                    (self._g.degree(n) > 0 and self._has_any_fact(n), d["last_turn"], n)
                    for n, d in self._g.nodes(data=True) if d["last_turn"] != keep_turn
                ),
            )
            drop = self._g.number_of_nodes() - max_nodes
            self._g.remove_nodes_from([n for _, _, n in candidates[:drop]])

    def _has_any_fact(self, node: str) -> bool:
        return any(d["kind"] == "fact" for *_, d in self._g.in_edges(node, data=True)) or any(
            d["kind"] == "fact" for *_, d in self._g.out_edges(node, data=True)
        )

    # --- serialisation ----------------------------------------------------------------
    def to_plain(self) -> dict[str, Any]:
        """Compact plain structure: column lists, sentences stored once."""
        nodes = [
            [n, d["type"], round(d["importance"], 6), d["speakers"], d["first_turn"],
             d["last_turn"], int(d["quarantined"])]
            for n, d in self._g.nodes(data=True)
        ]
        sentences: dict[str, int] = {}
        facts = []
        semantic = []
        for u, v, k, d in self._g.edges(keys=True, data=True):
            if d["kind"] == "fact":
                f: Fact = d["fact"]
                row = list(_fact_values(f))
                row[_SENTENCE] = sentences.setdefault(f.sentence, len(sentences))
                facts.append([k, row])
            else:
                semantic.append([u, v, d["weight"]])
        return {
            "nodes": nodes,
            "facts": facts,
            "semantic": semantic,
            "sentences": list(sentences),
            "next_edge": self._next_edge,
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> ConversationGraph:
        graph = cls()
        for n, kind, imp, speakers, first, last, quarantined in data["nodes"]:
            graph._g.add_node(
                n, type=kind, importance=imp, speakers=list(speakers), first_turn=first,
                last_turn=last, quarantined=bool(quarantined),
            )
        sentences = data["sentences"]
        for key, values in data["facts"]:
            row = dict(zip(_FACT_FIELDS, values, strict=True))
            row["sentence"] = sentences[row["sentence"]]
            fact = Fact(**row)
            graph._g.add_edge(fact.subject, fact.object or fact.subject, key=key, kind="fact",
                             fact=fact)
        for u, v, w in data["semantic"]:
            graph._g.add_edge(u, v, key=f"s:{v}", kind="semantic", weight=w)
        graph._next_edge = data["next_edge"]
        return graph


_FACT_FIELDS = tuple(Fact.__dataclass_fields__)
_SENTENCE = _FACT_FIELDS.index("sentence")
_fact_values = attrgetter(*_FACT_FIELDS)
