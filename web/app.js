// app.js: profd's browser UI, its shell.  It talks to the API of the
// origin it was loaded from (/v1/...: profd's socket, or profctl web's
// proxy), keeps all its state in the URL's query with the API's parameter
// names (so a link is shareable and Back works), fills the header's
// pickers, the refine menu and the timeline, whose window drives every
// view, and hands the page to the view the URL names: flame graph
// (flamegraph.js), top table (top.js), sandwich (sandwich.js), diff
// (diff.js), peek, traces and tags (views.js).  With fleet=1 in the URL
// (the fleet switch, shown when profd ships to ClickHouse) the views
// answer for every host of the fleet, or the hosts named, from ClickHouse.
// aggregate= (the picker beside the metric's) says how a window combines
// its profiles (docs/TIME.md); the header says how the view's did, as
// profctl's "Type:" line does.
'use strict';

// Parameters that make the API's selection, and those of the page only.
const SEL_MULTI = ['scope', 'label', 'profile', 'host'];
const SEL_ONE = ['metric', 'aggregate', 'since', 'until', 'focus', 'ignore', 'hide', 'show', 'fleet'];
const FILTERS = ['focus', 'ignore', 'hide', 'show'];
const VIEWS = ['flamegraph', 'top', 'peek', 'sandwich', 'traces', 'tags', 'diff'];
// What ClickHouse answers for the fleet: traces and tags need the
// samples' labels one by one, which only a host's own store keeps.
const FLEET_VIEWS = ['flamegraph', 'top', 'peek', 'sandwich', 'diff'];
// The base selection of a diff: the API's base.* parameters.
const BASE_MULTI = ['base.scope', 'base.label', 'base.profile'];
const BASE_ONE = ['base.since', 'base.until'];
// The API's aggregate= values, and how profctl's "Type:" line says them
// (base/kind.c aggregate_type_line; delta: nothing said).
const AGGREGATES = ['delta', 'sum', 'avg', 'last', 'max'];
const AGGREGATE_WORDS = { sum: 'sum', avg: 'average', last: 'last', max: 'max' };
const LIVE_MS = 5000;

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

// RE2 and JavaScript agree on these escapes.
function reEscape(s) { return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'); }

function iso(ns) { return new Date(Math.floor(ns / 1e6)).toISOString(); }

// --- state: the URL ---

function state() {
  const q = new URLSearchParams(location.search);
  const s = { q };
  for (const k of SEL_MULTI) s[k] = q.getAll(k).filter((v) => v !== '');
  for (const k of SEL_ONE) s[k] = q.get(k) || '';
  s.fleet = s.fleet === '1' ? '1' : '';
  if (!AGGREGATES.includes(s.aggregate)) s.aggregate = '';
  if (!s.fleet) s.host = [];
  // A profile id names a profile of this host's store only.
  if (s.fleet) s.profile = [];
  s.view = VIEWS.includes(q.get('view')) ? q.get('view') : 'flamegraph';
  if (s.fleet && !FLEET_VIEWS.includes(s.view)) s.view = 'flamegraph';
  s.search = q.get('search') || '';
  s.zoom = q.get('zoom') ? q.get('zoom').split(';') : [];
  s.fn = q.get('fn') || '';
  s.regex = q.get('regex') || '';
  s.limit = Math.max(0, parseInt(q.get('limit'), 10) || 0);
  s.side = q.get('side') === '1';
  s.colour = q.get('colour') === 'kind' ? 'kind' : 'package';
  s.flip = q.get('flip') === '1';
  s.sort = q.get('sort') || '';
  s.filter = q.get('filter') || '';
  s.base = {};
  for (const k of BASE_MULTI) s.base[k] = q.getAll(k).filter((v) => v !== '');
  for (const k of BASE_ONE) s.base[k] = q.get(k) || '';
  s.normalize = q.get('normalize') === 'true';
  s.live = q.get('live') === '1';
  return s;
}

// Change the URL (a new history entry unless replace) and redraw.
function go(changes, replace) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) {
    q.delete(k);
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else if (v !== '' && v != null && v !== false) q.set(k, v === true ? '1' : v);
  }
  // A new selection keeps no zoom into the old one's tree.
  if (['scope', 'metric', 'label', 'profile', 'fleet', 'host', ...FILTERS].some((k) => k in changes) && !('zoom' in changes))
    q.delete('zoom');
  const url = location.pathname + (q.toString() ? '?' + q : '');
  if (url === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  render();
}

