// ui_progress.js: a large file dropped on profd's page (through profctl
// web) shows a <progress> bar that moves through the upload and then the
// import, before the result line; a file profd refuses shows its error in
// place of the bar; a file behind another import says it waits.  Drives
// headless Chromium with playwright-core.
//
// usage: node ui_progress.js URL BIG CLI_LINE DB
//   URL       the URL profctl web printed (with the token)
//   BIG       a pprof over 32 MiB (a chunked upload), pushed to scope web
//   CLI_LINE  what `profctl push BIG` printed for it (into another scope)
//   DB        profd's database: its write lock is held (python3's sqlite3)
//             from before the push until the page says it imports, so
//             that the import is seen however fast it runs; and while a
//             profctl push ($PROFCTL) imports, for the wait behind it
//   SHOT      a PNG of the page while the import is held
// Prints one "ok: ..." line per check; exits 1 on the first failure.
// PLAYWRIGHT_DIR names the node_modules' parent; CHROMIUM the browser.
'use strict';

const fs = require('fs');
const path = require('path');
const { launch, fail, ok, ready, watch } = require('./browser.js');

const { spawn } = require('child_process');

const [url, big, cliLine, db, shot] = process.argv.slice(2);
const origin = new URL(url).origin;
// A name that would run as script were it ever put in as HTML.
const BAD_NAME = '<img src=x onerror="window.pwned=1">.bin';

// In the page: every change of the notice as it happens (a
// MutationObserver on it, not a sample at an interval, which a short
// state falls between on a busy machine): after each change, the bar's
// value and max (null when indeterminate), the label beside it and the
// notice's text; and whether a <progress> was among the nodes added,
// however soon it went again.
function record() {
  window.progressSeen = [];
  const n = document.getElementById('notice');
  const snap = (added) => {
    const bar = n.querySelector('progress');
    const label = n.querySelector('.progress-label');
    window.progressSeen.push({
      bar: !!bar || added,
      value: bar && bar.hasAttribute('value') ? bar.value : null,
      max: bar ? bar.max : null,
      label: label ? label.textContent : '',
      text: n.textContent,
    });
  };
  window.progressObserver = new MutationObserver((records) => {
    const added = records.some((r) => [...r.addedNodes].some((a) =>
      a.nodeName === 'PROGRESS' || (a.querySelector && a.querySelector('progress'))));
    snap(added);
  });
  window.progressObserver.observe(n, { subtree: true, childList: true, attributes: true, characterData: true });
  snap(false);
}

async function recorded(page) {
  return page.evaluate(() => { window.progressObserver.disconnect(); return window.progressSeen; });
}

// Random bytes, the same each run: no format profd knows.
function junk(n) {
  const b = Buffer.alloc(n);
  let x = 2463534242;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    b[i] = x & 255;
  }
  return b;
}

// Drop file on the page as a user drags it there: the File made by a
// scratch file input of the test's (not the page's own, which would push
// it), then dragenter, dragover and drop on the page with a DataTransfer
// holding it, as the browser fires them; the dropzone must show between.
async function drop(page, file) {
  await page.evaluate(() => {
    const i = document.createElement('input');
    i.type = 'file';
    i.id = 'test-drop-source';
    i.hidden = true;
    document.body.append(i);
  });
  await page.locator('#test-drop-source').setInputFiles(file);
  const shown = await page.evaluate(() => {
    const src = document.getElementById('test-drop-source');
    const dt = new DataTransfer();
    dt.items.add(src.files[0]);
    src.remove();
    const fire = (type) => document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    fire('dragenter');
    fire('dragover');
    const zone = !document.getElementById('dropzone').hidden;
    fire('drop');
    return zone && document.getElementById('dropzone').hidden;
  });
  if (!shown) fail('the dropzone did not show while the file was dragged over, or stayed');
}

// The store's write lock, taken by a python3 process; resolves to a
// function that lets it go (the import waits for it up to SQLite's busy
// timeout, 5 s).
function holdStore() {
  const py = spawn('python3', ['-c', 'import sqlite3, sys\n' +
    'c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)\n' +
    'c.execute("BEGIN IMMEDIATE")\nprint("held", flush=True)\nsys.stdin.read()\nc.rollback()\n', db],
  { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    py.on('error', reject);
    py.on('exit', (code) => reject(new Error('the lock holder exited: ' + code)));
    py.stdout.once('data', () => resolve(() => new Promise((done) => {
      py.removeAllListeners('exit');
      py.on('exit', done);
      py.stdin.end();
    })));
  });
}

