// cross_origin.js: pages of other origins in headless Chromium against
// profd's faces (test_cross_origin.sh).  The browser is the user's: it
// has opened profctl web from the URL it printed (its cookie and token
// are in the browser) and profd's page through the socket's forward; from
// those pages, profd's own UI code pushes (the controls: 201).  Then a
// page on another loopback port (http://127.0.0.1:EVIL) and one on a
// foreign name (http://evil.test:EVIL, resolved to 127.0.0.1 by the
// browser as a rebound DNS name would be) run evilpage.py's attacks and
// post their reports to their server, which the shell script checks.
//
// usage: node cross_origin.js WEB_URL FWD_PORT TCP_PORT WEB_PORT EVIL_PORT
'use strict';

const { launch, fail, ok } = require('./browser.js');

const [webUrl, fwd, tcp, web, evil] = process.argv.slice(2);
// Every wait's bound (Playwright's default is 30 s): against a hang, not
// a speed check; Chromium on a loaded machine is slow.
const HANG_MS = 300000;

// profd's page code (web/request.js) pushes a folded stack from page.
async function pushFrom(page, scope) {
  return page.evaluate(async (s) => {
    const r = await request('/v1/profiles?scope=' + s, { method: 'POST', body: 'main;ok 1\n' });
    return r.status + ' ' + (await r.text()).slice(0, 200);
  }, scope);
}

(async () => {
  const browser = await launch(['--host-resolver-rules=MAP evil.test 127.0.0.1']);
  try {
    const ctx = await browser.newContext();
    ctx.setDefaultTimeout(HANG_MS);
    const ui = await ctx.newPage();
    await ui.goto(webUrl);
    await ui.waitForFunction(() => typeof request === 'function' && !location.hash);
    let r = await pushFrom(ui, 'ctl-web');
    if (!r.startsWith('201')) fail('profctl web\'s page could not push: ' + r);
    ok('profctl web\'s page, opened from its URL, pushes: ' + r.slice(0, 60));
    const own = await ctx.newPage();
    await own.goto('http://127.0.0.1:' + fwd + '/ui/');
    await own.waitForFunction(() => typeof request === 'function');
    r = await pushFrom(own, 'ctl-page');
    if (!r.startsWith('201')) fail('profd\'s page through the forward could not push: ' + r);
    ok('profd\'s page through the socket\'s forward pushes: ' + r.slice(0, 60));
    for (const [label, host] of [['lo', '127.0.0.1'], ['ext', 'evil.test']]) {
      const p = await ctx.newPage();
      await p.goto('http://' + host + ':' + evil + '/?fwd=' + fwd + '&tcp=' + tcp + '&web=' + web + '&label=' + label);
      await p.waitForFunction(() => document.title === 'done', null, { timeout: HANG_MS });
      ok('the page of http://' + host + ':' + evil + ' ran its attempts');
      await p.close();
    }
  } catch (e) {
    fail(String(e && e.stack || e));
  } finally {
    await browser.close();
  }
})();
