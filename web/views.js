// views.js: the peek, traces and tags views (pprof's -peek, -traces and
// -tags) over /v1/peek, /v1/traces and /v1/tags, with the refine menu on
// every row that names a function.  Uses app.js's helpers (el, go, api,
// menuRow, fillPickers, stale, hadFocus).
'use strict';

const TRACES_LIMIT = 50;

const inlMark = (on) => (on ? el('span', { class: 'inl' }, ' (inline)') : null);
const fnCell = (name, inline) => el('td', { class: 'fn' }, name, inlMark(inline));

// --- peek: the callers and callees of the functions matching a regex ---

// The regex peeked at: the URL's, else the sandwich's function, else the
// heaviest function of the selection.
async function peekRegex(s, q) {
  if (s.regex) return s.regex;
  if (s.fn) return '^' + reEscape(s.fn) + '$';
  const top = await api('/v1/top?' + q + '&limit=1');
  return top.rows.length ? '^' + reEscape(top.rows[0].function) + '$' : '';
}

async function viewPeek(main, s, q, seq) {
  const regex = await peekRegex(s, q);
  if (stale(seq)) return;
  const input = el('input', { id: 'peek-regex', size: '40', value: regex, placeholder: 'regex',
    title: 'Go regular expression (unanchored) over function names' });
  input.addEventListener('change', () => go({ regex: input.value }));
  const bar = el('p', { class: 'note' }, 'Peek at ', input, ' ');
  if (!regex) { fillPickers(s, null); main.replaceChildren(bar, el('p', { class: 'note' }, 'No samples in this selection.')); return; }
  let j;
  try {
    j = await api('/v1/peek?' + q + '&regex=' + encodeURIComponent(regex));
  } catch (e) {
    // No match or a bad regex: said next to the box, which stays to fix it.
    if (stale(seq)) return;
    fillPickers(s, null);
    $('agg-type').textContent = '';
    input.classList.add('bad');
    main.replaceChildren(bar, el('p', { class: 'error', id: 'peek-error' }, String(e.message || e)));
    return;
  }
  if (stale(seq)) return;
  fillPickers(s, j);
  const out = Units.outputUnit(j.unit, [{ flat: j.min_value, cum: j.min_value }], j.total);
  const v = (x) => Units.label(x, j.unit, out);
  const pct = (x, of) => Units.percentage(x, of);
  bar.append('Showing nodes accounting for ' + v(j.flat_sum) + ', ' + pct(j.flat_sum, j.total) + ' of ' +
    v(j.total) + ' total; ' + j.nodes.length + ' of ' + j.nodes_total + ' functions match.');
  const table = el('table', { id: 'peek', class: 'top' }, el('thead', {}, el('tr', {},
    ...['flat', 'flat%', 'sum%', 'cum', 'cum%', 'calls', 'calls%'].map((h) => el('th', { class: 'num' }, h)),
    el('th', {}, 'context'))));
  let sum = 0;
  const peekAt = (name) => go({ regex: '^' + reEscape(name) + '$' });
  const edge = (kind, [f, w, inline], cum) => {
    const name = j.functions[f];
    const tr = el('tr', { class: kind, 'data-weight': String(w), 'data-inline': inline ? '1' : '0',
      title: (kind === 'caller' ? 'Called from ' : 'Calls ') + name + ': click to peek at it' },
    el('td', { colspan: '5' }), el('td', { class: 'num' }, v(w)), el('td', { class: 'num' }, pct(w, cum)),
    el('td', { class: 'fn' }, kind === 'caller' ? '\u2191 ' : '\u2193 ', name, inlMark(inline)));
    tr.addEventListener('click', () => peekAt(name));
    return menuRow(tr, name, () => peekAt(name));
  };
  for (const n of j.nodes) {
    sum += n.flat;
    const body = el('tbody', { class: 'peeknode' });
    n.callers.forEach((e) => body.append(edge('caller', e, n.cum)));
    const show = () => go({ view: 'flamegraph', side: true, search: '^' + reEscape(n.function) + '$' });
    const tr = el('tr', { class: 'node', 'data-flat': String(n.flat), 'data-cum': String(n.cum),
      title: n.function + ': click to show it in the flame graph' },
    el('td', { class: 'num' }, v(n.flat)), el('td', { class: 'num' }, pct(n.flat, j.total)),
    el('td', { class: 'num' }, pct(sum, j.total)), el('td', { class: 'num' }, v(n.cum)),
    el('td', { class: 'num' }, pct(n.cum, j.total)), el('td', { colspan: '2' }), el('td', { class: 'fn' }, el('b', {}, n.function)));
    tr.addEventListener('click', show);
    body.append(menuRow(tr, n.function, show));
    n.callees.forEach((e) => body.append(edge('callee', e, n.cum)));
    table.append(body);
  }
  const focused = hadFocus('#peek');
  main.replaceChildren(bar, table);
  if (focused) main.querySelector('#peek tr.node').focus({ preventScroll: true });
}

// --- traces: every sample with its stack and labels, heaviest first ---

