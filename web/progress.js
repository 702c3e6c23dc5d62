// progress.js: what a push shows while it goes, one row per file under the
// header: a <progress> bar and a line beside it saying what the bar
// measures (the upload's bytes and rate, then the import's samples or
// bytes as GET /v1/status reports them), replaced by the result line or
// the error when the push ends.  Names and errors go in as text nodes only:
// nothing a file's name holds can run.
'use strict';

const PROGRESS_POLL_MS = 300;

const progressMB = (n) => (n / 1e6).toFixed(1);

// 3400000 → "3.4 M", as profctl push's progress line says counts.
function progressCount(n) {
  if (n < 1e3) return String(n);
  if (n < 1e6) return (n / 1e3).toFixed(1) + ' k';
  if (n < 1e9) return (n / 1e6).toFixed(1) + ' M';
  return (n / 1e9).toFixed(1) + ' G';
}

// A row for file name in box (the #notice element); its methods say the
// push's state.
function progressRow(box, name) {
  const bar = document.createElement('progress');
  const label = document.createElement('span');
  label.className = 'progress-label';
  const row = document.createElement('div');
  row.className = 'progress-row';
  row.append(name + ': ', bar, ' ', label);
  box.append(row);
  box.hidden = false;
  // value and max of the bar, or none: a bar without a value is
  // indeterminate (moving, no fraction).
  const set = (value, max, text) => {
    if (max > 0) {
      bar.max = max;
      bar.value = Math.min(value, max);
    } else {
      bar.removeAttribute('value');
    }
    label.textContent = text;
  };
  const end = (text, cls) => {
    row.replaceChildren(text);
    if (cls) row.classList.add(cls);
  };
  return {
    sending(sent, total, rate) {
      set(sent, total, 'uploading ' + progressMB(sent) + ' of ' + progressMB(total) + ' MB' +
        (rate > 0 ? ', ' + progressMB(rate) + ' MB/s' : ''));
    },
    waiting(queued, other) {
      set(0, 0, 'waiting to import (' + queued + ' queued' + (other ? ', another importing' : '') + ')');
    },
    // imp: /v1/status's importing, when it is this file's import.  As
    // profctl push says it: samples where the decoder knew them ahead
    // (pprof), else bytes of the input (inflated where known); storing
    // has no measure.
    importing(imp) {
      const sd = imp.samples_done || 0, bd = imp.bytes_done || 0;
      if (imp.phase === 'storing')
        set(0, 0, 'storing ' + progressCount(sd) + ' samples');
      else if (imp.phase === 'samples' && imp.samples_total > 0)
        set(sd, imp.samples_total, 'importing ' + progressCount(sd) + ' of ' +
          progressCount(imp.samples_total) + ' samples');
      else if (imp.bytes_total > 0)
        set(bd, imp.bytes_total, 'importing ' + progressMB(bd) + ' of ' + progressMB(imp.bytes_total) + ' MB');
      else
        set(0, 0, 'importing ' + progressMB(bd) + ' MB');
    },
    done(text) { end(text, ''); },
    fail(text) { end(text, 'error'); },
  };
}

// Polls GET /v1/status every PROGRESS_POLL_MS while an import the page
// asked for is pending, and shows in row how far it is: this file's
// import (by source, scope and name) or the wait for it.  The function it
// returns stops the polling.
function progressWatch(row, scope, name) {
  let stopped = false, timer = 0;
  const tick = async () => {
    try {
      const r = await request('/v1/status');
      const j = r.ok ? await r.json() : null;
      if (stopped || !j) return;
      const imp = j.importing;
      if (imp && (imp.source === 'push' || imp.source === 'upload') && imp.scope === scope && imp.what === name)
        row.importing(imp);
      else
        row.waiting(j.import_queue || 0, !!imp);
    } catch (e) {
      /* a failed poll only skips an update: the push's own reply says how it ended */
    } finally {
      if (!stopped) timer = setTimeout(tick, PROGRESS_POLL_MS);
    }
  };
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}
