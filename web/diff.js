// diff.js: the diff view: the selection against a base selection (the
// API's base.* parameters: another window, scope or label set), as a
// differential flame graph (widths: base and current together; red grew,
// blue shrank) and the table of deltas, normalised on request.  The base
// is combined as the selection's aggregate= says (base.aggregate).
'use strict';

function diffQuery(s, q) {
  const d = new URLSearchParams(q);
  const b = s.base;
  (b['base.scope'].length ? b['base.scope'] : s.scope).forEach((v) => d.append('base.scope', v));
  for (const k of ['base.label', 'base.profile']) b[k].forEach((v) => d.append(k, v));
  for (const k of ['base.since', 'base.until']) if (b[k]) d.set(k, b[k]);
  // Both sides combine their windows alike, or the deltas compare an
  // average with a sum.
  if (s.aggregate) d.set('base.aggregate', s.aggregate);
  if (s.normalize) d.set('normalize', 'true');
  return d;
}

// The controls of the base selection.
function diffControls(s, reply) {
  const b = s.base;
  const names = scopesReply.scopes.map((x) => x.name);
  const bscope = b['base.scope'].length ? b['base.scope'][0] : s.scope[0];
  const scope = el('select', { id: 'base-scope', title: 'The base scope' },
    ...names.map((n) => el('option', { value: n, selected: n === bscope }, n)));
  scope.addEventListener('change', () => go({ 'base.scope': [scope.value] }));
  const since = el('input', { id: 'base-since', size: '22', value: b['base.since'], placeholder: 'since (RFC 3339 or -1h)' });
  const until = el('input', { id: 'base-until', size: '22', value: b['base.until'], placeholder: 'until' });
  const labels = el('input', { id: 'base-label', size: '16', value: b['base.label'].join(', '), placeholder: 'k=v, k!=v' });
  const apply = () => go({ 'base.since': since.value.trim(), 'base.until': until.value.trim(),
    'base.label': labels.value.split(',').map((x) => x.trim()).filter((x) => x) });
  for (const i of [since, until, labels]) i.addEventListener('change', apply);
  const norm = el('input', { type: 'checkbox', id: 'normalize', checked: s.normalize });
  norm.addEventListener('change', () => go({ normalize: norm.checked ? 'true' : '' }));
  const tot = (x) => Units.label(x.total, reply.unit) + ' in ' + x.profiles + ' profile' + (x.profiles === 1 ? '' : 's');
  return el('div', { class: 'diffbar' },
    el('b', {}, 'Base'), ' ', el('label', {}, 'scope ', scope), ' ', el('label', {}, 'since ', since), ' ',
    el('label', {}, 'until ', until), ' ', el('label', {}, 'labels ', labels), ' ',
    el('label', { title: 'Scale the base by current total / base total: windows of different length compare by share' },
      norm, ' normalise'),
    el('p', { class: 'note' }, 'base ' + tot(reply.base) + (reply.normalized ? ' (scaled by ' + Number(reply.scale).toPrecision(4) + ')' : '') +
      '; current ' + tot(reply.current) + '. Red grew, blue shrank; widths are base and current together.'));
}

function diffTable(reply, s) {
  const u = reply.unit;
  const lab = (v) => Units.label(v, u);
  const sgn = (v) => (v > 0 ? '+' : '') + lab(v);
  const table = el('table', { id: 'difftable', class: 'top' }, el('thead', {}, el('tr', {}, el('th', {}, 'function'),
    ...['base flat', 'current flat', 'delta flat', 'base cum', 'current cum', 'delta cum'].map((h) => el('th', { class: 'num' }, h)))));
  const body = el('tbody');
  for (const r of reply.rows) {
    const tr = el('tr', { tabindex: '0', 'data-name': r.function, 'data-delta-flat': String(r.delta_flat),
      class: r.delta_flat > 0 ? 'grew' : r.delta_flat < 0 ? 'shrank' : null },
    el('td', { class: 'fn' }, r.function),
    el('td', { class: 'num' }, lab(r.base_flat)), el('td', { class: 'num' }, lab(r.current_flat)),
    el('td', { class: 'num' }, sgn(r.delta_flat)), el('td', { class: 'num' }, lab(r.base_cum)),
    el('td', { class: 'num' }, lab(r.current_cum)), el('td', { class: 'num' }, sgn(r.delta_cum)));
    if (s.search === '^' + reEscape(r.function) + '$') tr.classList.add('picked');
    tr.addEventListener('click', () => go({ search: '^' + reEscape(r.function) + '$' }));
    tr.addEventListener('contextmenu', (e) => { e.preventDefault(); menuOpen(r.function, e); });
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' && tr.nextSibling) { tr.nextSibling.focus(); e.preventDefault(); }
      else if (e.key === 'ArrowUp' && tr.previousSibling) { tr.previousSibling.focus(); e.preventDefault(); }
      else if (e.key === 'Enter') go({ search: '^' + reEscape(r.function) + '$' });
    });
    body.append(tr);
  }
  table.append(body);
  return el('div', { class: 'topwrap' }, el('p', { class: 'note' }, reply.rows_total + ' functions, by |delta flat|'), table);
}

async function viewDiff(main, s, q, seq) {
  const reply = await api('/v1/diff?' + diffQuery(s, q) + '&limit=500');
  if (stale(seq)) return;
  fillPickers(s, reply);
  const canvas = el('canvas', { id: 'flame', 'aria-label': 'Differential flame graph' });
  const g = newFlame(canvas, s.flip, {
    onZoom: (i) => go({ zoom: g.tree.path(i).join(';') }),
    onMenu: (i, e) => menuOpen(g.tree.nameOf(i), e),
  });
  g.set(new FlameTree(reply.root));
  window.profdFlame = g;
  g.unit = reply.unit;
  g.zoom = g.tree.find(s.zoom);
  if (s.search) {
    try { g.hit = g.tree.search(new RegExp(s.search)).hit; } catch (e) { g.hit = null; }
  }
  $('matched').textContent = '';
  main.classList.add('side');
  main.replaceChildren(el('div', { class: 'pane' }, diffControls(s, reply), breadcrumb(g.tree, g.zoom),
    el('div', { class: 'flamewrap' }, canvas)), el('div', { class: 'pane' }, diffTable(reply, s)));
  g.draw();
}