function traceLabels(j, t) {
  const ls = t.label_set == null ? null : j.label_sets[t.label_set];
  if (!ls) return [];
  const out = [];
  for (const k of Object.keys(ls.labels).sort()) out.push([k, ls.labels[k].join(' ')]);
  for (const k of Object.keys(ls.num_labels).sort()) {
    const n = ls.num_labels[k];
    out.push([k, n.values.map((x) => Units.label(x, n.unit)).join(' ')]);
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

async function viewTraces(main, s, q, seq) {
  const limit = s.limit > 0 ? s.limit : TRACES_LIMIT;
  const j = await api('/v1/traces?' + q + '&limit=' + limit);
  if (stale(seq)) return;
  fillPickers(s, j);
  const info = el('p', { class: 'note' }, (j.traces.length < j.traces_total ? 'The ' + j.traces.length +
    ' largest of ' + j.traces_total + ' traces' : j.traces_total + ' trace' + (j.traces_total === 1 ? '' : 's')) +
    ' (total ' + Units.label(j.total, j.unit) + ' over ' + j.profiles + ' profile' + (j.profiles === 1 ? '' : 's') +
    '), leaf first. ');
  if (j.traces.length < j.traces_total)
    info.append(el('button', { type: 'button', id: 'traces-more', onclick: () => go({ limit: String(limit * 4) }) },
      'show ' + Math.min(limit * 4, j.traces_total)));
  const table = el('table', { id: 'traces', class: 'top' });
  j.traces.forEach((t, k) => {
    const body = el('tbody', { class: 'trace', 'data-value': String(t.value), 'data-rank': String(k) });
    for (const [key, val] of traceLabels(j, t))
      body.append(el('tr', { class: 'tlabel' }, el('td', { class: 'num' }, key + ':'), el('td', {}), el('td', { class: 'fn' }, val)));
    const inl = new Set(t.inline || []);
    t.frames.forEach((f, i) => {
      const name = j.functions[f];
      const sw = () => go({ view: 'sandwich', fn: name, zoom: '' });
      const tr = el('tr', { class: 'frame', 'data-inline': inl.has(i) ? '1' : '0', title: name + ': click for its sandwich' },
        el('td', { class: 'num' }, i === 0 ? Units.label(t.value, j.unit) : ''),
        el('td', { class: 'num' }, i === 0 ? Units.percentage(t.value, j.total) : ''),
        fnCell(name, inl.has(i)));
      tr.addEventListener('click', sw);
      body.append(menuRow(tr, name, sw));
    });
    table.append(body);
  });
  main.replaceChildren(info, table);
}

// --- tags: per label key, the value of the samples with each value ---

// A bar of a share in [0, 1], its width set through the CSSOM (the page's
// CSP refuses style attributes).
function bar(share) {
  const b = el('span', { class: 'bar' });
  b.style.width = (share * 200).toFixed(1) + 'px';
  return b;
}

async function viewTags(main, s, q, seq) {
  const j = await api('/v1/tags?' + q);
  if (stale(seq)) return;
  fillPickers(s, j);
  const parts = [el('p', { class: 'note' }, 'Total ' + Units.label(j.total, j.unit) + ' over ' + j.profiles +
    ' profile' + (j.profiles === 1 ? '' : 's') + '; click a value to select its samples.')];
  if (!j.tags.length) parts.push(el('p', { class: 'note' }, 'No sample in this selection has labels.'));
  for (const t of j.tags) {
    const tot = t.values.reduce((a, x) => a + x.value, 0);
    // pprof's order: heaviest first, ties by the printed value.
    const shown = (x) => (x.str != null ? x.str : Units.label(x.num, t.unit));
    const vals = t.values.slice().sort((a, b) => Math.abs(b.value) - Math.abs(a.value) ||
      (shown(a) < shown(b) ? -1 : shown(a) > shown(b) ? 1 : 0));
    const table = el('table', { class: 'top tags', 'data-key': t.key }, el('thead', {}, el('tr', {},
      el('th', { class: 'num' }, 'value'), el('th', { class: 'num' }, '%'), el('th', {}, ''),
      el('th', {}, t.key + ' (total ' + Units.label(tot, j.unit) + ')'))));
    const body = el('tbody');
    for (const x of vals) {
      const filter = t.key + '=' + (x.str != null ? x.str : String(x.num));
      const share = tot ? Math.abs(x.value / tot) : 0;
      const tr = el('tr', { tabindex: '0', 'data-value': String(x.value), 'data-label': filter,
        title: 'Select the samples with ' + filter, [x.str != null ? 'data-str' : 'data-num']: String(x.str != null ? x.str : x.num) },
      el('td', { class: 'num' }, Units.label(x.value, j.unit)), el('td', { class: 'num' }, Units.percentage(x.value, tot)),
      el('td', {}, bar(share)),
      el('td', { class: 'fn' }, shown(x)));
      const pick = () => { if (!s.label.includes(filter)) go({ label: [...s.label, filter] }); };
      tr.addEventListener('click', pick);
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') pick();
        else if (e.key === 'ArrowDown' && tr.nextSibling) { tr.nextSibling.focus(); e.preventDefault(); }
        else if (e.key === 'ArrowUp' && tr.previousSibling) { tr.previousSibling.focus(); e.preventDefault(); }
      });
      body.append(tr);
    }
    table.append(body);
    parts.push(table);
  }
  main.replaceChildren(...parts);
}
