// browser.js: headless Chromium through playwright-core, as the browser
// tests launch it (flamegraph_browser.js, ui_browser.js; bench/ui-paint.js
// too).  PLAYWRIGHT_DIR names the node_modules' parent; CHROMIUM the
// browser (default /usr/bin/chromium).
'use strict';

const path = require('path');

// extra: more command-line switches (test_cross_origin's host rules).
function launch(extra = []) {
  const { chromium } = require(path.join(process.env.PLAYWRIGHT_DIR || '.',
      'node_modules', 'playwright-core'));
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
      '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...extra],
  });
}

// A check's outcome, as every browser test prints it.
function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exit(1);
}

function ok(msg) { console.log('ok: ' + msg); }

// The UI has drawn the state in its URL (app.js sets data-ready).
async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === location.search,
    null, { timeout: 30000 });
}

// What a page must not do, collected into errors: throw, log an error or
// a warning, or ask anything outside profd's origin.
function watch(page, origin, errors) {
  page.on('pageerror', (e) => errors.push('page error: ' + e));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push('console ' + m.type() + ': ' + m.text()); });
  page.on('request', (r) => {
    if (!r.url().startsWith(origin + '/')) errors.push('request outside the origin: ' + r.url());
  });
}

module.exports = { launch, fail, ok, ready, watch };
