// push.js: a file dropped on the page (or picked) is pushed to profd as
// profctl push does it: in one request, or above 32 MiB as a chunked
// upload of 8 MiB pieces; the reply is said as profctl push says it.
// Each file's progress shows in its row (progress.js).
'use strict';

const PUSH_CHUNKED_OVER = 32 << 20;
const PUSH_CHUNK = 8 << 20;

// One request of a push; its reply's JSON, or an error saying what profd
// said.  onSent follows the body's sending (requestSend).
async function pushRequest(method, path, body, onSent) {
  const r = await requestSend(method, path, body, onSent);
  let j = null;
  try { j = JSON.parse(r.text); } catch (e) { /* not JSON */ }
  if (!r.ok)
    throw new Error(j && j.error ? j.error + ': ' + (j.detail || '') : 'HTTP ' + r.status + ' ' + r.text.slice(0, 200));
  return j;
}

// profctl push's line for a reply: "NAME: stored as profile 7 (1053
// samples, 745 dropped; reason=n ...)".
function pushSays(name, j) {
  let dropped = '';
  const d = j.dropped || {};
  if (Object.keys(d).length) {
    dropped = ', ' + j.dropped_samples + ' dropped;';
    for (const [k, v] of Object.entries(d)) dropped += ' ' + k + '=' + v;
  }
  if (j.duplicate)
    return name + ': already stored as profile ' + j.profile_id + (dropped ? ' (' + dropped.slice(2) + ')' : '');
  return name + ': stored as profile ' + j.profile_id + ' (' + j.samples + ' samples' + dropped + ')';
}

// Push one File to scope, its progress shown in row; the reply.  The
// bar follows the file's bytes as they go, then the import (polled from
// /v1/status while the request that imports is pending).
async function pushFile(file, scope, row) {
  const q = new URLSearchParams({ scope, name: file.name });
  const t0 = performance.now();
  let base = 0;
  // Bytes of this request's body sent → the file's, with the rate so far.
  const sent = (n) => {
    const all = Math.min(base + n, file.size), s = (performance.now() - t0) / 1000;
    row.sending(all, file.size, s > 0.2 ? all / s : 0);
  };
  const importing = async (body, onSent) => {
    let stop = body ? null : progressWatch(row, scope, file.name);
    try {
      return await pushRequest('POST', '/v1/profiles?' + q, body, body && ((n, total) => {
        onSent(n);
        if (!stop && total > 0 && n >= total) stop = progressWatch(row, scope, file.name);
      }));
    } finally {
      if (stop) stop();
    }
  };
  row.sending(0, file.size, 0);
  if (file.size <= PUSH_CHUNKED_OVER)
    return importing(file, sent);
  const up = await pushRequest('POST', '/v1/uploads', '');
  for (let off = 0; off < file.size; off += PUSH_CHUNK) {
    base = off;
    await pushRequest('PUT', '/v1/uploads?' + new URLSearchParams({ id: up.upload_id, offset: off }),
      file.slice(off, off + PUSH_CHUNK), sent);
  }
  q.set('upload', up.upload_id);
  return importing('', null);
}

// Push files one after the other, each with its row in box; the ids stored.
async function pushFiles(files, scope, box) {
  const ids = [];
  box.replaceChildren();
  for (const f of files) {
    const row = progressRow(box, f.name);
    try {
      const j = await pushFile(f, scope, row);
      row.done(pushSays(f.name, j));
      ids.push(j.profile_id);
    } catch (e) {
      row.fail(f.name + ': ' + e.message);
    }
  }
  return ids;
}
