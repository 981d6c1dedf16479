#!/usr/bin/env python3
"""bench/report.py: merges the JSON-lines rows of bench.cu and bench_torch.py
into OUT/results.json and writes OUT/RESULTS.md and OUT/results.png.

Usage: python3 bench/report.py OUT_DIR ROWS.jsonl [ROWS.jsonl ...]

Every row's pct_of_copy is recomputed against one ceiling: the cudaMemcpyAsync
device-to-device copy bench.cu measured first in the same run (torch's own
copy is shown beside it as a cross-check). Standard library only; the plot
needs matplotlib and is skipped without it."""
import datetime
import json
import os
import statistics
import sys

IMPL_ORDER = ["gpumat", "bytes", "naive", "npp", "torch eager", "torch.compile"]
CV_CUDA_NOTE = ("CV-CUDA: not run. Its wheel is 128 MB, more than what can be carried to the GPU "
                "machine (64 MiB per call), and the machine cannot download it.")


def load(paths):
    """All rows of the files that exist; bad lines (a crash mid-write) are skipped and counted."""
    rows, problems = [], []
    for path in paths:
        if not os.path.exists(path):
            problems.append(f"{path}: missing (that part of the benchmark did not run)")
            continue
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except ValueError:
                        problems.append(f"{path}:{n}: unreadable row skipped")
    return rows, problems


def ceiling(rows):
    """The copy row the percentages refer to: bench.cu's first cudaMemcpyAsync."""
    copies = [r for r in rows if r.get("section") == "copy" and r.get("gbps")]
    for pick in (lambda r: r["impl"] == "cudaMemcpyAsync" and r.get("when") == "start",
                 lambda r: r["impl"] == "cudaMemcpyAsync", lambda r: True):
        found = [r for r in copies if pick(r)]
        if found:
            return found[0]
    return None


def fmt(v, digits=1):
    return "—" if v is None else f"{v:,.{digits}f}"


def fmt_us(v):
    return "—" if v is None else f"{v:.2f}" if v < 100 else f"{v:,.1f}"


