// flamegraph.js: the flame graph view: /v1/tree drawn with flame.js's
// FlameGraph (zoom in the URL, the breadcrumb back up, search, colours),
// and the top table beside it on request.  The tree laid out of the last
// reply is kept for the next redraw of the same selection, and for the
// sandwich view.  Uses app.js's helpers (el, go, api, fillPickers, stale,
// hadFocus, menuOpen) and top.js's table.
'use strict';

// The laid-out tree of the /v1/tree reply named by flameKey.
let flame = null, flameKey = '';

// Replies are new (a push, live updates): lay the next tree out again.
function flameForget() { flame = null; }

function breadcrumb(tree, z) {
  const nav = el('nav', { id: 'crumbs' });
  const path = [];
  for (let i = z; i >= 0; i = tree.parent[i]) path.push(i);
  path.reverse();
  path.forEach((i, k) => {
    if (k > 0) nav.append(' \u203a ');
    const name = k === 0 ? 'root' : tree.nameOf(i);
    nav.append(k === path.length - 1 ? el('b', {}, name)
      : el('a', { href: '#', onclick: (e) => { e.preventDefault(); go({ zoom: tree.path(i).join(';') }); } }, name));
  });
  if (z !== 0)
    nav.append(' ', el('button', { type: 'button', id: 'reset-zoom', onclick: () => go({ zoom: '' }) }, 'Reset zoom'));
  return nav;
}

function newFlame(canvas, inverted, extra) {
  return new FlameGraph(Object.assign({ canvas, inverted, tooltip: $('tooltip') }, extra));
}

async function viewFlame(main, s, q, seq) {
  const [tree, top] = await Promise.all([api('/v1/tree?' + q), api('/v1/top?' + q)]);
  if (stale(seq)) return;
  const focused = hadFocus('#flame');
  fillPickers(s, top);
  const key = '/v1/tree?' + q;
  const canvas = el('canvas', { id: 'flame', 'aria-label': 'Flame graph' });
  const wrap = el('div', { class: 'flamewrap' }, canvas);
  if (!flame || flameKey !== key) {
    const t0 = performance.now();
    flame = { tree: new FlameTree(tree.root), built: performance.now() - t0 };
    flameKey = key;
  }
  const g = newFlame(canvas, s.flip, {
    onZoom: (i) => go({ zoom: g.tree.path(i).join(';') }),
    onMenu: (i, e) => menuOpen(g.tree.nameOf(i), e),
  });
  g.set(flame.tree);
  window.profdFlame = g;
  g.unit = tree.unit;
  g.colorBy = s.colour;
  g.zoom = g.tree.find(s.zoom);
  if (s.search) {
    try {
      const m = g.tree.search(new RegExp(s.search));
      g.hit = m.hit;
      $('matched').textContent = 'Matched: ' + (m.share * 100 >= 99.95 ? '100' : (m.share * 100).toFixed(1)) +
        '% (' + Units.label(m.sum, tree.unit) + ')';
      $('search').classList.remove('bad');
    } catch (e) {
      $('search').classList.add('bad');
      $('matched').textContent = '';
    }
  } else $('matched').textContent = '';
  const parts = [breadcrumb(g.tree, g.zoom), wrap];
  if (s.side) {
    main.classList.add('side');
    main.replaceChildren(el('div', { class: 'pane' }, ...parts),
      el('div', { class: 'pane' }, topTable(top, s, (fn) => go({ search: '^' + reEscape(fn) + '$' }))));
  } else main.replaceChildren(...parts);
  const t1 = performance.now();
  g.draw();
  window.profdLastPaint = { build_ms: flame.built, draw_ms: performance.now() - t1, nodes: g.tree.n };
  if (focused) canvas.focus({ preventScroll: true });
}