// The API's selection parameters, without since/until when whole.
function selQuery(s, whole) {
  const q = new URLSearchParams();
  for (const k of SEL_MULTI) s[k].forEach((v) => q.append(k, v));
  for (const k of SEL_ONE) {
    if (whole && (k === 'since' || k === 'until')) continue;
    if (s[k]) q.set(k, s[k]);
  }
  return q;
}

// --- the API ---

const cache = new Map();

async function api(path) {
  if (cache.has(path)) return cache.get(path);
  const p = (async () => {
    const r = await request(path);
    const text = await r.text();
    let j = null;
    try { j = JSON.parse(text); } catch (e) { /* not JSON */ }
    if (!r.ok) {
      cache.delete(path);
      throw new Error(j && j.detail ? j.error + ': ' + j.detail : 'HTTP ' + r.status + ' ' + text.slice(0, 200));
    }
    return j;
  })();
  cache.set(path, p);
  p.catch(() => cache.delete(path));
  return p;
}

function showError(e) {
  const box = $('error');
  if (!e) { box.hidden = true; return; }
  box.textContent = String(e.message || e);
  box.hidden = false;
}

// --- the header: pickers and filters ---

let scopesReply = null, scopesFleet = null;

// The scopes of this host, or with fleet=1 those ClickHouse holds for the
// fleet (with its hosts).
const scopesPath = (s) => '/v1/scopes' + (s.fleet ? '?fleet=1' : '');

// Whether this profd ships to a fleet: the switch is shown only then.
let fleetStatus;
async function fleetConfigured() {
  if (fleetStatus === undefined)
    fleetStatus = await api('/v1/status').then((j) => j.fleet || null).catch(() => null);
  return fleetStatus;
}

function fillPickers(s, top) {
  const names = scopesReply.scopes.map((x) => x.name);
  const sel = $('scope');
  sel.replaceChildren(...names.map((n) => el('option', { value: n, selected: n === s.scope[0] }, n)));
  const add = $('scope-add');
  add.replaceChildren(el('option', { value: '' }, '+ scope'),
    ...names.filter((n) => !s.scope.includes(n)).map((n) => el('option', { value: n }, n)));
  $('scopes-extra').replaceChildren(...s.scope.slice(1).map((n) => el('span', { class: 'chip' }, '+ ' + n,
    el('button', { type: 'button', title: 'Leave out ' + n, onclick: () => go({ scope: s.scope.filter((x) => x !== n) }) }, '\u00d7'))));
  const metrics = new Map();
  for (const x of scopesReply.scopes)
    if (s.scope.includes(x.name))
      for (const m of x.metrics) metrics.set(m.type + '/' + m.unit, m);
  const cur = s.metric || (top && top.metric ? top.metric.type + '/' + top.metric.unit : '');
  $('metric').replaceChildren(...[...metrics.keys()].sort().map((k) => el('option', {
    value: k, selected: k === cur || k.split('/')[0] === cur }, k)));
  fillAggregate(s, top);
  const lab = $('label');
  if (document.activeElement !== lab) lab.value = s.label.join(', ');
  $('filters').replaceChildren(...FILTERS.filter((k) => s[k]).map((k) => el('span', { class: 'chip', 'data-filter': k },
    k + '=' + s[k], el('button', { type: 'button', title: 'Remove the ' + k + ' filter', onclick: () => go({ [k]: '' }) }, '\u00d7'))));
  if (s.profile.length)
    $('filters').append(el('span', { class: 'chip', 'data-filter': 'profile' }, 'profile ' + s.profile.join(', '),
      el('button', { type: 'button', title: 'Every profile of the scope', onclick: () => go({ profile: [] }) }, '\u00d7')));
  if (s.since || s.until)
    $('filters').append(el('span', { class: 'chip' }, 'window ' + (s.since || '…') + ' – ' + (s.until || '…'),
      el('button', { type: 'button', title: 'The whole range', onclick: () => go({ since: '', until: '' }) }, '\u00d7')));
  for (const b of document.querySelectorAll('#views button')) {
    b.classList.toggle('on', b.dataset.view === s.view);
    b.disabled = !!s.fleet && !FLEET_VIEWS.includes(b.dataset.view);
  }
  $('fleet').checked = !!s.fleet;
  $('hosts-l').hidden = !s.fleet;
  const hosts = $('hosts');
  if (document.activeElement !== hosts) hosts.value = s.host.join(', ');
  const known = (scopesReply.hosts || []).filter((h) => !s.host.includes(h));
  $('host-add').hidden = !s.fleet || !known.length;
  $('host-add').replaceChildren(el('option', { value: '' }, '+ host'), ...known.map((h) => el('option', { value: h }, h)));
  $('dl-pprof').hidden = !!s.fleet;
  $('side').checked = s.side;
  $('side-l').hidden = s.view !== 'flamegraph';
  $('colour').value = s.colour;
  $('flip').checked = s.flip;
  $('live').checked = s.live;
  const q = selQuery(s, false);
  const base = s.scope.join('+').replace(/[^A-Za-z0-9._+-]/g, '_');
  requestDownload($('dl-pprof'), '/v1/export?' + q, base + '.pb.gz');
  requestDownload($('dl-folded'), '/v1/tree?' + q + '&format=folded', base + '.folded');
  $('dl-svg').hidden = !(s.view === 'flamegraph' || s.view === 'diff');
  const search = $('search');
  if (document.activeElement !== search) search.value = s.search;
}

