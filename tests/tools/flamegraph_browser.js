// flamegraph_browser.js: drive a profctl flame graph SVG in headless
// Chromium through playwright-core and check that its script works.
//
// usage: node flamegraph_browser.js SVG PNG CLICK SIBLING SEARCH OUTER
//   CLICK    name of a frame to click (zoom); it must become full width
//   SIBLING  name of a frame beside it that the zoom must hide
//   SEARCH   a regular expression typed into the Search prompt
//   OUTER    the frame whose value "Matched: X%" must equal: SEARCH
//            matches it and frames inside it, each subtree counted once
// Prints one "ok: ..." line per check; exits 1 on the first failure.
// PLAYWRIGHT_DIR names the node_modules' parent; CHROMIUM the browser.
'use strict';

const path = require('path');
const { launch } = require('./browser.js');

const [svg, png, click, sibling, search, outer] = process.argv.slice(2);

function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exit(1);
}

async function frame(page, name) {
  const g = page.locator('g.f[data-n="' + name + '"]').first();
  if (await g.count() === 0)
    fail('no frame named ' + name);
  return g;
}

async function rect(g) {
  return g.locator('rect').evaluate((r) => ({
    x: +r.getAttribute('x'), w: +r.getAttribute('width'),
    visible: getComputedStyle(r.parentNode).display !== 'none',
  }));
}

(async () => {
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1220, height: 800 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // Self-contained: any request beyond the file itself is a failure.
    page.on('request', (r) => {
      if (!r.url().startsWith('file:'))
        errors.push('network request: ' + r.url());
    });
    await page.goto('file://' + path.resolve(svg));

    const fullw = +(await page.locator('svg').getAttribute('data-fullw'));
    const total = +(await page.locator('svg').getAttribute('data-total'));
    const nframes = await page.locator('g.f').count();
    if (nframes < 2)
      fail('only ' + nframes + ' frames');
    console.log('ok: ' + nframes + ' frames, full width ' + fullw);

    // Zoom.
    const c = await frame(page, click), s = await frame(page, sibling);
    const before = await rect(c);
    if (!(await rect(s)).visible)
      fail(sibling + ' hidden before zoom');
    if (before.w >= fullw - 0.5)
      fail(click + ' is already full width');
    if (await page.locator('#unzoom').isVisible())
      fail('Reset Zoom shown before zooming');
    await c.locator('rect').click();
    const after = await rect(c);
    if (Math.abs(after.w - fullw) > 0.5)
      fail(click + ' is ' + after.w + ' px wide after zoom, not ' + fullw);
    if ((await rect(s)).visible)
      fail(sibling + ' still shown after zooming into ' + click);
    if (!(await page.locator('#unzoom').isVisible()))
      fail('no Reset Zoom after zooming');
    console.log('ok: click zoomed ' + click + ' from ' + before.w +
        ' px to full width, ' + sibling + ' hidden');
    await page.screenshot({ path: png.replace(/\.png$/, '-zoom.png') });
    await page.locator('#unzoom').click();
    const reset = await rect(c);
    if (Math.abs(reset.w - before.w) > 0.01 || !(await rect(s)).visible)
      fail('Reset Zoom did not restore the view');
    console.log('ok: Reset Zoom restored the view');

    // Search, through the prompt the Search control opens.
    page.once('dialog', (d) => d.accept(search));
    await page.locator('#search').click();
    const text = (await page.locator('#matched').textContent()).trim();
    const ov = +(await (await frame(page, outer)).getAttribute('data-v'));
    const pct = 100 * ov / total;
    const want = 'Matched: ' + (pct >= 99.95 ? '100' : pct.toFixed(1)) + '%';
    if (text !== want)
      fail('search "' + search + '" shows "' + text + '", want "' + want + '"');
    const hits = await page.locator('g.f rect[fill="rgb(230,0,230)"]').count();
    if (hits < 2)
      fail('search highlighted ' + hits + ' frames');
    console.log('ok: search "' + search + '" highlighted ' + hits +
        ' frames, ' + text);

    // Hover details.
    await c.locator('rect').hover();
    const det = (await page.locator('#details').textContent()).trim();
    if (!det.startsWith(click + ' ('))
      fail('details on hover: "' + det + '"');
    console.log('ok: hover details "' + det + '"');

    await page.screenshot({ path: png });
    if (errors.length > 0)
      fail(errors.join('; '));
    console.log('ok: no script errors, no network requests');
  } finally {
    await browser.close();
  }
})().catch((e) => fail(String(e && e.stack || e)));