def table(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return out + [""]


def rank(impl):
    return (IMPL_ORDER.index(impl) if impl in IMPL_ORDER else len(IMPL_ORDER), impl)


def ordered(values, order=IMPL_ORDER):
    return sorted(set(values), key=lambda v: (order.index(v) if v in order else len(order), v))


def op_groups(rows):
    """{(op, size): [rows]} in run order, for section "op"."""
    groups = {}
    for r in rows:
        if r.get("section") == "op":
            groups.setdefault((r["op"], r["size"]), []).append(r)
    return groups


def op_sections(groups):
    md = ["## Operations", "",
          "One table per op and size. *vs best other*: this implementation's time over the fastest *other* "
          "implementation's (below 1: faster than all of them). Latency: events around one call, median of 50.", ""]
    summary = {}
    for (op, size), group in groups.items():
        timed = [r for r in group if r.get("us")]
        lines = []
        for r in sorted(group, key=lambda r: rank(r["impl"])):
            others = [o["us"] for o in timed if o is not r and o["impl"] != r["impl"]]
            ratio = r["us"] / min(others) if r.get("us") and others else None
            lines.append([r["impl"], fmt_us(r.get("us")), fmt(r.get("gbps"), 0), fmt(r.get("pct_of_copy")),
                          fmt(ratio, 2), fmt_us(r.get("latency_us")), r.get("note", "")])
            summary.setdefault((op, size), {})[r["impl"]] = r.get("pct_of_copy")
        md += [f"### {op}, {size}", ""]
        md += table(["impl", "us", "GB/s", "% of copy", "vs best other", "latency us", "note"], lines)
    return md, summary


def summary_section(summary):
    impls = ordered([i for s in summary.values() for i in s], IMPL_ORDER)
    lines = [[op, size] + [fmt(s.get(i)) for i in impls] for (op, size), s in summary.items()]
    return ["## Summary: % of the copy ceiling (higher is better)", ""] + table(["op", "size"] + impls, lines)


def sweep_section(rows):
    sweep = [r for r in rows if r.get("section") == "sweep"]
    if not sweep:
        return ["## gm_transform sweep", "", "Not run (no sweep rows).", ""]
    ok = [r for r in sweep if r.get("pct_of_copy") is not None]
    dtypes = []
    for r in sweep:
        for d in (r.get("src"), r.get("dst")):
            if d not in dtypes:
                dtypes.append(d)

    def cell(pcts):
        return f"{min(pcts):.0f}/{statistics.median(pcts):.0f}" if pcts else "—"

    md = ["## gm_transform sweep, 3840x2160, identity xform", "",
          f"{len(ok)} of {len(sweep)} configurations timed (throughput only). Cells: min/median % of copy "
          "over channels 1-4 x the 4 layout pairs; rows source dtype, columns destination dtype.", ""]
    grid = [[s] + [cell([r["pct_of_copy"] for r in ok if r["src"] == s and r["dst"] == d]) for d in dtypes]
            for s in dtypes]
    md += table(["src \\ dst"] + dtypes, grid)
    layouts = ordered([r["layout"] for r in sweep], ["hwc->hwc", "hwc->chw", "chw->hwc", "chw->chw"])
    channels = sorted({r["channels"] for r in sweep})
    md += ["Min/median % of copy over the 81 dtype pairs, by layout pair and channels:", ""]
    md += table(["layout"] + [f"c{c}" for c in channels],
                [[lay] + [cell([r["pct_of_copy"] for r in ok if r["layout"] == lay and r["channels"] == c])
                          for c in channels] for lay in layouts])
    worst = sorted(ok, key=lambda r: r["pct_of_copy"])[:10]
    md += ["Slowest 10 configurations:", ""]
    md += table(["src", "dst", "channels", "layout", "us", "% of copy"],
                [[r["src"], r["dst"], r["channels"], r["layout"], fmt_us(r["us"]), fmt(r["pct_of_copy"])]
                 for r in worst])
    return md


def host_section(rows):
    host = {r["impl"]: r.get("us") for r in rows if r.get("section") == "host"}
    md = ["## Host overhead per call (kernel cached, 8x8 image, 10000 calls)", ""]
    if not host:
        return md + ["Not run.", ""]
    md += table(["what", "host us per call"], [[k, fmt(v, 3)] for k, v in host.items()])
    a, b = host.get("gm_convert"), host.get("bare launch")
    if a is not None and b is not None:
        md += [f"gpumat adds {a - b:.3f} us per call ({a / b:.2f}x) over a bare launch of the same kernel with "
               "the same geometry and launch call.", ""]
    return md


def resize_section(rows):
    res = sorted((r for r in rows if r.get("section") == "resize"), key=lambda r: (r["op"], r["size"]))
    md = ["## gm_resize (3 channels, throughput; bytes = source rows read + destination written)", ""]
    if not res:
        return md + ["Not run.", ""]
    return md + table(["op", "size", "impl", "kernel", "us", "% of copy", "latency us", "note"],
                      [[r["op"], r["size"], r["impl"], r.get("kernel", ""), fmt(r.get("us"), 2),
                        fmt(r.get("pct_of_copy"), 1), fmt(r.get("latency_us"), 2), r.get("note", "")] for r in res])


def prep_section(rows):
    res = sorted((r for r in rows if r.get("section") == "preprocess"), key=lambda r: (r["op"], r["size"]))
    md = ["## gm_preprocess (u8 BGR frames to RGB NCHW, throughput; bytes = the crops' source rows read + "
          "destination written)", ""]
    if not res:
        return md + ["Not run.", ""]
    return md + table(["op", "size", "impl", "us per call", "us per item", "% of copy", "latency us", "note"],
                      [[r["op"], r["size"], r["impl"], fmt(r.get("us"), 2),
                        fmt(r["us"] / int(r["size"].split(" ")[0]), 2) if r.get("us") else "",
                        fmt(r.get("pct_of_copy"), 1), fmt(r.get("latency_us"), 2), r.get("note", "")] for r in res])


def yuv_section(rows):
    res = [r for r in rows if r.get("section") == "yuv"]
    md = ["## gm_yuv_convert and gm_yuv_from_image (NV12 frames with NVDEC's pitch and coded height, to and from "
          "u8 images; bytes = the planes' pixels + the image's, each read or written once)", ""]
    if not res:
        return md + ["Not run.", ""]
    return md + table(["op", "size", "impl", "us", "% of copy", "latency us", "note"],
                      [[r["op"], r["size"], r["impl"], fmt(r.get("us"), 2), fmt(r.get("pct_of_copy"), 1),
                        fmt(r.get("latency_us"), 2), r.get("note", "")] for r in res])


def nvrtc_section(rows):
    comp = [r for r in rows if r.get("section") == "nvrtc"]
    timed = [r for r in comp if r.get("us")]
    md = ["## NVRTC cold compile per specialization (gm_kernel_compile, sm_90)", ""]
    if not timed:
        return md + ["Not run.", ""]
    first = [r for r in timed if r.get("first")]
    rest = [r["us"] / 1e3 for r in timed if not r.get("first")]
    lines = []
    if first:
        lines.append([f"first call in the process ({first[0]['kernel']}, loads NVRTC)", fmt(first[0]["us"] / 1e3)])
    if rest:
        lines += [[f"median of the other {len(rest)}", fmt(statistics.median(rest))],
                  ["min / max of those", f"{min(rest):.1f} / {max(rest):.1f}"]]
    return md + table(["compile", "ms"], lines)


JIT_BARS = {"jit_cold": 60000.0, "jit_disk_cache": 2000.0, "jit_aot": 1000.0}


def jit_section(rows):
    jit = [r for r in rows if r.get("section") == "jit"]
    md = ["## JIT first call per specialization (bench/bench_jit.c, `make bench-jit`)", ""]
    if not jit:
        return md + ["Not run.", ""]
    lines = []
    for r in jit:
        bar = JIT_BARS.get(r["op"])
        lines.append([r["op"], fmt(r["us"] / 1e3, 3), r.get("note", ""),
                      "" if bar is None else f"<= {bar / 1e3:g} ms: {'yes' if r['us'] <= bar else 'NO'}"])
    return md + table(["what", "ms", "note", "bar"], lines)


def not_run_section(rows, problems, plot_note):
    lines = [CV_CUDA_NOTE]
    for r in rows:
        note = r.get("note") or ""
        if note.startswith("not run") or note.lower().startswith("error") or "MISMATCH" in note:
            lines.append(f"{r.get('op')} {r.get('size')} {r.get('impl')}: {note}")
    lines += problems + ([plot_note] if plot_note else [])
    return ["## Not run, failed or mismatched", ""] + [f"- {line}" for line in lines] + [""]


def plot(groups, path, device):
    """Grouped bars, one panel per op: % of copy per implementation at each size. None or why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return f"results.png: not drawn ({e})"
    ops = list(dict.fromkeys(op for op, _ in groups))
    impls = ordered([r["impl"] for g in groups.values() for r in g], IMPL_ORDER)
    fig, axes = plt.subplots(len(ops), 1, figsize=(11, 2.8 * len(ops)), squeeze=False)
    width = 0.8 / max(len(impls), 1)
    for ax, op in zip(axes[:, 0], ops):
        sizes = [size for o, size in groups if o == op]
        for k, impl in enumerate(impls):
            vals = [next((r.get("pct_of_copy") or 0 for r in groups[(op, s)] if r["impl"] == impl), 0) for s in sizes]
            ax.bar([i + (k - (len(impls) - 1) / 2) * width for i in range(len(sizes))], vals, width, label=impl)
        ax.axhline(100, color="black", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels(sizes)
        ax.set_ylabel("% of D2D copy")
        ax.set_title(op)
    axes[0, 0].legend(ncol=len(impls), fontsize=8, loc="upper left")
    fig.suptitle(f"% of the device-to-device copy ceiling, {device}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: report.py OUT_DIR ROWS.jsonl [ROWS.jsonl ...]")
    out = sys.argv[1]
    rows, problems = load(sys.argv[2:])
    ref = ceiling(rows)
    for r in rows:
        r["pct_of_copy"] = 100.0 * r["gbps"] / ref["gbps"] if ref and r.get("gbps") else None
    device = next((r["device"] for r in rows if r.get("device")), "unknown device")
    groups = op_groups(rows)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    plot_note = plot(groups, os.path.join(out, "results.png"), device) if groups else "results.png: no op rows to plot"

    md = ["# gpumat benchmark results", "",
          f"Device: **{device}**. Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC. "
          "Produced by `make bench` (bench/bench.cu, bench/bench_torch.py, bench/report.py).", "",
          "Throughput, as a video pipeline runs: 200 back-to-back calls over 6 rotating input/output sets, CUDA "
          "events around the whole loop, time / 200. Latency: events around one call, median of 50. Random data, "
          "after warm-up. Bytes = bytes read + bytes written, each input read once and each output written once; "
          "% of copy = (bytes / time) / the copy bandwidth below. At 320x240 all six sets fit in L2, so that "
          "size shows launch cost and cache, not DRAM, and can exceed 100%.", ""]
    copy_lines = [[r["impl"] + (f" ({r['when']})" if r.get("when") else ""), fmt_us(r.get("us")),
                   fmt(r.get("gbps"), 0), r.get("note", "")] for r in rows if r.get("section") == "copy"]
    md += ["## Copy ceiling (256 MiB device-to-device, bytes read + written)", ""]
    md += table(["copy", "us", "GB/s", "note"], copy_lines) if copy_lines else ["Not measured.", ""]
    if ref:
        md += [f"Ceiling used for every % below: **{ref['gbps']:,.0f} GB/s** ({ref['impl']}).", ""]
    op_md, summary = op_sections(groups)
    md += summary_section(summary) + op_md + sweep_section(rows) + host_section(rows) + resize_section(rows) + prep_section(rows)
    md += yuv_section(rows)
    md += nvrtc_section(rows)
    md += jit_section(rows)
    md += not_run_section(rows, problems, plot_note)
    if not plot_note:
        md += ["![% of copy per implementation](results.png)", ""]
    with open(os.path.join(out, "RESULTS.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(summary_section(summary)))
    print(f"wrote {out}/results.json, {out}/RESULTS.md" + ("" if plot_note else f", {out}/results.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
