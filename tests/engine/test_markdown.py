"""How an answer's Markdown becomes prose units and the headings that scope them."""

from __future__ import annotations

from monitor.engine.markdown import segments


def test_a_bold_line_alone_above_a_list_is_a_heading_not_a_claim() -> None:
    units = segments("Some intro.\n\n**Options for the bar**\n- **BYOB**: guests bring "
                     "their own.\n\n**Keep the ice cold.**\n")
    assert [u.text for u in units] == ["Some intro.", "BYOB: guests bring their own.",
                                       "Keep the ice cold."]  # a sentence stays a claim
    assert units[1].context == "options for the bar"


def test_a_bold_line_under_a_real_heading_leaves_the_heading_in_scope() -> None:
    units = segments("## Oat bars\n\n**Ingredients**\n- 200 g rolled oats\n\n"
                     "## Date bars\n\n**Ingredients**\n- 100 g rolled oats\n")
    assert [(u.text, u.context) for u in units] == [("200 g rolled oats", "oat bars"),
                                                    ("100 g rolled oats", "date bars")]
