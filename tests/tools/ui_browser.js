// ui_browser.js: drive profd's browser UI (through profctl web) in
// headless Chromium with playwright-core, and check what a user sees.
//
// usage: node ui_browser.js URL OUTDIR TOP.json TOP.txt FLAME.svg DROP PICK LIVE BIG
//            PEEK.json TRACES.json TAGS.json AGG
//   URL       the URL profctl web printed (with the token)
//   OUTDIR    where the screenshots go (one PNG per view)
//   TOP.json  `profctl top --json` of scope fx: the table must show it
//   TOP.txt   `profctl top` of the same: the table's text must equal it
//   FLAME.svg `profctl flamegraph` of the same: its search share must
//             equal the page's
//   DROP      a pprof file dropped on the page (pushed to scope adhoc)
//   PICK      a folded file picked with the file button (to scope picked)
//   LIVE      a profile of scope series, later than the others, pushed
//             (profctl push, $PROFCTL) while the page is live
//   BIG       a folded file over 32 MiB: picked, it goes as a chunked upload
//   PEEK.json `profctl peek 'main\.(fib|hashBlock)' --json` of scope fx
//   TRACES.json, TAGS.json  `profctl traces --json`, `profctl tags --json`
//             of scope fx: the views must show them
//   AGG       a directory of the API's replies for scope gauge (three
//             snapshots of a gauge): top.json (default: the average),
//             top-sum.json, tree-sum.json, timeline-sum.json, diff-sum.json
//             (aggregate=sum, the diff's base.aggregate=sum too)
// Scope fx holds tests/fixtures/cpu.pprof; scope series a few generated
// profiles a minute apart (the timeline's brush).  Prints one "ok: ..."
// line per check; exits 1 on the first failure.  PLAYWRIGHT_DIR names the
// node_modules' parent; CHROMIUM the browser.
'use strict';

const fs = require('fs');
const path = require('path');
const { launch, fail, ok, ready, watch } = require('./browser.js');

const [url, outdir, topJson, topTxt, svg, drop, pick, live, big, peekJson, tracesJson, tagsJson, aggDir] = process.argv.slice(2);
const { execFileSync } = require('child_process');
const SEARCH = 'main\\.(cryptoPhase|digestLoop)';
const ZOOM = 'main.cryptoPhase';
const PEEK = 'main\\.(fib|hashBlock)';

const origin = new URL(url).origin;

async function nav(page, q) {
  await page.goto(origin + '/ui/' + q);
  await ready(page);
}

function param(page, k) { return new URL(page.url()).searchParams.get(k); }

async function shot(page, name) {
  await page.screenshot({ path: path.join(outdir, name + '.png') });
}

// The SVG's own search (the prompt its Search control opens): "Matched: X%".
async function svgShare(browser) {
  const p = await browser.newPage();
  await p.goto('file://' + path.resolve(svg));
  p.once('dialog', (d) => d.accept(SEARCH));
  await p.locator('#search').click();
  const t = (await p.locator('#matched').textContent()).trim();
  await p.close();
  return t;
}

async function clickFrame(page, name, button) {
  const r = await page.evaluate((n) => window.profdFlame.rectOf(n), name);
  if (!r) fail('no visible frame ' + name);
  await page.mouse.click(r.x + Math.min(r.w / 2, 20), r.y + r.h / 2, { button: button || 'left' });
  return r;
}

// The requests of asked to the API's path p.
function viewRequests(asked, p) { return asked.filter((u) => u.pathname === p); }

