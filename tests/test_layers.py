"""One-way layers: every import in `monitor/` (inside functions too) points down or sideways,
and no set of modules imports itself round in a circle.

    contracts <- engine <- quality <- runner <- stream <- bench <- cli

`contracts` is the bottom: the messages, the config, input decoding and formats.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "monitor"
LAYERS = ("contracts", "engine", "quality", "runner", "stream", "bench", "cli")
PREFIXES = {
    "monitor.engine": "engine",
    "monitor.quality": "quality",
    "monitor.runner": "runner",
    "monitor.report": "runner",
    "monitor.client": "stream",
    "monitor.kafka": "stream",
    "monitor.stream": "stream",
    "monitor.bench": "bench",
    "monitor.cli": "cli",
}
QUALITY_MAY_USE = {"monitor.engine.protocols", "monitor.engine.claims"}
"""All `quality` sees of the engine: its protocols and its claim helpers."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> str:
    for prefix, name in PREFIXES.items():
        if module == prefix or module.startswith(prefix + "."):
            return name
    return "contracts"


def _typing_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under `if TYPE_CHECKING:` (annotations only, never run)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return found


def imports(module: str, *, run_time: bool = False) -> Iterator[tuple[str, int]]:
    """(imported monitor module, line) for every import statement anywhere in `module`
    (with `run_time`, leaving out those under `if TYPE_CHECKING:`).

    `from a import b` names the submodule `a.b` when there is one, else the package `a`;
    a module's own parent packages are not counted (Python imports them first anyway)."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _typing_only(tree) if run_time else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:
                    yield sub, node.lineno
                elif base in MODULES:
                    yield base, node.lineno


GRAPH = {m: sorted({target for target, _ in imports(m, run_time=True)} - {m}) for m in MODULES}
"""What each module imports when it runs (the cycle test's graph)."""


def test_every_import_points_down_or_sideways() -> None:
    upward = []
    for module in MODULES:
        for target, line in imports(module):
            if LAYERS.index(layer(target)) > LAYERS.index(layer(module)):
                upward.append(f"{module}:{line} ({layer(module)}) imports {target} "
                              f"({layer(target)})")
    assert not upward, "\n".join(upward)


def test_no_import_cycles() -> None:
    """Tarjan's strongly connected components of the run-time graph: every one must be a
    single module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in GRAPH[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(GRAPH)))
    for module in GRAPH:
        if module not in index:
            visit(module)
    assert not cycles, cycles


def test_engine_modules_import_each_other_by_module() -> None:
    """`from monitor.engine.graph import Fact`, never a name from the package itself: the
    package's lazy names are for callers outside the engine."""
    offenders = [f"{m}:{line}" for m in MODULES if layer(m) == "engine"
                 for target, line in imports(m) if target == "monitor.engine"]
    assert not offenders, offenders


def test_quality_sees_only_the_engine_protocols() -> None:
    offenders = [f"{m}:{line} imports {target}" for m in MODULES if layer(m) == "quality"
                 for target, line in imports(m)
                 if layer(target) == "engine" and target not in QUALITY_MAY_USE]
    assert not offenders, offenders


def test_the_engine_reads_no_environment() -> None:
    """SKG_EMBEDDER, SKG_CACHE_DIR and the like are read in the shell and passed in; the
    only `os.environ` use left in the engine sets third-party libraries' offline defaults."""
    reads = []
    for module, path in MODULES.items():
        if layer(module) != "engine":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        setdefaults = {id(n.value) for n in ast.walk(tree)
                       if isinstance(n, ast.Attribute) and n.attr == "setdefault"}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"}
                    and id(node) not in setdefaults):
                reads.append(f"{module}:{node.lineno}")
    assert not reads, reads


def test_the_client_library_does_not_import_the_worker() -> None:
    seen, todo = set(), ["monitor.client"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(GRAPH[module])
    assert not sorted(m for m in seen if m.startswith("monitor.stream"))
    result = subprocess.run(
        [sys.executable, "-c", "import sys, monitor.client; print(sorted(m for m in sys.modules"
         " if m.split('.')[0] == 'faust' or m.startswith('monitor.stream')))"],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_light_commands_load_neither_torch_nor_spacy(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from monitor.cli import app\n"
        "runner = CliRunner()\n"
        f"assert runner.invoke(app, ['schemas', '--out', {str(tmp_path)!r}]).exit_code == 0\n"
        "assert runner.invoke(app, ['score', '--help']).exit_code == 0\n"
        "import monitor.engine\n"
        "print(sorted(m for m in ('torch', 'spacy', 'transformers', 'scipy', 'networkx',"
        " 'monitor.engine.pipeline') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    assert list(tmp_path.glob("*.schema.json"))


def test_scoring_loads_neither_torch_nor_transformers(tmp_path: Path) -> None:
    """`score` needs spaCy, onnxruntime and `tokenizers`, not torch (thinc would import it
    with spaCy), transformers (the tokenizer), scipy.stats (the trend quantile) or spaCy's
    command line (`spacy.cli`: requests for `download`, weasel for the others)."""
    turns = tmp_path / "turns.jsonl"
    turns.write_text(
        '{"conversation_id": "c", "turn_index": 0, "role": "user", "text": "Hi, 2 people."}\n'
        '{"conversation_id": "c", "turn_index": 1, "role": "assistant", "text": "For 2."}\n',
        encoding="utf-8")
    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from monitor.cli import app\n"
        f"result = CliRunner().invoke(app, ['score', {str(turns)!r}])\n"
        "assert result.exit_code == 0, result.output\n"
        "assert 'spacy' in sys.modules\n"
        "print(sorted(m for m in ('torch', 'transformers', 'scipy.stats', 'spacy.cli',"
        " 'requests', 'weasel') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