// "inuse_space (average of 13 profiles)": profctl's "Type:" line of a
// view's reply (a diff's: its current selection's profiles).
function typeLine(reply) {
  const m = reply.metric, how = AGGREGATE_WORDS[m.aggregate];
  const n = reply.profiles != null ? reply.profiles : reply.current ? reply.current.profiles : null;
  if (!how) return m.type;
  if (n == null) return m.type + ' (' + how + ')';
  return m.type + ' (' + how + ' of ' + n + ' profile' + (n === 1 ? '' : 's') + ')';
}

// The aggregate picker, its default named by what the view's reply used
// ("default (avg)"); that and the type line are said from a reply, and
// kept while the next one is asked.
function fillAggregate(s, reply) {
  const pick = $('aggregate');
  pick.value = s.aggregate;
  pick.title = 'How the window combines its profiles: ' + pick.selectedOptions[0].title;
  if (!reply || !reply.metric) return;
  const used = reply.metric.aggregate;
  pick.options[0].textContent = !s.aggregate && used ? 'default (' + used + ')' : 'default';
  $('agg-type').textContent = typeLine(reply);
}

// The label picker's choices: the sample labels of the selection's
// scopes, metric and window (not narrowed by the labels and frame filters
// in force, so that others can be added) from /v1/tags, and the push
// labels of the scopes' newest 20 profiles (which /v1/tags does not
// count), through read-only SQL over the documented views.
const labelChoices = new Map();