// The aggregation (issue 27): scope gauge is averaged by default and the
// header says so as profctl's "Type:" line; sum picked is in the URL,
// in the request of every view (and the diff's base) and in the numbers
// the API gives for it; Back leaves it, a reload keeps it.
async function checkAggregate(page) {
  const agg = (n) => JSON.parse(fs.readFileSync(path.join(aggDir, n + '.json'), 'utf8'));
  const avg = agg('top'), sum = agg('top-sum');
  const asked = [];
  const onRequest = (r) => { const u = new URL(r.url()); if (u.pathname.startsWith('/v1/')) asked.push(u); };
  page.on('request', onRequest);
  const typeLine = () => page.locator('#agg-type').textContent();
  const topOf = () => page.locator('#top tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.name, +tr.dataset.flat, +tr.dataset.cum]));
  const rowsOf = (j) => j.rows.map((r) => [r.function, r.flat, r.cum]);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  await nav(page, '?scope=gauge&view=top');
  const wantAvg = avg.metric.type + ' (average of ' + avg.profiles + ' profiles)';
  if (await typeLine() !== wantAvg) fail('type line "' + await typeLine() + '", /v1/top says ' + JSON.stringify(avg.metric));
  if (!same(await topOf(), rowsOf(avg))) fail('averaged top: ' + JSON.stringify(await topOf()));
  const dflt = await page.locator('#aggregate option[value=""]').textContent();
  if (dflt !== 'default (avg)') fail('the default aggregate reads "' + dflt + '"');
  ok('gauge series: "' + wantAvg + '", "' + dflt + '", top as /v1/top (total ' + avg.total + ')');

  const wantSum = sum.metric.type + ' (sum of ' + sum.profiles + ' profiles)';
  const isSum = async (what) => {
    if (param(page, 'aggregate') !== 'sum' || await page.locator('#aggregate').inputValue() !== 'sum')
      fail(what + ': aggregate not sum: ' + page.url());
    if (await typeLine() !== wantSum) fail(what + ': type line "' + await typeLine() + '", not "' + wantSum + '"');
    if (!same(await topOf(), rowsOf(sum))) fail(what + ': top ' + JSON.stringify(await topOf()) + ', /v1/top?aggregate=sum ' + JSON.stringify(rowsOf(sum)));
    for (const p of ['/v1/top', '/v1/timeline']) {
      const rs = viewRequests(asked, p);
      if (!rs.length || rs.some((u) => u.searchParams.get('aggregate') !== 'sum')) fail(what + ': ' + p + ' asked as ' + rs.join(' '));
    }
    const pts = await page.evaluate(() => timeline.points.map((x) => [x.time_ns, x.value]));
    const tl = agg('timeline-sum');
    if (!same(pts, tl.points.map((x) => [x.time_ns, x.value]))) fail(what + ': timeline ' + JSON.stringify(pts));
  };
  asked.length = 0;
  await page.locator('#aggregate').selectOption('sum');
  await ready(page);
  if (sum.total === avg.total) fail('sum and average agree (' + sum.total + '): nothing to tell apart');
  await isSum('sum picked');
  await shot(page, 'aggregate');
  await page.goBack();
  await ready(page);
  if (param(page, 'aggregate') || await typeLine() !== wantAvg || !same(await topOf(), rowsOf(avg))) fail('Back from sum: ' + page.url());
  await page.goForward();
  await ready(page);
  asked.length = 0;
  await page.reload();
  await ready(page);
  await isSum('reloaded');
  ok('sum picked: "' + wantSum + '", aggregate=sum in the URL and the requests, top and timeline as the API ' +
    '(total ' + sum.total + ' against ' + avg.total + '); Back to the average, a reload keeps sum');

  // Every view asks with aggregate=sum (the replies the page keeps since
  // the reload are asked once); their numbers are the sum's.
  for (const v of ['flamegraph', 'peek', 'sandwich', 'traces', 'tags', 'diff']) {
    await page.locator('#views button[data-view=' + v + ']').click();
    await ready(page);
    if (param(page, 'aggregate') !== 'sum') fail(v + ': aggregate left the URL: ' + page.url());
  }
  for (const p of ['/v1/tree', '/v1/top', '/v1/timeline', '/v1/peek', '/v1/traces', '/v1/tags', '/v1/diff']) {
    // The label picker asks /v1/tags for the scope's labels, whatever
    // the aggregate; the tags view's own request is the one with it.
    const rs = viewRequests(asked, p).filter((u) => p !== '/v1/tags' || u.searchParams.has('aggregate'));
    if (!rs.length || rs.some((u) => u.searchParams.get('aggregate') !== 'sum' ||
        (p === '/v1/diff' && u.searchParams.get('base.aggregate') !== 'sum')))
      fail(p + ' asked as ' + viewRequests(asked, p).join(' '));
  }
  const diff = agg('diff-sum');
  const dtot = await page.evaluate(() => window.profdFlame.tree.total[0]);
  if (dtot !== diff.base.total + diff.current.total || diff.base.total !== sum.total) fail('diff total ' + dtot + ': ' + JSON.stringify(diff.base));
  await page.locator('#views button[data-view=flamegraph]').click();
  await ready(page);
  const ftot = await page.evaluate(() => window.profdFlame.tree.total[0]);
  if (ftot !== agg('tree-sum').total) fail('flame graph total ' + ftot + ', /v1/tree?aggregate=sum ' + agg('tree-sum').total);
  const [d] = await Promise.all([page.waitForEvent('download'), page.locator('#dl-folded').click()]);
  const folded = fs.readFileSync(await d.path(), 'utf8').trim().split('\n').reduce((a, l) => a + +l.split(' ').pop(), 0);
  if (folded !== sum.total) fail('folded download of the sum adds up to ' + folded);
  page.off('request', onRequest);
  ok('flame graph, peek, sandwich, traces, tags and diff (base too) ask with aggregate=sum; flame graph ' +
    ftot + ', diff ' + diff.base.total + ' + ' + diff.current.total + ', folded download ' + folded + ' as the API');
}

(async () => {
  const browser = await launch();
  const errors = [];
  try {
    const want = await svgShare(browser);
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    watch(page, origin, errors);

    // The landing page: the scopes.
    await page.goto(url);
    await ready(page);
    if (!page.url().startsWith(origin + '/ui/')) fail('not led to /ui/: ' + page.url());
    if (await page.locator('#scopes a', { hasText: 'fx' }).count() !== 1) fail('scope fx not listed');
    await shot(page, 'scopes');
    ok('the scopes listed');

    // Numbers rounded as printf and Go round them: an exact tie to the
    // even digit (go tool pprof prints 1152 B as 1.12kB), others as usual.
    const units = await page.evaluate(() => [Units.label(1152, 'bytes', 'kB'),
      Units.label(1160, 'bytes', 'kB'), Units.label(3.375e9, 'nanoseconds', 's'),
      Units.label(-1152, 'bytes', 'kB'), Units.percentage(1, 8), Units.percentage(1, 800)]);
    const unitsWant = ['1.12kB', '1.13kB', '3.38s', '-1.12kB', '12.50%', '0.12%'];
    if (JSON.stringify(units) !== JSON.stringify(unitsWant))
      fail('units: ' + JSON.stringify(units) + ', pprof prints ' + JSON.stringify(unitsWant));
    ok('units rounded as pprof rounds them: ' + units.join(' '));

    // The flame graph, from the scope's link.
    await page.locator('#scopes a', { hasText: 'fx' }).click();
    await ready(page);
    if (param(page, 'scope') !== 'fx') fail('scope link: ' + page.url());
    const paint = await page.evaluate(() => window.profdLastPaint);
    if (!paint || paint.nodes < 100) fail('flame graph: ' + JSON.stringify(paint));
    ok('flame graph of ' + paint.nodes + ' nodes drawn in ' + paint.draw_ms.toFixed(1) + ' ms');

    // Tooltip.
    const r = await page.evaluate((n) => window.profdFlame.rectOf(n), ZOOM);
    await page.mouse.move(r.x + 5, r.y + r.h / 2);
    const tip = await page.locator('#tooltip').innerText();
    if (!tip.startsWith(ZOOM) || !/total .*of root, .*of parent/.test(tip) || !/self /.test(tip))
      fail('tooltip: ' + tip);
    ok('tooltip: ' + tip.split('\n').join(' | '));

    // The frame's own line and inline mark, as /v1/tree gives them per
    // node: main.mandelbrot at one line, main.escapeTime inlined into it.
    const node = await page.evaluate(async (names) => {
      const j = await (await request('/v1/tree?scope=fx')).json();
      const find = (x) => (names.includes(x.name) ? x : x.children.map(find).find((y) => y));
      const m = find(j.root);
      return { mandelbrot: m, escapeTime: m.children.find((c) => c.name === names[1]) };
    }, ['main.mandelbrot', 'main.escapeTime']);
    if (!node.mandelbrot.frame_line || node.mandelbrot.inline || !node.escapeTime || !node.escapeTime.inline)
      fail('/v1/tree: ' + JSON.stringify(node).slice(0, 300));
    const tipOf = async (n) => {
      const b = await page.evaluate((x) => window.profdFlame.rectOf(x), n);
      await page.mouse.move(b.x + Math.min(b.w / 2, 5), b.y + b.h / 2);
      return page.locator('#tooltip').innerText();
    };
    const mt = await tipOf('main.mandelbrot'), et = await tipOf('main.escapeTime');
    if (!mt.includes(node.mandelbrot.file + ':' + node.mandelbrot.frame_line) || mt.includes('(inlined)') ||
        !et.split('\n')[0].endsWith('(inlined)'))
      fail('frame line and inline mark: ' + mt + ' / ' + et);
    ok('tooltip: main.mandelbrot at ' + node.mandelbrot.file + ':' + node.mandelbrot.frame_line +
      ', main.escapeTime (inlined)');

    // Search: the same share as the SVG's.
    await page.locator('#search').fill(SEARCH);
    await page.locator('#search').press('Enter');
    await ready(page);
    if (param(page, 'search') !== SEARCH) fail('search not in the URL: ' + page.url());
    const got = (await page.locator('#matched').textContent()).trim();
    if (!got.startsWith(want + ' (')) fail('search shows "' + got + '", the SVG "' + want + '"');
    await shot(page, 'search');
    ok('search ' + SEARCH + ': "' + got + '", the SVG says "' + want + '"');

    // Zoom, breadcrumb, reset, Back.
    await clickFrame(page, ZOOM);
    await ready(page);
    const zoom = param(page, 'zoom') || '';
    if (!zoom.endsWith(';' + ZOOM)) fail('zoom not in the URL: ' + page.url());
    const crumbs = await page.locator('#crumbs').innerText();
    if (!crumbs.includes(ZOOM) || !crumbs.startsWith('root')) fail('breadcrumb: ' + crumbs);
    const zr = await page.evaluate((n) => window.profdFlame.rectOf(n), ZOOM);
    const cw = await page.locator('#flame').evaluate((c) => c.getBoundingClientRect().width);
    if (Math.abs(zr.w - cw) > 1) fail(ZOOM + ' is ' + zr.w + ' px wide after zoom, not ' + cw);
    await shot(page, 'flamegraph-zoom');
    await page.locator('#reset-zoom').click();
    await ready(page);
    if (param(page, 'zoom')) fail('reset zoom: ' + page.url());
    await page.goBack();
    await ready(page);
    if (param(page, 'zoom') !== zoom) fail('Back did not restore the zoom: ' + page.url());
    ok('zoom into ' + ZOOM + ' (full width, breadcrumb), reset, Back');
    await nav(page, '?scope=fx');
    await shot(page, 'flamegraph');

    // Keyboard: Down from the root goes to its heaviest child; Enter zooms.
    await page.locator('#flame').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await ready(page);
    if ((param(page, 'zoom') || '').split(';').length !== 2) fail('keyboard zoom: ' + page.url());
    ok('keyboard: arrows and Enter zoom (' + param(page, 'zoom') + ')');

    // Top: the numbers and the text of profctl top.
    await nav(page, '?scope=fx');
    await page.locator('#views button[data-view=top]').click();
    await ready(page);
    if (param(page, 'view') !== 'top') fail('view=top not in the URL');
    const rows = await page.locator('#top tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      name: tr.dataset.name, flat: +tr.dataset.flat, cum: +tr.dataset.cum,
      cells: [...tr.children].slice(0, 5).map((td) => td.textContent),
    })));
    const j = JSON.parse(fs.readFileSync(topJson, 'utf8'));
    if (rows.length !== j.rows.length) fail('top: ' + rows.length + ' rows, profctl ' + j.rows.length);
    j.rows.forEach((w, k) => {
      const g = rows[k];
      if (g.name !== w.function || g.flat !== w.flat || g.cum !== w.cum)
        fail('top row ' + k + ': ' + JSON.stringify(g) + ' against ' + JSON.stringify(w));
    });
    const text = fs.readFileSync(topTxt, 'utf8').split('\n');
    const first = text.findIndex((l) => /^\s*flat\s+flat%/.test(l));
    text.slice(first + 1).filter((l) => l.trim()).forEach((l, k) => {
      const cols = l.trim().split(/\s+/).slice(0, 5);
      if (cols.join(' ') !== rows[k].cells.join(' '))
        fail('top row ' + k + ' reads "' + rows[k].cells.join(' ') + '", profctl top "' + cols.join(' ') + '"');
    });
    await shot(page, 'top');
    ok('top: ' + rows.length + ' rows equal profctl top --json, and read as profctl top prints them');

    // Sorting and the filter.
    await page.locator('#top th[data-sort=cum]').click();
    await ready(page);
    const cums = await page.locator('#top tbody tr').evaluateAll((trs) => trs.map((tr) => +tr.dataset.cum));
    if (param(page, 'sort') !== 'cum' || cums.some((c, k) => k > 0 && Math.abs(c) > Math.abs(cums[k - 1])))
      fail('sort by cum');
    await page.locator('#top-filter').fill('^main\\.');
    await page.locator('#top-filter').press('Enter');
    await ready(page);
    const names = await page.locator('#top tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.name));
    if (!names.length || names.some((n) => !n.startsWith('main.'))) fail('filter: ' + names.slice(0, 5));
    ok('top sorted by cum, filtered to ' + names.length + ' main. rows');

    // A click on a row selects the function in the flame graph.
    await page.locator('#top tbody tr[data-name="main.fib"]').click();
    await ready(page);
    if (param(page, 'search') !== '^main\\.fib$' || param(page, 'view') !== 'flamegraph' || param(page, 'side') !== '1')
      fail('row click: ' + page.url());
    if (!(await page.locator('#matched').textContent()).startsWith('Matched: ')) fail('row click: nothing matched');
    await shot(page, 'flamegraph-table');
    ok('a click on a row selects it in the flame graph, the table beside it');

    // The refine menu on a frame: sandwich.
    await nav(page, '?scope=fx');
    await clickFrame(page, 'main.fib', 'right');
    if (!(await page.locator('#menu').isVisible())) fail('no menu on right-click');
    const items = await page.locator('#menu button').allTextContents();
    for (const w of ['Focus on', 'Ignore', 'Hide', 'Show only', 'Sandwich of', 'Copy name'])
      if (!items.some((t) => t.startsWith(w))) fail('menu lacks ' + w + ': ' + items);
    await page.locator('#menu button', { hasText: 'Sandwich of' }).click();
    await ready(page);
    if (param(page, 'view') !== 'sandwich' || param(page, 'fn') !== 'main.fib') fail('sandwich: ' + page.url());
    const sw = await page.evaluate(() => window.profdSandwich.map((g) => g.tree.total[0]));
    const fib = j.rows.find((x) => x.function === 'main.fib');
    if (sw[0] !== fib.cum || sw[1] !== fib.cum) fail('sandwich totals ' + sw + ', cum of main.fib ' + fib.cum);
    await shot(page, 'sandwich');
    ok('menu: ' + items.length + ' items; sandwich of main.fib, callers and callees total its cum');

    // Focus from the menu of a row: a new selection, shown as a chip.
    await nav(page, '?scope=fx&view=top');
    await page.locator('#top tbody tr[data-name="main.cryptoPhase"]').click({ button: 'right' });
    await page.locator('#menu button', { hasText: 'Focus on' }).click();
    await ready(page);
    if (param(page, 'focus') !== '^main\\.cryptoPhase$') fail('focus: ' + page.url());
    if (!(await page.locator('#filters [data-filter=focus]').count())) fail('no focus chip');
    const fnames = await page.locator('#top tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.name));
    if (fnames.includes('main.fib')) fail('focus kept main.fib');
    ok('focus from the menu: ' + fnames.length + ' rows, a chip to remove it');

    // Peek, from the menu of a row: the callers and callees of main.hashBlock.
    await nav(page, '?scope=fx&view=top');
    await page.locator('#top tbody tr[data-name="main.hashBlock"]').click({ button: 'right' });
    await page.locator('#menu button', { hasText: 'Peek at' }).click();
    await ready(page);
    if (param(page, 'view') !== 'peek' || param(page, 'regex') !== '^main\\.hashBlock$') fail('peek from the menu: ' + page.url());
    const peekOf = () => page.locator('#peek tbody').evaluateAll((bs) => bs.map((b) => {
      const node = b.querySelector('tr.node');
      const edges = (kind) => [...b.querySelectorAll('tr.' + kind)].map((tr) => [tr.dataset.name, +tr.dataset.weight, tr.dataset.inline === '1']);
      return { function: node.dataset.name, flat: +node.dataset.flat, cum: +node.dataset.cum,
        callers: edges('caller'), callees: edges('callee') };
    }));
    const one = await peekOf();
    if (one.length !== 1 || one[0].function !== 'main.hashBlock') fail('peek of main.hashBlock: ' + JSON.stringify(one));
    // The regex typed in the view: every node and edge of profctl peek --json.
    await page.locator('#peek-regex').fill(PEEK);
    await page.locator('#peek-regex').press('Enter');
    await ready(page);
    if (param(page, 'regex') !== PEEK) fail('peek regex not in the URL: ' + page.url());
    const pj = JSON.parse(fs.readFileSync(peekJson, 'utf8'));
    const wantPeek = pj.nodes.map((n) => ({ function: n.function, flat: n.flat, cum: n.cum,
      callers: n.callers.map(([f, w, i]) => [pj.functions[f], w, i]),
      callees: n.callees.map(([f, w, i]) => [pj.functions[f], w, i]) }));
    const gotPeek = await peekOf();
    if (JSON.stringify(gotPeek) !== JSON.stringify(wantPeek))
      fail('peek shows ' + JSON.stringify(gotPeek) + ', profctl peek --json ' + JSON.stringify(wantPeek));
    await shot(page, 'peek');
    const edgesN = wantPeek.reduce((a, n) => a + n.callers.length + n.callees.length, 0);
    // A click on a caller peeks at it; Back returns.
    const caller = wantPeek[0].callers[0][0];
    await page.locator('#peek tr.caller[data-name="' + caller + '"]').first().click();
    await ready(page);
    if (param(page, 'regex') !== '^' + caller.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&') + '$') fail('peek at a caller: ' + page.url());
    await page.goBack();
    await ready(page);
    if (param(page, 'regex') !== PEEK || (await peekOf()).length !== wantPeek.length) fail('Back in peek: ' + page.url());
    await page.locator('#peek tr.callee').first().click({ button: 'right' });
    if (!(await page.locator('#menu button', { hasText: 'Focus on' }).isVisible())) fail('no refine menu on a peek row');
    await page.keyboard.press('Escape');
    ok('peek ' + PEEK + ': ' + gotPeek.length + ' functions, ' + edgesN + ' edges as profctl peek --json; ' +
      'a caller peeked at, Back, the menu on its rows');

    // Traces: the first N of profctl traces --json, more on request.
    await nav(page, '?scope=fx');
    await page.locator('#views button[data-view=traces]').click();
    await ready(page);
    if (param(page, 'view') !== 'traces') fail('view=traces not in the URL');
    const tj = JSON.parse(fs.readFileSync(tracesJson, 'utf8'));
    const wantTraces = (n) => tj.traces.slice(0, n).map((t) => {
      const ls = t.label_set == null ? null : tj.label_sets[t.label_set];
      const labels = ls ? Object.keys(ls.labels).sort().map((k) => k + ':' + ls.labels[k].join(' ')) : [];
      return { value: t.value, labels, frames: t.frames.map((f, i) => tj.functions[f] + ((t.inline || []).includes(i) ? '*' : '')) };
    });
    const tracesOf = () => page.locator('#traces tbody').evaluateAll((bs) => bs.map((b) => ({
      value: +b.dataset.value,
      labels: [...b.querySelectorAll('tr.tlabel')].map((tr) => tr.children[0].textContent + tr.children[2].textContent),
      frames: [...b.querySelectorAll('tr.frame')].map((tr) => tr.dataset.name + (tr.dataset.inline === '1' ? '*' : '')),
    })));
    let gotTraces = await tracesOf();
    const n0 = gotTraces.length;
    if (n0 !== Math.min(50, tj.traces_total) || JSON.stringify(gotTraces) !== JSON.stringify(wantTraces(n0)))
      fail('traces: ' + JSON.stringify(gotTraces.slice(0, 2)) + ' against ' + JSON.stringify(wantTraces(2)));
    await shot(page, 'traces');
    await page.locator('#traces-more').click();
    await ready(page);
    gotTraces = await tracesOf();
    if (param(page, 'limit') !== String(n0 * 4) || gotTraces.length !== Math.min(n0 * 4, tj.traces_total) ||
        JSON.stringify(gotTraces) !== JSON.stringify(wantTraces(gotTraces.length)))
      fail('more traces: ' + gotTraces.length + ', ' + page.url());
    await page.goBack();
    await ready(page);
    if (param(page, 'limit') || (await tracesOf()).length !== n0) fail('Back in traces: ' + page.url());
    await page.locator('#traces tr.frame[data-name="main.mandelbrot"]').first().click({ button: 'right' });
    await page.locator('#menu button', { hasText: 'Sandwich of' }).click();
    await ready(page);
    if (param(page, 'view') !== 'sandwich' || param(page, 'fn') !== 'main.mandelbrot') fail('sandwich from traces: ' + page.url());
    ok('traces: the first ' + n0 + ' and ' + gotTraces.length + ' of ' + tj.traces_total +
      ' as profctl traces --json (values, labels, frames, inline marks), Back; the menu on a frame');

    // Tags: every key and value of profctl tags --json; a click selects.
    await nav(page, '?scope=fx');
    await page.locator('#views button[data-view=tags]').click();
    await ready(page);
    if (param(page, 'view') !== 'tags') fail('view=tags not in the URL');
    const gj = JSON.parse(fs.readFileSync(tagsJson, 'utf8'));
    const tagsOf = () => page.locator('table.tags').evaluateAll((ts) => ts.map((t) => ({ key: t.dataset.key,
      values: [...t.querySelectorAll('tbody tr')].map((tr) => (tr.dataset.str != null ? 's' + tr.dataset.str : 'n' + tr.dataset.num) + '=' + tr.dataset.value).sort() })));
    const wantTags = gj.tags.map((t) => ({ key: t.key,
      values: t.values.map((v) => (v.str != null ? 's' + v.str : 'n' + v.num) + '=' + v.value).sort() }));
    const gotTags = await tagsOf();
    if (!wantTags.length || JSON.stringify(gotTags) !== JSON.stringify(wantTags))
      fail('tags: ' + JSON.stringify(gotTags) + ' against ' + JSON.stringify(wantTags));
    await shot(page, 'tags');
    const hash = gj.tags.find((t) => t.key === 'phase').values.find((v) => v.str === 'hash');
    await page.locator('table.tags tr[data-label="phase=hash"]').click();
    await ready(page);
    if (param(page, 'label') !== 'phase=hash' || param(page, 'view') !== 'tags') fail('tag click: ' + page.url());
    const phase = (await tagsOf()).find((t) => t.key === 'phase');
    if (JSON.stringify(phase.values) !== JSON.stringify(['shash=' + hash.value])) fail('after phase=hash: ' + JSON.stringify(phase));
    await page.goBack();
    await ready(page);
    if (param(page, 'label')) fail('Back in tags: ' + page.url());
    ok('tags: ' + gotTags.length + ' keys, ' + gotTags.reduce((a, t) => a + t.values.length, 0) +
      ' values as profctl tags --json; a click selects phase=hash, Back');

    // A regex peek finds nothing in: said in the view, its box kept (a
    // page of its own: the 404 is a console error by Chromium's rules).
    const p2 = await browser.newPage();
    await p2.goto(url);
    await nav(p2, '?scope=fx&view=peek&regex=zz_no_such_function');
    const said404 = await p2.locator('#peek-error').textContent();
    if (!/no matches found for regexp/.test(said404) || !(await p2.locator('#peek-regex').isVisible())) fail('peek without a match: ' + said404);
    await p2.close();
    ok('peek without a match: "' + said404 + '"');

    // The timeline's brush sets since and until; the views follow.
    await nav(page, '?scope=series');
    const tl = await page.locator('#tl').boundingBox();
    await page.mouse.move(tl.x + tl.width * 0.3, tl.y + 20);
    await page.mouse.down();
    await page.mouse.move(tl.x + tl.width * 0.7, tl.y + 20, { steps: 5 });
    await page.mouse.up();
    await ready(page);
    const since = param(page, 'since'), until = param(page, 'until');
    if (!since || !until || !(Date.parse(since) < Date.parse(until))) fail('brush: ' + page.url());
    const inWin = await page.evaluate(() => window.profdFlame.tree.total[0]);
    await nav(page, '?scope=series');
    const whole = await page.evaluate(() => window.profdFlame.tree.total[0]);
    if (!(inWin > 0 && inWin < whole)) fail('brushed total ' + inWin + ' of ' + whole);
    await page.goBack();
    await ready(page);
    if (param(page, 'since') !== since) fail('Back after the brush');
    await shot(page, 'timeline-brush');
    ok('brush: since=' + since + ' until=' + until + ', total ' + inWin + ' of ' + whole);

    // The label picker: the labels of the scope's samples; one picked
    // filters the selection.
    await nav(page, '?scope=series');
    await page.waitForFunction(() => document.querySelectorAll('#label-add option').length > 1);
    const labs = await page.locator('#label-add option').allTextContents();
    if (!labs.includes('worker=w3')) fail('label picker: ' + labs);
    await page.locator('#label-add').selectOption('worker=w3');
    await ready(page);
    if (param(page, 'label') !== 'worker=w3') fail('label not in the URL: ' + page.url());
    const labTotal = await page.evaluate(() => window.profdFlame.tree.total[0]);
    if (!(labTotal > 0 && labTotal < whole)) fail('label worker=w3: total ' + labTotal + ' of ' + whole);
    ok('label picker: ' + (labs.length - 1) + ' labels; worker=w3 selects ' + labTotal + ' of ' + whole);
    await nav(page, '?scope=series&since=' + encodeURIComponent(since) + '&until=' + encodeURIComponent(until));

    // Diff: one click from the brushed window to the previous one.
    await page.locator('#tl-prev').click();
    await ready(page);
    const bs = param(page, 'base.since'), bu = param(page, 'base.until');
    if (param(page, 'view') !== 'diff' || !bs || !bu || !(Date.parse(bu) < Date.parse(since)) ||
        Math.abs((Date.parse(until) - Date.parse(since)) - (Date.parse(bu) - Date.parse(bs))) > 1)
      fail('compare with the previous window: ' + page.url());
    const drows = await page.locator('#difftable tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.name, +tr.dataset.deltaFlat]));
    const dj = await page.evaluate(async () => {
      const q = new URLSearchParams(location.search);
      const a = new URLSearchParams();
      for (const k of ['scope', 'since', 'until', 'base.scope', 'base.since', 'base.until']) q.getAll(k).forEach((v) => a.append(k, v));
      return (await request('/v1/diff?' + a)).json();
    });
    if (!drows.length || drows.length !== dj.rows.length ||
        drows.some(([n, d], k) => n !== dj.rows[k].function || d !== dj.rows[k].delta_flat))
      fail('diff table against /v1/diff: ' + JSON.stringify(drows.slice(0, 3)) + ' / ' + JSON.stringify(dj.rows.slice(0, 3)));
    const dtot = await page.evaluate(() => window.profdFlame.tree.total[0]);
    if (dtot !== dj.base.total + dj.current.total) fail('diff flame graph total ' + dtot);
    await page.locator('#normalize').check();
    await ready(page);
    if (param(page, 'normalize') !== 'true') fail('normalise not in the URL');
    await shot(page, 'diff');
    ok('diff against the previous window (base ' + bs + ' – ' + bu + '): ' + drows.length +
      ' rows as /v1/diff gives them, normalise in the URL');

    // Diff of two label sets, the base's typed in the diff's own controls.
    await nav(page, '?scope=series&view=diff&label=worker%3Dw3');
    await page.locator('#base-label').fill('worker=w1');
    await page.locator('#base-label').press('Enter');
    await ready(page);
    if (param(page, 'base.label') !== 'worker=w1') fail('base label: ' + page.url());
    const lrows = await page.locator('#difftable tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.name, +tr.dataset.deltaFlat]));
    const lj = await page.evaluate(async () =>
      (await request('/v1/diff?scope=series&label=worker%3Dw3&base.scope=series&base.label=worker%3Dw1')).json());
    if (!lrows.length || lrows.some(([n, d], k) => n !== lj.rows[k].function || d !== lj.rows[k].delta_flat))
      fail('label diff table against /v1/diff');
    ok('diff of label sets worker=w3 against worker=w1: ' + lrows.length + ' rows as /v1/diff gives them');

    await checkAggregate(page);

    // Live: a new profile extends the timeline without a reload.
    await nav(page, '?scope=series&live=1');
    await page.evaluate(() => { window.profdNotReloaded = true; });
    const before = await page.evaluate(() => timeline.points[timeline.points.length - 1].time_ns);
    execFileSync(process.env.PROFCTL, ['push', live, '--scope', 'series']);
    await page.waitForFunction(() => window.profdLiveUpdates >= 1 && document.body.dataset.ready === location.search,
      null, { timeout: 30000 });
    const after = await page.evaluate(() => [timeline.points[timeline.points.length - 1].time_ns, window.profdNotReloaded]);
    if (!(after[0] > before) || after[1] !== true) fail('live: last point ' + before + ' -> ' + after);
    ok('live: the timeline grew from ' + before + ' to ' + after[0] + ' without a reload');

    // Downloads of the selection: pprof, folded, SVG.
    await nav(page, '?scope=fx');
    const dl = async (id) => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.locator(id).click()]);
      return fs.readFileSync(await d.path());
    };
    const pb = await dl('#dl-pprof');
    if (pb[0] !== 0x1f || pb[1] !== 0x8b) fail('pprof download is not gzip');
    const folded = (await dl('#dl-folded')).toString('utf8');
    const fsum = folded.trim().split('\n').reduce((a, l) => a + +l.split(' ').pop(), 0);
    if (fsum !== j.total) fail('folded download adds up to ' + fsum + ', not ' + j.total);
    const svgText = (await dl('#dl-svg')).toString('utf8');
    if (!svgText.startsWith('<?xml') || (svgText.match(/<g class="f"/g) || []).length < 100)
      fail('SVG download: ' + svgText.slice(0, 200));
    fs.writeFileSync(path.join(outdir, 'download.svg'), svgText);
    ok('downloads: pprof (' + pb.length + ' bytes gzipped), folded (total ' + fsum + '), SVG (' +
      svgText.match(/<g class="f"/g).length + ' frames)');

    // A file dropped on the page is pushed to adhoc and opened.
    await nav(page, '');
    const dt = await page.evaluateHandle(([b64, name]) => {
      const bin = atob(b64), a = new Uint8Array(bin.length);
      for (let k = 0; k < bin.length; k++) a[k] = bin.charCodeAt(k);
      const d = new DataTransfer();
      d.items.add(new File([a], name));
      return d;
    }, [fs.readFileSync(drop).toString('base64'), path.basename(drop)]);
    await page.dispatchEvent('#main', 'dragenter', { dataTransfer: dt });
    if (!(await page.locator('#dropzone').isVisible())) fail('no drop zone while dragging a file');
    await page.dispatchEvent('#main', 'drop', { dataTransfer: dt });
    await page.waitForFunction(() => new URLSearchParams(location.search).get('scope') === 'adhoc' &&
      document.body.dataset.ready === location.search, null, { timeout: 30000 });
    const said = await page.locator('#notice').textContent();
    const m = /^(\S+): stored as profile (\d+) \((\d+) samples\)$/.exec(said);
    if (!m || m[1] !== path.basename(drop) || param(page, 'profile') !== m[2]) fail('drop: "' + said + '", ' + page.url());
    const dropped = await page.evaluate(() => window.profdFlame.tree.n);
    if (dropped < 10) fail('the dropped profile shows ' + dropped + ' nodes');
    await shot(page, 'drop');
    ok('dropped ' + path.basename(drop) + ': "' + said + '", opened (' + dropped + ' nodes)');
    await page.dispatchEvent('#main', 'drop', { dataTransfer: dt });
    await page.waitForFunction(() => /already stored/.test(document.getElementById('notice').textContent));
    ok('dropped again: "' + await page.locator('#notice').textContent() + '"');

    // Dark, following the system.
    await page.emulateMedia({ colorScheme: 'dark' });
    await nav(page, '?scope=fx&view=flamegraph&side=1');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const lum = bg.match(/\d+/g).slice(0, 3).reduce((a, v) => a + +v, 0) / 3;
    if (lum > 80) fail('dark scheme: background ' + bg);
    await shot(page, 'dark');
    await page.emulateMedia({ colorScheme: 'light' });
    ok('dark colour scheme followed: background ' + bg);

    // The file button, to a scope named in the page.
    await nav(page, '');
    await page.locator('#push-scope').fill('picked');
    await page.locator('#file').setInputFiles(pick);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('scope') === 'picked' &&
      document.body.dataset.ready === location.search, null, { timeout: 30000 });
    const picked = await page.evaluate(() => window.profdFlame.tree.total[0]);
    const wantPick = fs.readFileSync(pick, 'utf8').trim().split('\n').reduce((a, l) => a + +l.split(' ').pop(), 0);
    if (picked !== wantPick) fail('picked folded file: total ' + picked + ', its lines add up to ' + wantPick);
    ok('picked ' + path.basename(pick) + ' into scope picked: ' + await page.locator('#notice').textContent());

    // Over 32 MiB: a chunked upload of 8 MiB pieces, as profctl push.
    const puts = [];
    page.on('request', (r) => { if (r.url().includes('/v1/uploads')) puts.push(r.method()); });
    await nav(page, '');
    await page.locator('#push-scope').fill('big');
    await page.locator('#file').setInputFiles(big);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('scope') === 'big' &&
      document.body.dataset.ready === location.search, null, { timeout: 120000 });
    const lines = fs.readFileSync(big, 'utf8').trim().split('\n').length;
    const bigSaid = await page.locator('#notice').textContent();
    const chunks = Math.ceil(fs.statSync(big).size / (8 << 20));
    if (!bigSaid.endsWith('(' + lines + ' samples)') || puts.filter((m) => m === 'PUT').length !== chunks ||
        puts[0] !== 'POST')
      fail('big push: "' + bigSaid + '", uploads ' + puts);
    ok('picked a ' + fs.statSync(big).size + '-byte file: POST /v1/uploads, ' + chunks + ' PUTs; "' + bigSaid + '"');

    if (errors.length) fail(errors.join('; '));
    ok('no console errors, no request outside the origin');
  } finally {
    await browser.close();
  }
})().catch((e) => fail(String(e && e.stack || e)));
