#!/usr/bin/env bash
# Reproduces the tables and plot of docs/simulation.md: seed 000's claims against what the
# simulator measures, for each relay policy and dialect, over several seeds.
#
#   swift build -c release --scratch-path .build-sim --product meshconform
#   docs/simulation/claims.sh .build-sim/release/meshconform > docs/simulation/claims.md
#
# Every run is `meshconform sim --json`; the aggregation below only adds up its counters, so
# each number can be checked against one run by hand. Needs python3 (standard library only).
set -euo pipefail
bin=${1:?usage: docs/simulation/claims.sh PATH/TO/meshconform}
here=$(cd "$(dirname "$0")" && pwd)
seeds=${SEEDS:-$(seq -s ' ' 1 10)}
nodes=${NODES:-5,10,15,20,30,50,100}
losses=${LOSSES:-0,0.1,0.2,0.3}
out=$(mktemp -d -t meshconform-claims.XXXXXX)
trap 'rm -rf "$out"' EXIT

for dialect in relay blemesh; do
  for policy in probabilistic dialect flood; do
    for seed in $seeds; do
      "$bin" sim --dialect "$dialect" --topology geometric --messages 20 --policy "$policy" --seed "$seed" \
        --settle 2 --sweep nodes="$nodes" --json >> "$out/nodes-$dialect-$policy.json"
      "$bin" sim --dialect "$dialect" --topology geometric --nodes 20 --messages 20 --policy "$policy" --seed "$seed" \
        --settle 2 --sweep loss="$losses" --json >> "$out/loss-$dialect-$policy.json"
    done
  done
done

python3 - "$out" "$here/delivery-vs-nodes.svg" <<'PY'
import json, sys, glob, os, re
out, svg_path = sys.argv[1], sys.argv[2]
dialects, policies = ["relay", "blemesh"], ["probabilistic", "dialect", "flood"]

def load(kind, dialect, policy):
    text = open(os.path.join(out, f"{kind}-{dialect}-{policy}.json")).read()
    runs, decoder, i = [], json.JSONDecoder(), 0
    while i < len(text):                       # one JSON array per seed, concatenated
        if text[i].isspace(): i += 1; continue
        value, i = decoder.raw_decode(text, i)
        runs += value
    return runs

def key_of(kind, run):
    if kind == "nodes": return run["nodes"]
    return float(re.search(r"loss=([0-9.]+)", run["label"]).group(1))

def pooled(runs):
    s = lambda k: sum(r[k] for r in runs)
    sent = s("messages") - s("messagesNotSent")
    return {
        "seeds": len(runs),
        "degree": sum(r["averageDegree"] for r in runs) / len(runs),
        "delivery": s("delivered") / max(1, s("expectedDeliveries")),
        "reachable": s("reachableDelivered") / max(1, s("reachableDeliveries")),
        "connected": s("reachableDeliveries") / max(1, s("expectedDeliveries")),
        "duplicates": s("duplicateCopies") / max(1, s("copiesReceived")),
        "executed": s("relaysExecuted") / max(1, s("relaysScheduled")),
        "tx": s("messageTransmissions") / max(1, sent),
        "worst": min(r["reachableDeliveryRatio"] for r in runs if r["reachableDeliveries"] > 0),
    }

def table(kind):
    results = {}
    for d in dialects:
        for p in policies:
            groups = {}
            for run in load(kind, d, p):
                groups.setdefault(key_of(kind, run), []).append(run)
            for k, runs in groups.items():
                results[(d, p, k)] = pooled(runs)
    return results

