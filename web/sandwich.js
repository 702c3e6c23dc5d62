// sandwich.js: the sandwich view: the callers and the callees of one
// function as two flame graphs, from the /v1/tree reply laid out as the
// flame graph view keeps it (flamegraph.js: flame, flameKey, newFlame).
// Uses app.js's helpers (el, go, api, fillPickers, stale, menuOpen).
'use strict';

async function viewSandwich(main, s, q, seq) {
  const [tree, top] = await Promise.all([api('/v1/tree?' + q), api('/v1/top?' + q)]);
  if (stale(seq)) return;
  fillPickers(s, top);
  let fn = s.fn;
  if (!fn && top.rows.length) fn = top.rows[0].function;
  if (!fn) { main.replaceChildren(el('p', { class: 'note' }, 'No samples in this selection.')); return; }
  const key = '/v1/tree?' + q;
  if (!flame || flameKey !== key) { flame = { tree: new FlameTree(tree.root), built: 0 }; flameKey = key; }
  const sw = flame.tree.sandwich(fn);
  const row = top.rows.find((r) => r.function === fn);
  const out = Units.outputUnit(top.unit, top.rows, top.total);
  const names = top.rows.map((r) => r.function);
  const pick = el('select', { id: 'sandwich-fn', title: 'The function in the middle' },
    ...names.map((n) => el('option', { value: n, selected: n === fn }, n)));
  pick.addEventListener('change', () => go({ fn: pick.value }));
  const head = el('p', { class: 'note' }, 'Sandwich of ', pick, row ? ' — flat ' + Units.label(row.flat, top.unit, out) +
    ' (' + Units.percentage(row.flat, top.total) + '), cum ' + Units.label(row.cum, top.unit, out) +
    ' (' + Units.percentage(row.cum, top.total) + ')' : '');
  const c1 = el('canvas', { id: 'callers', 'aria-label': 'Callers of ' + fn });
  const c2 = el('canvas', { id: 'callees', 'aria-label': 'Callees of ' + fn });
  main.replaceChildren(head, el('h3', {}, 'Callers'), el('div', { class: 'flamewrap' }, c1),
    el('h3', {}, 'Callees'), el('div', { class: 'flamewrap' }, c2));
  const inl = new Set(top.rows.filter((r) => r.inline === 'inline').map((r) => r.function));
  const mk = (canvas, root, inverted) => {
    const g = newFlame(canvas, inverted, {
      onZoom: (i) => { if (i > 0 || inverted) go({ fn: g.tree.nameOf(i) }); },
      onMenu: (i, e) => menuOpen(g.tree.nameOf(i), e),
    });
    g.set(new FlameTree(root));
    g.unit = tree.unit;
    g.colorBy = s.colour;
    g.inline = inl;
    g.draw();
    return g;
  };
  window.profdSandwich = [mk(c1, sw.callers, true), mk(c2, sw.callees, false)];
}