function labelsFor(s) {
  const q = new URLSearchParams();
  s.scope.forEach((v) => q.append('scope', v));
  for (const k of ['metric', 'since', 'until']) if (s[k]) q.set(k, s[k]);
  const key = q.toString();
  if (labelChoices.has(key)) return labelChoices.get(key);
  const tags = api('/v1/tags?' + q).then((j) => j.tags.flatMap((t) =>
    t.values.map((v) => t.key + '=' + (v.str != null ? v.str : String(v.num))))).catch(() => []);
  const list = s.scope.map((x) => "'" + x.replace(/'/g, "''") + "'").join(',');
  const sql = 'SELECT DISTINCT key, value FROM profile_labels WHERE profile_id IN (SELECT profile_id FROM profiles ' +
    'WHERE scope IN (' + list + ') ORDER BY time_ns DESC LIMIT 20) ORDER BY 1, 2';
  const pushed = request('/v1/query?max_rows=500&timeout_ms=3000', { method: 'POST', body: sql })
    .then((r) => (r.ok ? r.json() : { rows: [] }))
    .then((j) => (j.rows || []).filter((r) => r[1] != null).map((r) => r[0] + '=' + r[1]))
    .catch(() => []);
  const p = Promise.all([tags, pushed]).then(([a, b]) => [...new Set([...a, ...b])]);
  labelChoices.set(key, p);
  return p;
}

async function fillLabels(s) {
  const choices = s.fleet ? [] : await labelsFor(s);
  const add = $('label-add');
  add.replaceChildren(el('option', { value: '' }, choices.length ? '+ label' : '(no labels)'),
    ...choices.filter((c) => !s.label.includes(c)).map((c) => el('option', { value: c }, c)));
}

function wireHeader() {
  $('label-add').addEventListener('change', (e) => {
    if (e.target.value) go({ label: [...state().label, e.target.value] });
  });
  $('scope').addEventListener('change', (e) => go({ scope: [e.target.value], metric: '' }));
  $('scope-add').addEventListener('change', (e) => {
    if (e.target.value) go({ scope: [...state().scope, e.target.value] });
  });
  $('metric').addEventListener('change', (e) => go({ metric: e.target.value }));
  $('aggregate').addEventListener('change', (e) => go({ aggregate: e.target.value }));
  $('fleet').addEventListener('change', (e) => go({ fleet: e.target.checked, host: [], profile: [], 'base.profile': [] }));
  $('hosts').addEventListener('change', (e) => go({
    host: e.target.value.split(',').map((x) => x.trim()).filter((x) => x) }));
  $('host-add').addEventListener('change', (e) => {
    if (e.target.value) go({ host: [...state().host, e.target.value] });
  });
  $('label').addEventListener('change', (e) => go({
    label: e.target.value.split(',').map((x) => x.trim()).filter((x) => x) }));
  for (const b of document.querySelectorAll('#views button'))
    b.addEventListener('click', () => go({ view: b.dataset.view }));
  $('side').addEventListener('change', (e) => go({ side: e.target.checked }));
  $('colour').addEventListener('change', (e) => go({ colour: e.target.value === 'kind' ? 'kind' : '' }, true));
  $('flip').addEventListener('change', (e) => go({ flip: e.target.checked }, true));
  let t = null;
  $('search').addEventListener('input', (e) => {
    clearTimeout(t);
    t = setTimeout(() => go({ search: e.target.value }, true), 250);
  });
  $('search').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { clearTimeout(t); go({ search: e.target.value }); }
    if (e.key === 'Escape') { e.target.value = ''; go({ search: '' }); e.target.blur(); }
  });
  $('tl-all').addEventListener('click', () => go({ since: '', until: '' }));
  $('tl-prev').addEventListener('click', () => comparePrevious());
  $('live').addEventListener('change', (e) => go({ live: e.target.checked }, true));
  $('dl-svg').addEventListener('click', (e) => {
    e.preventDefault();
    const g = window.profdFlame;
    if (!g || !g.tree) return;
    const url = URL.createObjectURL(new Blob([g.toSVG(1200)], { type: 'image/svg+xml' }));
    const a = el('a', { href: url, download: state().scope.join('+') + '.svg' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  });
  document.addEventListener('keydown', (e) => {
    if (e.target.closest('input, select, textarea') || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === '/') { e.preventDefault(); $('search').focus(); }
    else if (e.key === 'f') go({ view: 'flamegraph' });
    else if (e.key === 't') go({ view: 'top' });
    else if (e.key === 's' && state().fn) go({ view: 'sandwich' });
    else if (e.key === 'p') go({ view: 'peek' });
    else if (e.key === 'F' && !$('fleet-l').hidden) go({ fleet: !state().fleet, host: [], profile: [] });
    else if (e.key === 'd') go({ view: 'diff' });
  });
  window.addEventListener('popstate', render);
}

// --- the refine menu ---

function menuClose() { $('menu').hidden = true; }

// pprof's refine menu for a function name: focus, ignore, hide, show,
// sandwich, peek, copy.
function menuOpen(name, ev) {
  const s = state();
  const re = '^' + reEscape(name) + '$';
  const join = (old) => (old ? old + '|' + re : re);
  const items = [
    ['Focus on ' + name, () => go({ focus: re })],
    ['Ignore ' + name, () => go({ ignore: join(s.ignore) })],
    ['Hide ' + name, () => go({ hide: join(s.hide) })],
    ['Show only ' + name, () => go({ show: join(s.show) })],
    ['Sandwich of ' + name, () => go({ view: 'sandwich', fn: name, zoom: '' })],
    ['Peek at ' + name, () => go({ view: 'peek', regex: re, zoom: '' })],
    ['Copy name', () => copy(name)],
  ];
  const m = $('menu');
  m.replaceChildren(...items.map(([label, fn]) => el('button', { type: 'button', role: 'menuitem',
    onclick: () => { menuClose(); fn(); } }, label)));
  m.hidden = false;
  const r = m.getBoundingClientRect();
  m.style.left = Math.min(ev.clientX, window.innerWidth - r.width - 4) + 'px';
  m.style.top = Math.min(ev.clientY, window.innerHeight - r.height - 4) + 'px';
  m.firstChild.focus();
}

// A table row naming a function: right-click (or the context-menu key, or
// Shift+F10) opens the refine menu, arrows move between such rows of its
// table, Enter does what a click does.
function menuRow(tr, name, onEnter) {
  tr.tabIndex = 0;
  tr.dataset.name = name;
  tr.addEventListener('contextmenu', (e) => { e.preventDefault(); menuOpen(name, e); });
  tr.addEventListener('keydown', (e) => {
    const rows = [...tr.closest('table').querySelectorAll('tr[data-name]')];
    const at = rows.indexOf(tr);
    if (e.key === 'ArrowDown' && at + 1 < rows.length) { rows[at + 1].focus(); e.preventDefault(); }
    else if (e.key === 'ArrowUp' && at > 0) { rows[at - 1].focus(); e.preventDefault(); }
    else if (e.key === 'Enter' && onEnter) onEnter();
    else if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
      const b = tr.getBoundingClientRect();
      menuOpen(name, { clientX: b.left + 40, clientY: b.bottom });
      e.preventDefault();
    }
  });
  return tr;
}

function copy(text) {
  if (navigator.clipboard && window.isSecureContext)
    return navigator.clipboard.writeText(text).catch(() => copyOld(text));
  return copyOld(text);
}

function copyOld(text) {
  const t = el('textarea', {}, text);
  document.body.append(t);
  t.select();
  document.execCommand('copy');
  t.remove();
}

function wireMenu() {
  document.addEventListener('click', (e) => { if (!e.target.closest('#menu')) menuClose(); });
  $('menu').addEventListener('keydown', (e) => {
    const items = [...$('menu').children], at = items.indexOf(document.activeElement);
    if (e.key === 'Escape') { menuClose(); e.preventDefault(); }
    else if (e.key === 'ArrowDown') { items[(at + 1) % items.length].focus(); e.preventDefault(); }
    else if (e.key === 'ArrowUp') { items[(at + items.length - 1) % items.length].focus(); e.preventDefault(); }
  });
}

// --- the timeline ---

let timeline = null;

// A since/until value in ns: RFC 3339 or relative to now (-15m).
function timeNs(v, end) {
  if (!v) return end ? Infinity : -Infinity;
  const m = /^-(\d+)(s|m|h|d)$/.exec(v);
  if (m) return Date.now() * 1e6 - Number(m[1]) * { s: 1e9, m: 60e9, h: 3600e9, d: 86400e9 }[m[2]];
  const d = Date.parse(v);
  return isNaN(d) ? (end ? Infinity : -Infinity) : d * 1e6;
}

let timelineStep = 1e9;

async function drawTimeline(s, seq) {
  const q = selQuery(s, true);
  const j = await api('/v1/timeline?' + q);
  if (stale(seq)) return;
  const t = timeNs;
  const win = s.since || s.until ? [t(s.since, false), t(s.until, true)] : null;
  timelineStep = (j.step_s || 1) * 1e9;
  timeline.set(j.points || [], (j.step_s || 1) * 1e9, win);
  const p = j.points || [];
  $('tl-range').textContent = p.length ? iso(p[0].time_ns) + ' – ' + iso(p[p.length - 1].time_ns) +
    ' (step ' + j.step_s + ' s, total ' + Units.label(j.total, j.unit) + ')' : 'no samples';
  $('tl-all').hidden = !win;
  $('tl-prev').hidden = !(win && isFinite(win[0]) && isFinite(win[1]));
}

// The window in force against the one of the same length just before it.
function comparePrevious() {
  const s = state();
  const a = timeNs(s.since, false), b = timeNs(s.until, true);
  if (!isFinite(a) || !isFinite(b)) return;
  const span = b - a + timelineStep;
  go({ view: 'diff', 'base.scope': s.scope, 'base.label': s.label, 'base.profile': [],
    'base.since': iso(a - span), 'base.until': iso(a - timelineStep) });
}

// --- what the views share ---

// Keyboard focus stays with the view it was in across a redraw.
function hadFocus(sel) {
  const a = document.activeElement;
  return !!(a && a.closest && a.closest(sel));
}

// A render overtaken by a newer one (a click before the replies came)
// draws nothing.
let renderSeq = 0;
const stale = (seq) => seq !== renderSeq;

// --- pushing files: dropped on the page or picked ---

function notice(text) {
  const n = $('notice');
  n.textContent = text;
  n.hidden = !text;
}

async function pushAndOpen(files) {
  const input = $('push-scope');
  const scope = input.value.trim() || 'adhoc';
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(scope) || scope === '.' || scope === '..') {
    notice('push: "' + scope + '" is not a scope name ([A-Za-z0-9._-], at most 128)');
    return;
  }
  if (!files.length) return;
  const ids = await pushFiles([...files], scope, $('notice'));
  scopesReply = null;
  cache.clear();
  labelChoices.clear();
  flameForget();
  if (!ids.length) { render(); return; }
  go({ scope: [scope], profile: ids.map(String), metric: '', aggregate: '', since: '', until: '', label: [],
    focus: '', ignore: '', hide: '', show: '', zoom: '', search: '', fn: '', view: 'flamegraph' });
}

