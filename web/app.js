// app.js: profd's browser UI.  Talks to the API of the origin it was
// loaded from (/v1/...): profd's socket, or profctl web's proxy.
'use strict';

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

async function api(path) {
  const r = await fetch(path, { credentials: 'same-origin' });
  const text = await r.text();
  let j = null;
  try { j = JSON.parse(text); } catch (e) { /* not JSON */ }
  if (!r.ok)
    throw new Error(j && j.detail ? j.error + ': ' + j.detail : r.status + ' ' + text);
  return j;
}

async function showScopes(main) {
  const j = await api('/v1/scopes');
  main.replaceChildren();
  if (j.scopes.length === 0) {
    main.append(el('p', { class: 'note' }, 'No profiles yet.'));
    return;
  }
  const t = el('table', { id: 'scopes' }, el('tr', {},
    el('th', {}, 'scope'), el('th', { class: 'num' }, 'profiles'),
    el('th', {}, 'metrics'), el('th', {}, 'first'), el('th', {}, 'last')));
  for (const s of j.scopes)
    t.append(el('tr', {}, el('td', {}, s.name),
      el('td', { class: 'num' }, String(s.profiles)),
      el('td', {}, s.metrics.map((m) => m.type + '/' + m.unit).join(' ')),
      el('td', {}, s.first_time || ''), el('td', {}, s.last_time || '')));
  main.append(t);
}

window.addEventListener('DOMContentLoaded', () => {
  const main = document.getElementById('main');
  showScopes(main).catch((e) => {
    main.replaceChildren(el('p', { class: 'error' }, String(e.message)));
  });
});
