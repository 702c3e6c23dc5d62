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
  return (n / 1e6).toFixed(1) + ' M';
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
    waiting(queued) {
      set(0, 0, 'waiting to import (' + queued + ' queued)');
    },
    // imp: /v1/status's importing, when it is this file's import.
    importing(imp) {
      const storing = imp.phase === 'storing' ? ' (storing)' : '';
      if (imp.samples_total > 0) {
        set(imp.samples_done || 0, imp.samples_total, 'importing ' + progressCount(imp.samples_done || 0) +
          ' of ' + progressCount(imp.samples_total) + ' samples' + storing);
        return;
      }
      // bytes_done/bytes_total; bytes_read/bytes where profd predates them.
      const done = imp.bytes_done != null ? imp.bytes_done : imp.bytes_read || 0;
      const total = imp.bytes_total !== undefined ? imp.bytes_total : imp.bytes;
      if (total > 0)
        set(done, total, 'importing ' + progressMB(done) + ' of ' + progressMB(total) + ' MB' + storing);
      else
        set(0, 0, 'importing ' + progressMB(done) + ' MB' + storing);
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
        row.waiting(j.import_queue || 0);
    } catch (e) {
      /* a failed poll only skips an update: the push's own reply says how it ended */
    } finally {
      if (!stopped) timer = setTimeout(tick, PROGRESS_POLL_MS);
    }
  };
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}