function wirePush() {
  $('file').addEventListener('change', (e) => {
    const files = [...e.target.files];
    e.target.value = '';
    pushAndOpen(files);
  });
  $('push-scope').addEventListener('input', (e) => { $('drop-scope').textContent = e.target.value || 'adhoc'; });
  let depth = 0;
  const zone = $('dropzone');
  const files = (e) => e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  window.addEventListener('dragenter', (e) => { if (files(e)) { depth++; zone.hidden = false; e.preventDefault(); } });
  window.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; zone.hidden = true; } });
  window.addEventListener('dragover', (e) => { if (files(e)) e.preventDefault(); });
  window.addEventListener('drop', (e) => {
    depth = 0;
    zone.hidden = true;
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    pushAndOpen(e.dataTransfer.files);
  });
}

function viewScopes(main, s) {
  $('pickers').hidden = $('views').hidden = $('refine').hidden = $('timeline').hidden = true;
  const sc = scopesReply.scopes;
  const link = (name) => '?' + (s.fleet ? 'fleet=1&' : '') + 'scope=' + encodeURIComponent(name);
  if (s.fleet && !sc.length) {
    main.replaceChildren(el('p', { class: 'note' }, 'No profile has reached the fleet yet (profctl status shows the shipping lag).'));
    return;
  }
  if (!sc.length) {
    main.replaceChildren(el('p', { class: 'note' }, 'No profiles yet: drop a pprof, Perfetto or folded file here, ' +
      'pick one with "file…", or push one with profctl push.'));
    return;
  }
  const t = el('table', { id: 'scopes' }, el('tr', {}, el('th', {}, 'scope'), el('th', { class: 'num' }, 'profiles'),
    el('th', {}, 'metrics'), el('th', {}, 'first'), el('th', {}, 'last')));
  for (const x of sc)
    t.append(el('tr', {}, el('td', {}, el('a', { href: link(x.name) }, x.name)),
      el('td', { class: 'num' }, String(x.profiles)),
      el('td', {}, x.metrics.map((m) => m.type + '/' + m.unit).join(' ')),
      el('td', {}, x.first_time || ''), el('td', {}, x.last_time || '')));
  main.replaceChildren(el('h2', {}, s.fleet ? 'Scopes of the fleet' : 'Scopes'), t);
  if (s.fleet && scopesReply.hosts)
    main.append(el('p', { class: 'note', id: 'fleet-hosts' }, scopesReply.hosts.length + ' host' +
      (scopesReply.hosts.length === 1 ? '' : 's') + ': ' + scopesReply.hosts.join(', ')));
}

