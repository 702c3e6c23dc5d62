// push.js: a file dropped on the page (or picked) is pushed to profd as
// profctl push does it: in one request, or above 32 MiB as a chunked
// upload of 8 MiB pieces; the reply is said as profctl push says it.
'use strict';

const PUSH_CHUNKED_OVER = 32 << 20;
const PUSH_CHUNK = 8 << 20;

async function pushRequest(method, path, body) {
  const r = await request(path, { method, body });
  const text = await r.text();
  let j = null;
  try { j = JSON.parse(text); } catch (e) { /* not JSON */ }
  if (!r.ok)
    throw new Error(j && j.error ? j.error + ': ' + (j.detail || '') : 'HTTP ' + r.status + ' ' + text.slice(0, 200));
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

// Push one File to scope; the reply.
async function pushFile(file, scope) {
  const q = new URLSearchParams({ scope, name: file.name });
  if (file.size <= PUSH_CHUNKED_OVER)
    return pushRequest('POST', '/v1/profiles?' + q, file);
  const up = await pushRequest('POST', '/v1/uploads', '');
  for (let off = 0; off < file.size; off += PUSH_CHUNK)
    await pushRequest('PUT', '/v1/uploads?' + new URLSearchParams({ id: up.upload_id, offset: off }),
      file.slice(off, off + PUSH_CHUNK));
  q.set('upload', up.upload_id);
  return pushRequest('POST', '/v1/profiles?' + q, '');
}

// Push files one after the other, saying each as it goes; the ids stored.
async function pushFiles(files, scope, say) {
  const ids = [], lines = [];
  for (const f of files) {
    say(lines.concat(f.name + ': pushing ' + f.size + ' bytes to ' + scope + '…').join('\n'));
    try {
      const j = await pushFile(f, scope);
      lines.push(pushSays(f.name, j));
      ids.push(j.profile_id);
    } catch (e) {
      lines.push(f.name + ': ' + e.message);
    }
    say(lines.join('\n'));
  }
  return ids;
}
