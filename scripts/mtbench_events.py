#!/usr/bin/env python3
"""Turn MT-Bench-101 conversations into TurnEvent JSON Lines (the input of `skg-monitor score`).

Why: the report benchmark should render real LLM text (long GPT-4 answers with Markdown
lists, code and headings), not only the short hand-written examples. MT-Bench-101 has no
timestamps or references; each `history` entry becomes a user turn and an assistant turn.
Conversations are taken round-robin over the 13 tasks so a small LIMIT still covers them all.

    python scripts/mtbench_events.py ../shared/data/mtbench101/mtbench101.jsonl 100 > turns.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from itertools import zip_longest


def main(path: str, limit: int) -> None:
    by_task: dict[str, list[dict]] = defaultdict(list)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            by_task[record["task"]].append(record)
    picked = [r for group in zip_longest(*by_task.values()) for r in group if r is not None]
    for record in picked[:limit]:
        cid = f"mtbench-{record['task']}-{record['id']}"
        index = 0
        for exchange in record["history"]:
            for role, key in (("user", "user"), ("assistant", "bot")):
                text = (exchange.get(key) or "").strip()[:20_000]
                if not text:
                    continue
                print(json.dumps({"conversation_id": cid, "turn_index": index, "role": role,
                                  "text": text}, ensure_ascii=False))
                index += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100)
