// ui-paint.js: the browser UI's first paint of a flame graph, in headless
// Chromium (playwright-core), for bench/measure.py's ui case.
//
// usage: node ui-paint.js URL RUNS SCOPE...
//   URL    what profctl web printed (with the token)
//   RUNS   timed runs per scope
// For each scope: the page opened at ?scope=SCOPE until it has drawn
// (whole: the replies' transfer included), then RUNS times from the /v1/tree
// reply's text to pixels: JSON.parse, the layout (FlameTree) and the
// canvas drawn and flushed (a pixel read back), each part timed.  Prints
// one JSON object per scope on a line.  PLAYWRIGHT_DIR names the
// node_modules' parent; CHROMIUM the browser.
'use strict';

const path = require('path');
const { launch } = require(path.join(__dirname, '..', 'tests', 'tools', 'browser.js'));

const [url, runs, ...scopes] = process.argv.slice(2);

(async () => {
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const origin = new URL(url).origin;
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.ready === location.search);
    for (const scope of scopes) {
      const t0 = Date.now();
      await page.goto(origin + '/ui/?scope=' + encodeURIComponent(scope));
      await page.waitForFunction(() => document.body.dataset.ready === location.search,
        null, { timeout: 120000 });
      const whole = Date.now() - t0;
      const r = await page.evaluate(async ([s, n]) => {
        const f0 = performance.now();
        const text = await (await fetch('/v1/tree?scope=' + encodeURIComponent(s))).text();
        const fetchMs = performance.now() - f0;
        const out = [];
        const wrap = document.createElement('div');
        wrap.className = 'flamewrap';
        document.getElementById('main').replaceChildren(wrap);
        let nodes = 0;
        for (let k = 0; k < n; k++) {
          const canvas = document.createElement('canvas');
          wrap.replaceChildren(canvas);
          const a = performance.now();
          const j = JSON.parse(text);
          const b = performance.now();
          const tree = new FlameTree(j.root);
          const c = performance.now();
          const g = new FlameGraph({ canvas });
          g.set(tree);
          g.unit = j.unit;
          g.draw();
          canvas.getContext('2d').getImageData(0, 0, 1, 1);
          const d = performance.now();
          nodes = tree.n;
          out.push({ total: d - a, parse: b - a, layout: c - b, draw: d - c, drawn: g.L.vis.length });
        }
        return { bytes: text.length, fetch_ms: fetchMs, nodes, runs: out };
      }, [scope, +runs]);
      console.log(JSON.stringify(Object.assign({ scope, page_ms: whole }, r)));
    }
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error('ui-paint: ' + (e && e.stack || e));
  process.exit(1);
});