(async () => {
  const browser = await launch();
  const errors = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
    watch(page, origin, errors);
    const puts = [];
    page.on('request', (r) => { if (r.url().includes('/v1/uploads')) puts.push(r.method()); });
    await page.goto(url);
    await ready(page);

    // The large file, dropped on the page: upload, import, result, each in
    // its turn.
    await page.locator('#push-scope').fill('web');
    await page.evaluate(record);
    const release = await holdStore();
    await drop(page, big);
    await page.waitForFunction(() => /^importing /.test((document.querySelector('#notice .progress-label') || {}).textContent),
      null, { timeout: 30000 }).catch(async (e) => {
      await release();
      fail('no import shown while it was held: "' + await page.locator('#notice').textContent() + '"');
    });
    const held = await page.locator('#notice .progress-label').textContent();
    await page.screenshot({ path: shot });
    await release();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('scope') === 'web' &&
      document.body.dataset.ready === location.search, null, { timeout: 60000 }).catch(async (e) => {
      const s = await recorded(page);
      fail('the page did not open the pushed file: ' + e.message.split('\n')[0] + '; it says "' +
        await page.locator('#notice').textContent() + '"; labels: ' + [...new Set(s.map((x) => x.label))].join(' | '));
    });
    const seen = await recorded(page);
    const said = await page.locator('#notice').textContent();
    const id = new URL(page.url()).searchParams.get('profile');
    const want = cliLine.replace(/stored as profile \d+/, 'stored as profile ' + id);
    if (said !== want) fail('the page says "' + said + '", profctl push said "' + cliLine + '"');
    ok('result line as profctl push says it: "' + said + '"');

    const size = fs.statSync(big).size, chunks = Math.ceil(size / (8 << 20));
    if (puts[0] !== 'POST' || puts.filter((m) => m === 'PUT').length !== chunks)
      fail('not a chunked upload of ' + chunks + ' pieces: ' + puts);
    const bars = seen.filter((s) => s.bar);
    const values = new Set(bars.filter((s) => s.value !== null).map((s) => s.value + '/' + s.max));
    if (values.size < 3) fail('the bar took ' + values.size + ' values: ' + [...values]);
    for (const s of bars)
      if (s.value !== null && !(s.value >= 0 && s.value <= s.max)) fail('the bar at ' + s.value + ' of ' + s.max);
    const up = bars.filter((s) => /^uploading [0-9.]+ of [0-9.]+ MB/.test(s.label));
    const upMax = (size / 1e6).toFixed(1);
    if (!up.length || !up.every((s) => s.max === size && s.label.includes(' of ' + upMax + ' MB')))
      fail('no upload of ' + size + ' bytes shown: ' + JSON.stringify(up.slice(0, 3)));
    const firstImport = seen.findIndex((s) => /^importing /.test(s.label));
    const firstResult = seen.findIndex((s) => /stored as profile/.test(s.text));
    if (firstImport < 0) fail('the import never showed; labels: ' + [...new Set(seen.map((s) => s.label))].join(' | '));
    if (firstResult >= 0 && firstResult < firstImport) fail('the result came before the import showed');
    if (firstImport < seen.findIndex((s) => /^uploading /.test(s.label))) fail('the import showed before the upload');
    const imp = seen[firstImport];
    if (!/^importing [0-9.]+( [kM])? of [0-9.]+( [kM])? samples|^importing [0-9.]+ of [0-9.]+ MB/.test(imp.label))
      fail('the import label: "' + imp.label + '"');
    // The import's bar measures its samples: all of them in all.
    const n = +/\((\d+) samples/.exec(cliLine)[1];
    const total = n < 1e6 ? (n / 1e3).toFixed(1) + ' k' : (n / 1e6).toFixed(1) + ' M';
    const samples = bars.filter((s) => /^importing .* samples$/.test(s.label));
    if (!samples.every((s) => s.max === n && s.label.endsWith(' of ' + total + ' samples')))
      fail('the import not shown over ' + n + ' samples: ' + JSON.stringify(samples.slice(0, 3)));
    if (!/^importing 0\.0 of [0-9.]+ MB$|^importing 0 of [0-9.]+ [kM] samples$/.test(held))
      fail('the held import says "' + held + '"');
    if (seen[seen.length - 1].bar) fail('a bar left after the result');
    const labels = [...new Set(seen.map((s) => s.label).filter((l) => l))];
    ok('the bar took ' + values.size + ' values over ' + seen.length + ' changes of the notice; labels from "' +
      labels[0] + '" through "' + held + '" (held) to "' + labels[labels.length - 1] + '"; ' +
      samples.length + ' of the samples over the import\'s ' + n + ' samples');

    const nodes = await page.evaluate(() => window.profdFlame.tree.n);
    if (nodes < 100) fail('the pushed profile opens with ' + nodes + ' nodes');
    ok('profile ' + id + ' opened: ' + nodes + ' nodes in the flame graph');

    // A file profd refuses: the error where the bar was, no bar left, the
    // name as text.
    await page.evaluate(record);
    await page.locator('#file').setInputFiles({ name: BAD_NAME, mimeType: 'application/octet-stream', buffer: junk(300000) });
    await page.waitForFunction(() => document.querySelector('#notice .progress-row.error'), null, { timeout: 30000 });
    const bad = await recorded(page);
    const row = await page.locator('#notice .progress-row.error').textContent();
    if (await page.locator('#notice progress').count()) fail('a bar left beside the error');
    if (!row.startsWith(BAD_NAME + ': ') || row.length <= BAD_NAME.length + 2)
      fail('the error row: "' + row + '"');
    if (await page.evaluate(() => window.pwned) !== undefined || await page.locator('#notice img').count())
      fail('the file name ran as HTML');
    if (!bad.some((s) => s.bar)) fail('no bar while the bad file went');
    ok('a refused file: "' + row + '" in place of its bar');
    if (/stored as profile/.test(await page.locator('#notice').textContent())) fail('the old result left');

    // Behind another import (profctl push's, held by the store's lock): the
    // page waits, and says so, with the queue.  The held push waits for
    // the lock for SQLite's busy timeout (5 s): where the page took longer
    // to show its wait (a sanitizer build on a loaded machine), that push
    // failed busy and the round is tried again, up to 5 rounds.
    let waiting = null, indeterminate = false, mine = '', retried = false;
    for (let round = 1; round <= 5 && waiting === null; round++) {
      mine = 'mine' + round + '.folded';
      const unlock = await holdStore();
      const otherFile = path.join(path.dirname(db), 'other' + round + '.folded');
      fs.writeFileSync(otherFile, 'main;other' + round + ' 5\n');
      const other = spawn(process.env.PROFCTL, ['push', otherFile, '--scope', 'other'], { stdio: ['ignore', 'ignore', 'inherit'] });
      const otherExit = new Promise((done) => other.on('exit', done));
      await page.waitForFunction(async () => {
        const r = await request('/v1/status');
        const j = await r.json();
        return j.importing && j.importing.scope === 'other';
      }, null, { timeout: 30000, polling: 50 }).catch(async (e) => { await unlock(); fail('profctl push not held: ' + e.message); });
      await page.locator('#file').setInputFiles({ name: mine, mimeType: 'text/plain', buffer: Buffer.from('main;mine' + round + ' 7\n') });
      const shown = await page.waitForFunction(() => /^waiting to import/.test((document.querySelector('#notice .progress-label') || {}).textContent),
        null, { timeout: 30000 }).then(() => true, () => false);
      const label = shown ? await page.locator('#notice .progress-label').textContent() : null;
      indeterminate = shown && await page.evaluate(() => !document.querySelector('#notice progress').hasAttribute('value'));
      await unlock();
      const code = await otherExit;
      // Whatever happened, the page's push ends: stored, or refused busy.
      await page.waitForFunction((name) => document.getElementById('notice').textContent.startsWith(name + ': ') &&
        !document.querySelector('#notice progress'), mine, { timeout: 60000 });
      if (shown && code === 0) {
        waiting = label;
        break;
      }
      retried = true;
      console.log('round ' + round + ': ' + (code !== 0 ? 'the held push ran out of the busy timeout' :
        'no wait shown') + ' (' + await page.locator('#notice').textContent() + '); again');
    }
    if (waiting === null) fail('no wait behind a held import shown in 5 rounds');
    if (waiting !== 'waiting to import (1 queued, another importing)' || !indeterminate)
      fail('waiting: "' + waiting + '", bar indeterminate: ' + indeterminate);
    const done = await page.locator('#notice').textContent();
    if (!new RegExp('^' + mine.replace('.', '\\.') + ': stored as profile \\d+ \\(1 samples\\)$').test(done))
      fail('after the wait: "' + done + '"');
    ok('behind another import: "' + waiting + '" (bar indeterminate), then "' + done + '"');

    // profd's refusal is logged by Chromium as a failed load: expected.
    // So is a round's 503 (busy), when one was tried again.
    const rest = errors.filter((e) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(e) &&
      !(retried && /Failed to load resource: the server responded with a status of 503/.test(e)));
    if (rest.length) fail(rest.join('; '));
    ok('no console errors, no request outside the origin');
  } finally {
    await browser.close();
  }
})().catch((e) => fail(String(e && e.stack || e)));
