// ui_fleet.js: the browser UI's fleet switch in headless Chromium, through
// profctl web against a profd that ships to ClickHouse with a second
// profd beside it (test_ui_fleet.sh).
//
// usage: node ui_fleet.js URL OUTDIR FLEET.json LOCAL.json
//   URL         the URL profctl web printed (with the token)
//   OUTDIR      where the screenshots go
//   FLEET.json  `profctl top --fleet --json` of scope fx (both hosts)
//   LOCAL.json  `profctl top --json` of scope fx (this host)
// The switch is shown; turned on, the top table shows the fleet's numbers
// (not this host's), the URL says fleet=1, traces and tags are off, the
// scopes page lists the fleet's hosts; hosts=web-1 narrows it to this
// host's numbers; turned off, this host's again.  No console error, no
// request off the origin.
'use strict';

const path = require('path');
const { launch, fail, ok, ready, watch } = require('./browser.js');

const [url, outdir, fleetJson, localJson] = process.argv.slice(2);
const fleet = require(path.resolve(fleetJson));
const local = require(path.resolve(localJson));

const origin = new URL(url).origin;

function param(page, k) { return new URL(page.url()).searchParams.getAll(k); }

// The top table's rows as [function, flat] against a top reply's.
async function sameTop(page, want, what) {
  const rows = await page.$$eval('#top tbody tr', (trs) => trs.map((tr) =>
    [tr.dataset.name, Number(tr.dataset.flat), Number(tr.dataset.cum)]));
  const exp = want.rows.map((r) => [r.function, r.flat, r.cum]);
  if (rows.length !== exp.length || JSON.stringify(rows) !== JSON.stringify(exp))
    fail(what + ': the table ' + JSON.stringify(rows.slice(0, 3)) + '... is not ' +
      JSON.stringify(exp.slice(0, 3)) + '... (' + rows.length + ' rows, ' + exp.length + ' wanted)');
}

(async () => {
  const browser = await launch();
  const errors = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    watch(page, origin, errors);
    await page.goto(url);
    await ready(page);
    await page.goto(origin + '/ui/?scope=fx&view=top');
    await ready(page);
    if (!(await page.locator('#fleet-l').isVisible())) fail('no fleet switch on a profd that ships');
    await sameTop(page, local, 'this host');
    if (fleet.total !== 2 * local.total) fail('the fixtures: fleet total ' + fleet.total + ', local ' + local.total);
    ok('the fleet switch is shown; off, the table is this host\'s');

    await page.locator('#fleet').check();
    await ready(page);
    if (param(page, 'fleet')[0] !== '1') fail('fleet switch: URL ' + page.url());
    await sameTop(page, fleet, 'the fleet');
    if (!(await page.locator('button[data-view="traces"]').isDisabled()) ||
        !(await page.locator('button[data-view="tags"]').isDisabled()))
      fail('traces and tags are not off for the fleet');
    if (await page.locator('body.fleet').count() !== 1) fail('the bar does not say fleet');
    await page.screenshot({ path: path.join(outdir, 'fleet-top.png') });
    ok('on: fleet=1 in the URL, the table equals profctl top --fleet (' + fleet.rows.length +
      ' rows, total twice this host\'s), traces and tags off');

    await page.locator('#hosts').fill('web-1');
    await page.locator('#hosts').press('Enter');
    await page.locator('#hosts').blur();
    await ready(page);
    if (JSON.stringify(param(page, 'host')) !== '["web-1"]') fail('hosts: URL ' + page.url());
    await sameTop(page, local, 'host web-1');
    ok('hosts=web-1: host=web-1 in the URL, the table is that host\'s');

    await page.locator('button[data-view="flamegraph"]').click();
    await ready(page);
    const paint = await page.evaluate(() => window.profdLastPaint);
    if (!paint || paint.nodes < 100) fail('fleet flame graph: ' + JSON.stringify(paint));
    ok('the fleet\'s flame graph drawn (' + paint.nodes + ' nodes)');

    await page.goto(origin + '/ui/?fleet=1');
    await ready(page);
    if (await page.locator('#scopes a', { hasText: 'fx' }).count() !== 1) fail('scope fx not listed for the fleet');
    const hosts = await page.locator('#fleet-hosts').innerText();
    if (!/web-1/.test(hosts) || !/web-2/.test(hosts)) fail('fleet hosts: ' + hosts);
    const href = await page.locator('#scopes a', { hasText: 'fx' }).getAttribute('href');
    if (!/fleet=1/.test(href)) fail('a fleet scope link leaves the fleet: ' + href);
    await page.screenshot({ path: path.join(outdir, 'fleet-scopes.png') });
    ok('the fleet\'s scopes and hosts listed: ' + hosts);

    await page.goto(origin + '/ui/?scope=fx&view=top&fleet=1');
    await ready(page);
    await page.locator('#fleet').uncheck();
    await ready(page);
    if (param(page, 'fleet').length !== 0) fail('switch off: URL ' + page.url());
    await sameTop(page, local, 'switched off');
    ok('off again: this host\'s table');

    if (errors.length) fail(errors.join('; '));
    ok('no console error, no request off the origin');
  } finally {
    await browser.close();
  }
})().catch((e) => fail(e.stack || String(e)));
