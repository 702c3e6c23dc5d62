// request.js: every call the page makes to the API.  Each carries the
// header X-Profd-UI, and through profctl web its token in X-Profd-Token:
// a page of another origin cannot add either without a CORS preflight,
// which neither profd nor profctl web grants, so it can neither write
// through the socket's forward nor call profctl web at all
// (docs/SECURITY.md).  Pushes go through requestSend (XMLHttpRequest, for
// the upload's progress) with the same headers.  The token comes in the
// URL profctl web printed (its redirect moves it to the fragment, which no server is sent) and is
// kept in this origin's localStorage, which a page on another port cannot
// read, unlike a cookie.  Downloads are fetched with the headers too, then
// handed to the browser as a blob: a plain link could not carry them.
'use strict';

const REQUEST_TOKEN_KEY = 'profd-token';

(() => {
  const frag = new URLSearchParams(location.hash.slice(1));
  const q = new URLSearchParams(location.search);
  const t = frag.get('token') || q.get('token');
  if (!t) return;
  try { localStorage.setItem(REQUEST_TOKEN_KEY, t); } catch (e) { /* storage off: this page only */ }
  window.profdToken = t;
  q.delete('token');
  history.replaceState(null, '', location.pathname + (q.toString() ? '?' + q : ''));
})();

function requestToken() {
  if (window.profdToken) return window.profdToken;
  try { return localStorage.getItem(REQUEST_TOKEN_KEY); } catch (e) { return null; }
}

// The headers every call carries, over extra.
function requestHeaders(extra) {
  const headers = Object.assign({}, extra || {}, { 'X-Profd-UI': '1' });
  const t = requestToken();
  if (t) headers['X-Profd-Token'] = t;
  return headers;
}

function request(path, opts = {}) {
  return fetch(path, Object.assign({}, opts, { headers: requestHeaders(opts.headers), credentials: 'same-origin' }));
}

// A call whose body's sending is followed: fetch cannot say how much of a
// body has gone, XMLHttpRequest can.  onSent(bytes sent, bytes in all) as
// the body goes; resolves to { ok, status, text } once the reply is in.
function requestSend(method, path, body, onSent) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open(method, path);
    for (const [k, v] of Object.entries(requestHeaders())) x.setRequestHeader(k, v);
    if (onSent) {
      x.upload.onprogress = (e) => onSent(e.loaded, e.lengthComputable ? e.total : 0);
      x.upload.onload = (e) => onSent(e.loaded, e.loaded);
    }
    x.onload = () => resolve({ ok: x.status >= 200 && x.status < 300, status: x.status, text: x.responseText });
    x.onerror = () => reject(new Error(method + ' ' + path.split('?')[0] + ': the connection failed'));
    x.onabort = () => reject(new Error(method + ' ' + path.split('?')[0] + ': aborted'));
    x.send(body);
  });
}

// A link that downloads path as name, fetched by request() on click.
function requestDownload(a, path, name) {
  a.href = '#';
  a.removeAttribute('download');
  a.onclick = async (ev) => {
    ev.preventDefault();
    try {
      const r = await request(path);
      if (!r.ok) throw new Error('HTTP ' + r.status + ' ' + (await r.text()).slice(0, 200));
      const url = URL.createObjectURL(await r.blob());
      const tmp = document.createElement('a');
      tmp.href = url;
      tmp.download = name;
      document.body.appendChild(tmp);
      tmp.click();
      tmp.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (e) {
      if (typeof showError === 'function') showError(e);
    }
  };
}