async function render() {
  const seq = ++renderSeq;
  const s = state();
  const main = $('main');
  main.classList.remove('side');
  menuClose();
  showError(null);
  $('tooltip').hidden = true;
  try {
    const fleet = await fleetConfigured();
    $('fleet-l').hidden = !fleet;
    $('fleet-l').title = fleet ? 'Every host shipping to ' + fleet.url + ' (ClickHouse), not only this one (F)' : '';
    if (!scopesReply || scopesFleet !== s.fleet) {
      scopesReply = await api(scopesPath(s));
      scopesFleet = s.fleet;
    }
    if (stale(seq)) return;
    document.body.classList.toggle('fleet', !!s.fleet);
    if (!s.scope.length) {
      document.title = s.fleet ? 'profd · fleet' : 'profd';
      viewScopes(main, s);
      document.body.dataset.ready = location.search;
      return;
    }
    $('pickers').hidden = $('views').hidden = $('refine').hidden = $('timeline').hidden = false;
    document.title = s.scope.join('+') + ' · ' + s.view + (s.fleet ? ' · fleet' : '') + ' · profd';
    fillPickers(s, null);
    fillLabels(s);
    const q = selQuery(s, false);
    const tl = drawTimeline(s, seq).catch((e) => showError(e));
    if (s.view === 'top') await viewTop(main, s, q, seq);
    else if (s.view === 'sandwich') await viewSandwich(main, s, q, seq);
    else if (s.view === 'diff') await viewDiff(main, s, q, seq);
    else if (s.view === 'peek') await viewPeek(main, s, q, seq);
    else if (s.view === 'traces') await viewTraces(main, s, q, seq);
    else if (s.view === 'tags') await viewTags(main, s, q, seq);
    else await viewFlame(main, s, q, seq);
    await tl;
    if (seq === renderSeq) document.body.dataset.ready = location.search;
  } catch (e) {
    if (seq !== renderSeq) return;
    showError(e);
    $('agg-type').textContent = '';
    main.replaceChildren();
    document.body.dataset.ready = location.search;
  }
}

