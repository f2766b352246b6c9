"""The offline runner: builds an engine with its scorers and scores files of turns.

Above `engine` and `quality`, below `stream` and `cli`: the worker and the commands build
their engine here, and every benchmark scores through `offline.score_events`.
"""
