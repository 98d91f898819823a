"""The compile report: one self-contained HTML page per compiled function
(`TGC_TRACE=dir`, or `tgc.explain(f).save_html(path)`), the way `tlparse`
serves `TORCH_TRACE`.

Per specialization it shows the traced graph with each op coloured by the
kernel that computes it (matched by the model's source location and module
path, which the compiler keeps through fusion), the guards, the kernels
with their source lines and the launch plan, the arena's buffers over time,
and the compile time by phase; then recompiles, graph breaks and eager
fallbacks with their reasons. No external resources: the page works from a
file or an e-mail attachment.
"""

from __future__ import annotations

import html
import os
import re
from typing import Any, Dict, List, Optional, Tuple

_LOC = re.compile(r'loc\((?:"((?:[^"\\]|\\.)*)"\()?"((?:[^"\\]|\\.)*)":(\d+):\d+\)?\)\s*$')
_PALETTE = ["#8ecae6", "#ffb703", "#90be6d", "#f4a261", "#cdb4db", "#e76f51",
            "#a8dadc", "#f9c74f", "#b5e48c", "#ffafcc", "#bde0fe", "#d4a373"]

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin-top: 28px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.summary { color: #444; margin-bottom: 12px; }
pre { background: #f7f7f7; padding: 8px; overflow-x: auto; font-size: 12px; }
.graph span.op { display: block; white-space: pre; border-left: 6px solid transparent;
  padding-left: 4px; }
.graph span.op.hi { outline: 2px solid #333; }
table { border-collapse: collapse; margin: 4px 0; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
.kernel { cursor: pointer; }
.muted { color: #777; }
ul.reasons li { margin: 2px 0; white-space: pre-wrap; }
"""

# Hovering a kernel highlights its ops in the graph; the page marks itself
# rendered (the headless-browser test reads the mark).
_SCRIPT = """
window.tgcErrors = [];
window.addEventListener('error', function (e) { window.tgcErrors.push(String(e.message)); });
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('.kernel').forEach(function (row) {
    var key = row.getAttribute('data-kernel');
    var ops = document.querySelectorAll('span.op[data-kernel="' + key + '"]');
    row.addEventListener('mouseenter', function () {
      ops.forEach(function (o) { o.classList.add('hi'); });
    });
    row.addEventListener('mouseleave', function () {
      ops.forEach(function (o) { o.classList.remove('hi'); });
    });
  });
  var kernels = document.querySelectorAll('.kernel').length;
  document.body.setAttribute('data-kernels', String(kernels));
  document.body.setAttribute('data-rendered',
                             window.tgcErrors.length ? 'errors' : 'ok');
});
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _unescape(text: str) -> str:
    return text.replace('\\"', '"').replace("\\\\", "\\")


def _source_key(scope: Optional[str], file: str, line: str) -> str:
    return (f"{scope}@" if scope else "") + f"{file}:{line}"


def parse_kernel_map(text: str) -> List[Tuple[str, List[str]]]:
    """(kernel, [source keys]) from the compiler's "kernel K: a|b" lines."""
    out = []
    for line in text.splitlines():
        name, _, sources = line.partition(": ")
        if name:
            out.append((name, [s for s in sources.split("|") if s]))
    return out


def parse_arena(text: str) -> List[Tuple[int, int, int, int]]:
    """(offset, bytes, first, last) per buffer."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4:
            out.append(tuple(int(p) for p in parts))  # type: ignore[arg-type]
    return out


def _graph_html(graph: str, kernels: List[Tuple[str, List[str]]]) -> str:
    owner: Dict[str, int] = {}
    for k, (_, sources) in enumerate(kernels):
        for s in sources:
            owner.setdefault(s, k)
    lines = []
    for line in graph.splitlines():
        m = _LOC.search(line)
        k = None
        if m:
            scope = _unescape(m.group(1)) if m.group(1) is not None else None
            k = owner.get(_source_key(scope, _unescape(m.group(2)), m.group(3)))
        if k is None:
            lines.append(f'<span class="op">{_e(line)}</span>')
        else:
            color = _PALETTE[k % len(_PALETTE)]
            lines.append(f'<span class="op" data-kernel="{k}" style="border-left-color:'
                         f'{color};background:{color}33">{_e(line)}</span>')
    return '<pre class="graph">' + "".join(lines) + "</pre>"


def _step_of_kernel(kernels: List[Tuple[str, List[str]]], steps: List) -> Dict[int, Any]:
    """The plan step of each kernel-map entry: a launch by its kernel's
    name, the i-th `gemm` (`conv`) entry the i-th GEMM (cuDNN convolution)
    step."""
    by_name = {s.name: s for s in steps if s.kind == "launch"}
    library = {kind: [s for s in steps if s.kind == kind] for kind in ("gemm", "conv")}
    out: Dict[int, Any] = {}
    for k, (name, _) in enumerate(kernels):
        if name.startswith("kernel ") and name[7:] in by_name:
            out[k] = by_name[name[7:]]
        elif name in library and library[name]:
            out[k] = library[name].pop(0)
    return out


def _step_cells(step, peak: Optional[float], timed: bool) -> str:
    from ._explain import format_bytes

    if step is None:
        return "<td></td>" * (6 if timed else 3)
    cells = [step.strategy, step.launch,
             "?" if step.bytes is None else format_bytes(step.bytes)]
    if timed:
        ms = step.ms
        gbps = step.gbps
        cells += ["-" if ms is None else (f"{ms * 1e3:.1f} us" if ms < 1 else f"{ms:.3f} ms"),
                  "" if gbps is None else f"{gbps:.0f} GB/s"
                  + (f" ({100 * gbps / peak:.0f}% of peak)" if peak else ""),
                  f"{step.tflops:.3g} TFLOP/s" if step.tflops else ""]
    return "".join(f"<td>{_e(c)}</td>" for c in cells)


def _kernels_html(kernels: List[Tuple[str, List[str]]], steps: List,
                  peak: Optional[float]) -> str:
    if not kernels and not steps:
        return '<p class="muted">No kernel map (a CPU compile keeps it with keep-code; ' \
               'TGC_TRACE sets it).</p>'
    timed = any(s.ms is not None for s in steps)
    head = ["", "kernel"] + (["strategy", "launch", "bytes"] if steps else []) \
        + (["time", "bandwidth", "compute"] if timed else []) + ["computes the ops of"]
    rows = ["<tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>"]
    owner = _step_of_kernel(kernels, steps)
    for k, (name, sources) in enumerate(kernels):
        color = _PALETTE[k % len(_PALETTE)]
        rows.append(f'<tr class="kernel" data-kernel="{k}"><td style="background:{color}">'
                    f"&nbsp;</td><td>{_e(name)}</td>"
                    + (_step_cells(owner.get(k), peak, timed) if steps else "")
                    + "<td>" + "<br>".join(_e(s) for s in sources) + "</td></tr>")
    # Steps no kernel-map entry names: copies, memsets, device-side checks.
    mapped = {id(s) for s in owner.values()}
    for s in steps:
        if id(s) not in mapped:
            rows.append(f"<tr><td></td><td>{_e(s.name)}</td>"
                        + _step_cells(s, peak, timed) + "<td></td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def _phases_svg(phases: List[Tuple[str, float]]) -> str:
    if not phases:
        return ""
    top = max(ms for _, ms in phases) or 1.0
    width, row = 520, 20
    parts = [f'<svg class="phases" width="{width + 260}" height="{row * len(phases) + 4}" '
             'xmlns="http://www.w3.org/2000/svg">']
    for i, (name, ms) in enumerate(phases):
        w = max(1.0, width * ms / top)
        y = i * row + 2
        parts.append(f'<text x="0" y="{y + 14}" font-size="12">{_e(name)}</text>'
                     f'<rect x="150" y="{y}" width="{w:.1f}" height="{row - 4}" '
                     f'fill="{_PALETTE[i % len(_PALETTE)]}"/>'
                     f'<text x="{150 + w + 6:.1f}" y="{y + 14}" font-size="12">'
                     f'{ms:.1f} ms</text>')
    parts.append("</svg>")
    return "".join(parts)


def _arena_svg(buffers: List[Tuple[int, int, int, int]]) -> str:
    if not buffers:
        return '<p class="muted">No intermediate buffers in the arena (or no layout ' \
               'for these sizes).</p>'
    from ._explain import format_bytes

    total = max(o + b for o, b, _, _ in buffers) or 1
    first = min(f for _, _, f, _ in buffers)
    last = max(l for _, _, _, l in buffers) + 1
    width, height, left = 640, 220, 70
    span = max(1, last - first)
    parts = [f'<svg class="arena" width="{width + left + 10}" height="{height + 30}" '
             'xmlns="http://www.w3.org/2000/svg">',
             f'<rect x="{left}" y="0" width="{width}" height="{height}" fill="#fafafa" '
             'stroke="#ccc"/>',
             f'<text x="0" y="12" font-size="11">{_e(format_bytes(total))}</text>',
             f'<text x="0" y="{height}" font-size="11">0</text>',
             f'<text x="{left}" y="{height + 16}" font-size="11">op {first}</text>',
             f'<text x="{left + width - 40}" y="{height + 16}" font-size="11">op {last}</text>']
    for i, (offset, size, f, l) in enumerate(buffers):
        x = left + width * (f - first) / span
        w = max(2.0, width * (l + 1 - f) / span)
        y = height - height * (offset + size) / total
        h = max(1.0, height * size / total)
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                     f'fill="{_PALETTE[i % len(_PALETTE)]}" stroke="#555" stroke-width="0.5">'
                     f'<title>buffer {i}: {_e(format_bytes(size))} at offset {offset}, '
                     f'ops {f}-{l}</title></rect>')
    parts.append("</svg>")
    return "".join(parts)


def _list(title: str, items: List[str]) -> str:
    if not items:
        return ""
    return f"<h2>{_e(title)}</h2><ul class=\"reasons\">" + \
        "".join(f"<li>{_e(i)}</li>" for i in items) + "</ul>"


def render(expl) -> str:
    """The page for an Explanation (tgc._explain)."""
    body = [f"<h1>{_e(expl.name or 'compiled function')}</h1>",
            f'<div class="summary">{_e(expl.summary())}</div>']
    body.append(_list("Eager fallbacks", expl.fallback_reasons))
    body.append(_list("Recompiles", expl.recompile_reasons))
    body.append(_list("Graph breaks", [str(b) for b in expl.graph_breaks]))
    body.append(_list("Training", expl.training))
    for s in expl.specializations:
        kernels = parse_kernel_map(s.kernel_map)
        body.append(f"<h2>Specialization {s.index} ({_e(s.device)})</h2>")
        body.append(f'<div class="summary">{_e(s.headline())}</div>')
        body.append("<h3>Compile time by phase</h3>" + _phases_svg(s.phases))
        body.append("<h3>Graph</h3><p class=\"muted\">Ops coloured by the kernel that "
                    "computes them (hover a kernel below).</p>" + _graph_html(s.graph, kernels))
        peak = next((p.peak_gbps for p in s.profiles if p.peak_gbps), None)
        rows = s.kernel_rows()
        timed = any(r.ms is not None for r in rows)
        note = ("Times from the last <code>tgc.profile</code>: each kernel alone; bandwidth "
                "is the bytes it reads and writes (each buffer once) over its time."
                if timed else "Launches and bytes for the first call's sizes; "
                "<code>tgc.profile</code> adds times and bandwidth." if rows else "")
        calls = [f"{p.call_ms * 1e3:.1f} us" if (p.call_ms or 0) < 1 else f"{p.call_ms:.3f} ms"
                 for p in s.profiles if p.call_ms is not None]
        if calls:
            note += " A call: " + " + ".join(calls) + "."
        body.append("<h3>Kernels</h3>" + (f'<p class="muted">{note}</p>' if note else "")
                    + _kernels_html(kernels, rows, peak))
        if s.code:
            body.append("<details><summary>Launch plan / loops</summary><pre>"
                        + _e(s.code) + "</pre></details>")
        body.append("<h3>Arena: buffers over time</h3>" + _arena_svg(parse_arena(s.arena_layout)))
        body.append("<h3>Guards</h3><ul>" + "".join(f"<li>{_e(g)}</li>" for g in s.guard_summary)
                    + "</ul><details><summary>All guards</summary><ul>"
                    + "".join(f"<li>{_e(g)}</li>" for g in s.guards) + "</ul></details>")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
            f"<title>TGC report: {_e(expl.name)}</title><style>{_CSS}</style>"
            f"<script>{_SCRIPT}</script></head><body>" + "".join(body) + "</body></html>")


def write(expl, path: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(render(expl))
    os.replace(tmp, path)  # readers never see half a page
    return path


def write_trace(expl, folder: str) -> str:
    """TGC_TRACE: `folder/<function>.html`, rewritten after every compile."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", expl.name or "function")
    return write(expl, os.path.join(folder, f"{name}.html"))
