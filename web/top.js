// top.js: the top view (pprof's -top) over /v1/top: the table of
// functions by flat or cum, filtered by a regex, with the refine menu on
// every row; the flame graph shows the same table beside it (side=1).
// Uses app.js's helpers (el, go, api, menuRow, fillPickers, stale,
// hadFocus, reEscape).
'use strict';

function topRowsSorted(top, s) {
  const rows = top.rows.slice();
  const by = s.sort;
  if (by === 'cum') rows.sort((a, b) => Math.abs(b.cum) - Math.abs(a.cum) || (a.function < b.function ? -1 : 1));
  else if (by === 'name') rows.sort((a, b) => (a.function < b.function ? -1 : a.function > b.function ? 1 : 0));
  return rows;
}

// pprof's -top columns, the values scaled to one unit as profctl prints.
function topTable(top, s, onPick) {
  const rows = topRowsSorted(top, s);
  const out = Units.outputUnit(top.unit, top.rows, top.total);
  let re = null;
  try { re = s.filter ? new RegExp(s.filter) : null; } catch (e) { re = null; }
  const head = (label, key, cls) => el('th', { class: cls, 'data-sort': key,
    title: key ? 'Sort by ' + key : null,
    onclick: key ? () => go({ sort: key === 'flat' ? '' : key }, true) : null },
  label + (key && (s.sort || 'flat') === key ? ' \u25be' : ''));
  const table = el('table', { id: 'top', class: 'top' }, el('thead', {}, el('tr', {},
    head('flat', 'flat', 'num'), head('flat%', null, 'num'), head('sum%', null, 'num'),
    head('cum', 'cum', 'num'), head('cum%', null, 'num'), head('function', 'name'))));
  const body = el('tbody');
  let sum = 0;
  for (const r of rows) {
    if (re && !re.test(r.function)) continue;
    sum += r.flat;
    const tr = el('tr', { tabindex: '0', 'data-name': r.function, 'data-flat': String(r.flat), 'data-cum': String(r.cum) },
      el('td', { class: 'num' }, Units.label(r.flat, top.unit, out)),
      el('td', { class: 'num' }, Units.percentage(r.flat, top.total)),
      el('td', { class: 'num' }, Units.percentage(sum, top.total)),
      el('td', { class: 'num' }, Units.label(r.cum, top.unit, out)),
      el('td', { class: 'num' }, Units.percentage(r.cum, top.total)),
      el('td', { class: 'fn' }, r.function, r.inline === 'inline' ? el('span', { class: 'inl' }, ' (inline)')
        : r.inline === 'partial-inline' ? el('span', { class: 'inl' }, ' (partial-inline)') : null));
    if (s.search === '^' + reEscape(r.function) + '$') tr.classList.add('picked');
    tr.addEventListener('click', () => onPick(r.function));
    body.append(menuRow(tr, r.function, () => onPick(r.function)));
  }
  table.append(body);
  const filter = el('input', { id: 'top-filter', size: '24', placeholder: 'filter (regex)', value: s.filter,
    title: 'Only functions matching this regular expression' });
  filter.addEventListener('change', () => go({ filter: filter.value }, true));
  const info = el('p', { class: 'note' }, 'Total ' + Units.label(top.total, top.unit, out) + ' over ' +
    top.profiles + ' profile' + (top.profiles === 1 ? '' : 's') + ', ' + top.rows_total + ' functions. ');
  info.append(filter);
  return el('div', { class: 'topwrap' }, info, table);
}

async function viewTop(main, s, q, seq) {
  const top = await api('/v1/top?' + q);
  if (stale(seq)) return;
  const focused = hadFocus('#top');
  fillPickers(s, top);
  main.replaceChildren(topTable(top, s, (fn) => go({ view: 'flamegraph', side: true, search: '^' + reEscape(fn) + '$' })));
  const first = main.querySelector('tbody tr');
  if (first && focused) first.focus({ preventScroll: true });
}
