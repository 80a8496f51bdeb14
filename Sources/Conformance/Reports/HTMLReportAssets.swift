/// The HTML report's style sheet and script, inlined in every page so it needs no network.
/// The script never writes markup: report data reaches the page only through `textContent`.
extension HTMLReport {
    static let css = #"""
        :root { --pass:#1a7f37; --fail:#cf222e; --inconc:#9a6700; --na:#6e7781; --error:#8250df;
          --ink:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#f6f8fa; --to:#0969da; --from:#bc4c00;
          --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
          color: var(--ink); background: var(--bg); }
        .v-pass { --c: var(--pass); } .v-fail { --c: var(--fail); } .v-inconc { --c: var(--inconc); }
        .v-na { --c: var(--na); } .v-error { --c: var(--error); }
        header.run { background: #fff; border-top: 6px solid var(--pass); border-bottom: 1px solid var(--line); padding: 16px 28px 14px; }
        header.run.failed { border-top-color: var(--fail); }
        .banner { display: flex; align-items: center; gap: 14px; }
        .outcome { font-weight: 700; color: #fff; background: var(--pass); padding: 3px 10px; border-radius: 6px; letter-spacing: .05em; }
        .failed .outcome { background: var(--fail); }
        h1 { font-size: 20px; margin: 0; font-weight: 600; }
        .facts { display: flex; flex-wrap: wrap; gap: 4px 28px; margin: 12px 0; }
        .facts div { display: flex; gap: 8px; } dt { color: var(--muted); } dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
        .tiles { display: flex; gap: 10px; flex-wrap: wrap; }
        .tile { font: inherit; text-align: left; cursor: pointer; min-width: 96px; padding: 6px 14px; background: #fff;
          border: 1px solid var(--line); border-left: 5px solid var(--c); border-radius: 8px; color: var(--c); }
        .tile b { display: block; font-size: 26px; line-height: 1.1; color: var(--ink); }
        .tile span { font-size: 12px; font-weight: 700; letter-spacing: .04em; }
        .tile.on { background: var(--c); color: #fff; } .tile.on b { color: #fff; }
        .bars { margin-top: 14px; display: grid; gap: 5px; max-width: 920px; }
        .bar-row { display: grid; grid-template-columns: 72px 1fr 150px; align-items: center; gap: 10px; font-size: 12px; }
        .bar-name { font-weight: 600; font-family: var(--mono); } .bar-note { color: var(--muted); }
        .bar { display: flex; height: 16px; border-radius: 4px; overflow: hidden; background: #eaeef2; }
        .seg { background: var(--c); color: #fff; font-size: 10.5px; font-weight: 600; text-align: center; line-height: 16px; min-width: 16px; }
        .problems { margin: 12px 0 0; font-size: 13px; display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: baseline; }
        .problems-title { font-weight: 700; color: var(--fail); }
        .pgroup b { font: 600 12px var(--mono); margin-right: 2px; }
        .problems a { font-family: var(--mono); font-size: 12px; color: var(--c); margin-right: 4px; white-space: nowrap; }
        nav.filters { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 20px;
          padding: 8px 28px; background: #ffffffee; border-bottom: 1px solid var(--line); }
        .chipset { display: flex; flex-wrap: wrap; align-items: center; gap: 4px; }
        .chips-label { color: var(--muted); font-size: 12px; margin-right: 2px; }
        .chip, .act { font: 12px var(--mono); cursor: pointer; padding: 2px 10px; border: 1px solid var(--line); border-radius: 999px; background: #fff; color: var(--c, var(--ink)); }
        .chip[aria-pressed="true"] { background: var(--c, var(--ink)); border-color: var(--c, var(--ink)); color: #fff; }
        .act { font-family: inherit; border-radius: 6px; color: var(--ink); }
        #search { font: 12px var(--mono); padding: 3px 8px; border: 1px solid var(--line); border-radius: 6px; width: 150px; }
        #shown { color: var(--muted); font-size: 12px; margin-left: 6px; }
        main { padding: 8px 28px 28px; }
        .row { display: grid; grid-template-columns: 70px 92px 64px minmax(0, 1fr) minmax(0, 250px) 44px 62px; gap: 12px; align-items: baseline; padding: 5px 12px; }
        .head { font-size: 12px; font-weight: 600; color: var(--muted); padding-bottom: 2px; }
        details.check { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--c); border-radius: 6px; margin: 4px 0; }
        details.check > summary { cursor: pointer; list-style: none; }
        details.check > summary::-webkit-details-marker { display: none; }
        details.check > summary:hover { background: #f6f8fa; }
        details.check[open] > summary { border-bottom: 1px solid var(--line); }
        .badge { font: 700 11px var(--mono); color: #fff; background: var(--c); border-radius: 4px; padding: 2px 0; text-align: center; }
        .id { font: 600 13px var(--mono); } .dialect { font: 12px var(--mono); color: var(--muted); }
        .reason { display: block; color: var(--muted); font-size: 12.5px; overflow-wrap: anywhere; }
        .v-fail .reason, .v-error .reason { color: var(--c); }
        a.rule, span.rule { font: 11px var(--mono); background: #ddf4ff; color: #0550ae; padding: 1px 5px; border-radius: 4px; text-decoration: none; white-space: nowrap; }
        a.rule:hover { text-decoration: underline; }
        .num { text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); font-size: 12px; }
        .body { padding: 10px 14px 14px; overflow-x: auto; }
        .verdict-detail { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; max-width: 1100px; }
        .expected, .seen { border-radius: 6px; padding: 7px 12px; }
        .expected { background: #dafbe1; border: 1px solid #aceebb; } .seen { background: #ffebe9; border: 1px solid #ffcecb; }
        .v-pass .seen { background: #f6f8fa; border-color: var(--line); }
        h4 { margin: 0 0 2px; font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
        .expected p, .seen p { margin: 0; font: 12.5px var(--mono); white-space: pre-wrap; overflow-wrap: anywhere; }
        .rule-list, .none { font-size: 12.5px; color: var(--muted); margin: 8px 0 0; }
        figure.chart { margin: 10px 0 0; }
        figcaption { font-size: 12px; color: var(--muted); margin-bottom: 4px; }
        svg.msc { display: block; background: #fff; font: 12px var(--mono); border: 1px solid #eaeef2; border-radius: 4px; }
        .life { stroke: #afb8c1; stroke-width: 1; } .life.l-dut { stroke: #24292f; stroke-width: 2; }
        .lane rect { fill: #ddf4ff; stroke: #54aeff; } .lane text { font: 600 12px system-ui, sans-serif; fill: #0550ae; }
        .lane.l-dut rect { fill: #24292f; stroke: #24292f; } .lane.l-dut text { fill: #fff; }
        .lane.l-app rect { fill: #dafbe1; stroke: #4ac26b; } .lane.l-app text { fill: #116329; }
        .colhead { font: 600 11px system-ui, sans-serif; fill: #59636e; }
        .hit { fill: transparent; } .hit.odd { fill: #1f23280a; } .u:hover .hit { fill: #d4a72c40; }
        .t { fill: #59636e; font-size: 11px; }
        .arrow { stroke-width: 1.6; }
        .u.to .arrow { stroke: var(--to); } .u.to .head { fill: var(--to); } .u.to .s { fill: #0550ae; }
        .u.from .arrow { stroke: var(--from); } .u.from .head { fill: var(--from); } .u.from .s { fill: #953800; }
        .u.event .arrow { stroke: #8c959f; stroke-dasharray: 4 3; } .u.event .head { fill: #8c959f; } .u.event .s { fill: #59636e; font-style: italic; }
        .u.app .arrow { stroke: #1a7f37; stroke-dasharray: 4 3; } .u.app .head { fill: #1a7f37; } .u.app .s { fill: #116329; }
        .u.note .band { fill: #fff8c5; opacity: .85; } .u.note .s { fill: #7d4e00; font-style: italic; }
        .u.log .dot { fill: #fff; stroke: #24292f; stroke-width: 1.5; } .u.log .s { fill: #59636e; }
        .seen-mark { fill: var(--fail); } .u.seen .hit { fill: #cf222e14; } .u.seen .s { font-weight: 700; }
        .jump rect { fill: #fff; } .jump text { fill: #59636e; font-size: 10.5px; }
        .cut rect { fill: #eaeef2; } .cut text { fill: #1f2328; font-style: italic; }
        #tip { position: fixed; z-index: 10; max-width: 600px; padding: 8px 10px; border-radius: 8px; pointer-events: none;
          background: #1f2328; color: #fff; font-size: 12px; box-shadow: 0 8px 24px #0005; }
        .tip-head { color: #9198a1; } .tip-sum { font-family: var(--mono); margin: 3px 0 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
        .tip-hex { margin: 0; font: 11.5px/1.35 var(--mono); color: #a5d6ff; white-space: pre; }
        footer { padding: 0 28px 30px; color: var(--muted); font-size: 12px; }
        [hidden] { display: none !important; }
        """#

    static let script = #"""
        (function () {
          const checks = Array.from(document.querySelectorAll('details.check'));
          const active = { verdict: new Set(), group: new Set(), dialect: new Set() };
          const search = document.getElementById('search');
          const shown = document.getElementById('shown');
          function apply() {
            const q = search.value.trim().toLowerCase();
            let n = 0;
            for (const c of checks) {
              const ok = ['verdict', 'group', 'dialect'].every(k => active[k].size === 0 || active[k].has(c.dataset[k]))
                && (!q || c.querySelector('summary').textContent.toLowerCase().includes(q));
              c.hidden = !ok;
              if (ok) n++;
            }
            shown.textContent = n + ' of ' + checks.length + ' checks';
            for (const b of document.querySelectorAll('.chip')) b.setAttribute('aria-pressed', active[b.dataset.filter].has(b.dataset.value));
            for (const b of document.querySelectorAll('.tile')) b.classList.toggle('on', active.verdict.has(b.dataset.value));
          }
          document.addEventListener('click', e => {
            const b = e.target.closest('[data-filter]');
            if (!b) return;
            const set = active[b.dataset.filter], v = b.dataset.value;
            if (b.classList.contains('tile')) { const only = set.size === 1 && set.has(v); set.clear(); if (!only) set.add(v); }
            else if (set.has(v)) set.delete(v); else set.add(v);
            apply();
          });
          search.addEventListener('input', apply);
          document.getElementById('expand').addEventListener('click', () => { for (const c of checks) if (!c.hidden) c.open = true; });
          document.getElementById('collapse').addEventListener('click', () => { for (const c of checks) c.open = false; });
          function reveal() {
            const t = location.hash && document.getElementById(location.hash.slice(1));
            if (t && t.matches('details.check')) { t.hidden = false; t.open = true; }
          }
          window.addEventListener('hashchange', reveal);

          const tip = document.getElementById('tip');
          const [head, sum, hex] = tip.children;
          function dump(h, n) {
            const lines = [];
            for (let i = 0; i < h.length; i += 32) {
              const bytes = h.slice(i, i + 32).match(/../g);
              const text = bytes.map(b => { const c = parseInt(b, 16); return c >= 32 && c < 127 ? String.fromCharCode(c) : '.'; }).join('');
              lines.push((i / 2).toString(16).padStart(4, '0') + '  ' + bytes.join(' ').padEnd(48) + '  ' + text);
            }
            if (n * 2 > h.length) lines.push('... ' + (n - h.length / 2) + ' more bytes');
            return lines.join('\n');
          }
          document.addEventListener('mouseover', e => {
            const u = e.target.closest && e.target.closest('g.u');
            if (!u) { tip.hidden = true; return; }
            const d = u.dataset;
            head.textContent = d.t + ' \u00b7 ' + d.d + (d.n ? ' \u00b7 ' + d.n + ' bytes' : '');
            sum.textContent = d.sum || u.querySelector('.s').textContent;
            hex.textContent = d.hex ? dump(d.hex, Number(d.n)) : '';
            hex.hidden = !d.hex;
            tip.hidden = false;
          });
          document.addEventListener('mousemove', e => {
            if (tip.hidden) return;
            let x = e.clientX + 16, y = e.clientY + 16;
            if (x + tip.offsetWidth > innerWidth - 8) x = Math.max(8, e.clientX - tip.offsetWidth - 16);
            if (y + tip.offsetHeight > innerHeight - 8) y = Math.max(8, e.clientY - tip.offsetHeight - 16);
            tip.style.left = x + 'px';
            tip.style.top = y + 'px';
          });
          apply();
          reveal();
        })();
        """#
}
