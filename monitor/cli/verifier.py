"""`skg-monitor verifier ...`: ask the shipped contradiction verifier directly.

A disputed page can be examined in a second: `verifier check "A" "B"` prints what the
verifier says of A -> B and of B -> A, and the mean P(contradiction) the engine uses.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

app = typer.Typer(no_args_is_help=True, help="The trained contradiction verifier.")


@app.command("check")
def check(
    first: Annotated[str, typer.Argument(help="the earlier sentence (premise)")],
    second: Annotated[str, typer.Argument(help="the later sentence (hypothesis)")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object")] = False,
) -> None:
    """Both orders' probabilities for one pair of sentences."""
    from monitor.engine.verifier import default_verifier, verdicts

    verifier = default_verifier()
    (verdict,) = verdicts(verifier, [(first, second)])
    out = {
        "model": verifier.model_id,
        "forward": vars(verdict.forward),
        "backward": vars(verdict.backward),
        "contradiction": round(verdict.contradiction, 6),
        "entailment": round(verdict.entailment, 6),
    }
    if as_json:
        typer.echo(json.dumps(out, sort_keys=True))
        return
    typer.echo(f"model {out['model']}")
    for name, j in (("A -> B", verdict.forward), ("B -> A", verdict.backward)):
        typer.echo(f"{name}: entailment {j.entailment:.3f}  neutral {j.neutral:.3f}  "
                   f"contradiction {j.contradiction:.3f}")
    typer.echo(f"P(contradiction), mean of both orders: {verdict.contradiction:.3f}; "
               f"P(entailment), larger order: {verdict.entailment:.3f}")


@app.command("card")
def card() -> None:
    """The shipped model's card (sources, settings, dev figures, sha256)."""
    from monitor.engine.verifier import model_card

    typer.echo(json.dumps(model_card(), indent=1, sort_keys=True))