// Live: while the URL says live=1, the scopes are asked every LIVE_MS; a
// selected scope with new profiles redraws the views from fresh replies
// (the page is not reloaded).
function liveKey(reply, scopes) {
  return reply.scopes.filter((x) => scopes.includes(x.name))
    .map((x) => x.name + ':' + x.profiles + ':' + x.last_time_ns).join(',');
}

async function livePoll() {
  const s = state();
  if (!s.live || !s.scope.length || document.hidden) return;
  try {
    const r = await request(scopesPath(s));
    if (!r.ok) return;
    const j = await r.json();
    const key = liveKey(j, s.scope);
    if (scopesReply && key !== liveKey(scopesReply, s.scope)) {
      scopesReply = j;
      cache.clear();
      labelChoices.clear();
      flameForget();
      await render();
      window.profdLiveUpdates = (window.profdLiveUpdates || 0) + 1;
    }
  } catch (e) { /* the next poll tries again */ }
}

window.addEventListener('DOMContentLoaded', () => {
  setInterval(livePoll, LIVE_MS);
  timeline = new Timeline({
    canvas: $('tl'),
    onBrush: (t0, t1) => go({ since: iso(t0), until: iso(t1) }),
    onClear: () => go({ since: '', until: '' }),
    onHover: (p) => { $('tl').title = iso(p.time_ns) + ': ' + p.value; },
  });
  wireHeader();
  wireMenu();
  wirePush();
  render();
});