pct = lambda v: f"{100 * v:.1f} %"
for kind, title, column in [("nodes", "Node count (geometric, target degree 8, no loss)", "nodes"),
                            ("loss", "Link loss (geometric, 20 nodes, target degree 8)", "loss")]:
    res = table(kind)
    keys = sorted({k for (_, _, k) in res})
    print(f"### {title}\n")
    print(f"| dialect | policy | {column} | seeds | mean degree | connected | delivery | delivery of connected | worst run (connected) | duplicate copies | relays executed | tx / message | fewer tx than flood |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d in dialects:
        for p in policies:
            for k in keys:
                r, f = res[(d, p, k)], res[(d, "flood", k)]
                fewer = 1 - r["tx"] / f["tx"] if f["tx"] else 0
                print(f"| {d} | {p} | {k:g} | {r['seeds']} | {r['degree']:.2f} | {pct(r['connected'])} | {pct(r['delivery'])} | "
                      f"{pct(r['reachable'])} | {pct(r['worst'])} | {pct(r['duplicates'])} | {pct(r['executed'])} | {r['tx']:.1f} | "
                      f"{'-' if p == 'flood' else pct(fewer)} |")
    print()
    if kind == "nodes": nodes_res, nodes_keys = res, keys

# Two panels per dialect: delivery of connected recipients, and transmissions per message.
W, H, L, T, PW, PH = 920, 640, 70, 50, 340, 200
colours = {"probabilistic": "#d62728", "dialect": "#1f77b4", "flood": "#2ca02c"}
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
       '<rect width="100%" height="100%" fill="white"/>',
       f'<text x="{W/2}" y="24" text-anchor="middle" font-size="14">Random geometric meshes (target degree 8, no loss), {len(nodes_res[(dialects[0], policies[0], nodes_keys[0])] and load("nodes", "relay", "flood")) // len(nodes_keys)} seeds pooled</text>']
xmin, xmax = min(nodes_keys), max(nodes_keys)
for row, d in enumerate(dialects):
    for col, (metric, label) in enumerate([("reachable", "delivery to connected recipients"), ("tx", "transmissions per message")]):
        x0, y0 = L + col * (PW + 120), T + 30 + row * (PH + 80)
        top = 1.0 if metric == "reachable" else max(nodes_res[(d, p, k)]["tx"] for p in policies for k in nodes_keys) * 1.1
        X = lambda v: x0 + (v - xmin) / (xmax - xmin) * PW
        Y = lambda v: y0 + PH - v / top * PH
        svg.append(f'<rect x="{x0}" y="{y0}" width="{PW}" height="{PH}" fill="none" stroke="#888"/>')
        svg.append(f'<text x="{x0 + PW/2}" y="{y0 - 8}" text-anchor="middle">{d}: {label}</text>')
        for i in range(5):
            v = top * i / 4
            svg.append(f'<line x1="{x0}" y1="{Y(v):.1f}" x2="{x0+PW}" y2="{Y(v):.1f}" stroke="#eee"/>')
            svg.append(f'<text x="{x0-6}" y="{Y(v)+4:.1f}" text-anchor="end">{f"{int(v*100)} %" if metric == "reachable" else f"{v:.0f}"}</text>')
        for k in nodes_keys:
            svg.append(f'<text x="{X(k):.1f}" y="{y0+PH+16}" text-anchor="middle">{k}</text>')
        svg.append(f'<text x="{x0+PW/2}" y="{y0+PH+32}" text-anchor="middle">nodes</text>')
        for p in policies:
            pts = " ".join(f"{X(k):.1f},{Y(nodes_res[(d, p, k)][metric]):.1f}" for k in nodes_keys)
            svg.append(f'<polyline points="{pts}" fill="none" stroke="{colours[p]}" stroke-width="2"/>')
            for k in nodes_keys:
                svg.append(f'<circle cx="{X(k):.1f}" cy="{Y(nodes_res[(d, p, k)][metric]):.1f}" r="3" fill="{colours[p]}"/>')
        if metric == "reachable":
            svg.append(f'<line x1="{x0}" y1="{Y(0.95):.1f}" x2="{x0+PW}" y2="{Y(0.95):.1f}" stroke="#999" stroke-dasharray="4 3"/>')
            svg.append(f'<text x="{x0+PW-4}" y="{Y(0.95)-4:.1f}" text-anchor="end" fill="#666">seed 000 claim: 95 %</text>')
for i, p in enumerate(policies):
    svg.append(f'<text x="{L + i*200}" y="{H-14}" fill="{colours[p]}">— {p}</text>')
svg.append("</svg>")
open(svg_path, "w").write("\n".join(svg) + "\n")
PY
