// flame.js: the flame graph on a canvas.  The tree of /v1/tree is laid
// out once into flat arrays in pre-order (a node's subtree is the index
// range [i, end[i])), so a redraw visits only frames wide enough to see and
// skips a narrow subtree in one step: smooth at hundreds of thousands of
// nodes.  Root on top (icicle) or at the bottom (flame), zoom on a frame
// with its ancestors kept full width, regex search with the matched share
// (a subtree counted once), colours by package or by frame kind.
'use strict';

class FlameTree {
  // root: {name, self, total, file, line, frame_line, inline, mapping,
  // children: [...]}
  constructor(root) {
    let n = 0;
    const count = [root];
    while (count.length) {
      const x = count.pop();
      n++;
      const kids = x.children;
      if (kids) for (let k = 0; k < kids.length; k++) count.push(kids[k]);
    }
    this.n = n;
    this.depth = new Int32Array(n);
    this.parent = new Int32Array(n);
    this.end = new Int32Array(n);
    this.start = new Float64Array(n);
    this.total = new Float64Array(n);
    this.self = new Float64Array(n);
    this.name = new Int32Array(n);
    this.other = new Uint8Array(n);
    this.names = [];
    this.nameIndex = new Map();
    this.file = [];
    this.line = [];
    this.frameLine = [];
    this.inl = new Uint8Array(n);
    this.mapping = [];
    this.maxDepth = 0;
    // A differential tree (/v1/diff): total = base + current, so that
    // children always fit in their parent; base and current kept apart.
    const diff = this.diff = root.base !== undefined;
    if (diff) {
      this.base = new Float64Array(n);
      this.current = new Float64Array(n);
    }
    const width = diff ? (x) => Math.abs(x.base || 0) + Math.abs(x.current || 0)
      : (x) => Math.abs(x.total || 0);
    // Pre-order without a tuple per node: the stack holds the nodes, and
    // the parent, depth and start of each slot in typed arrays; a node's
    // end is set when the walk comes back to its depth or above.
    const st = [root], sp = new Int32Array(n), sd = new Int32Array(n), ss = new Float64Array(n);
    sp[0] = -1;
    const open = new Int32Array(n);
    let top = 0, nopen = 0;
    for (let i = 0; st.length; i++) {
      top = st.length - 1;
      const x = st.pop(), p = sp[top], d = sd[top], s0 = ss[top];
      while (nopen > 0 && this.depth[open[nopen - 1]] >= d) this.end[open[--nopen]] = i;
      open[nopen++] = i;
      this.depth[i] = d;
      this.parent[i] = p;
      this.start[i] = s0;
      if (diff) {
        this.base[i] = x.base || 0;
        this.current[i] = x.current || 0;
        this.self[i] = Math.abs(x.base_self || 0) + Math.abs(x.current_self || 0);
      } else this.self[i] = x.self || 0;
      this.total[i] = width(x);
      this.name[i] = this.intern(x.name);
      if (x.other) this.other[i] = 1;
      if (x.file) this.file[i] = x.file;
      if (x.line) this.line[i] = x.line;
      if (x.frame_line) this.frameLine[i] = x.frame_line;
      if (x.inline) this.inl[i] = 1;
      if (x.mapping) this.mapping[i] = x.mapping;
      if (d > this.maxDepth) this.maxDepth = d;
      const kids = x.children;
      if (!kids || !kids.length) continue;
      // Children pushed last first, so that the first is visited first.
      let off = s0;
      const base = st.length;
      for (let k = 0; k < kids.length; k++) {
        sp[base + kids.length - 1 - k] = i;
        sd[base + kids.length - 1 - k] = d + 1;
        ss[base + kids.length - 1 - k] = off;
        off += width(kids[k]);
      }
      for (let k = kids.length - 1; k >= 0; k--) st.push(kids[k]);
    }
    while (nopen > 0) this.end[open[--nopen]] = n;
  }

  intern(s) {
    let k = this.nameIndex.get(s);
    if (k === undefined) { k = this.names.length; this.names.push(s); this.nameIndex.set(s, k); }
    return k;
  }

  nameOf(i) { return this.names[this.name[i]]; }

  children(i) {
    const out = [];
    for (let c = i + 1; c < this.end[i]; c = this.end[c]) out.push(c);
    return out;
  }

  // The names from the root's child down to i.
  path(i) {
    const out = [];
    for (; i > 0; i = this.parent[i]) out.push(this.nameOf(i));
    return out.reverse();
  }

  // The node at a path of names, or the deepest found.
  find(path) {
    let i = 0;
    for (const name of path) {
      const c = this.children(i).find((k) => this.nameOf(k) === name);
      if (c === undefined) break;
      i = c;
    }
    return i;
  }

  // Nodes whose name (or file) re matches, and the share of the root
  // they stand for, each subtree counted once.
  search(re) {
    const hit = new Uint8Array(this.n);
    const nameHit = this.names.map((s) => re.test(s));
    let sum = 0;
    for (let i = 0; i < this.n; i++) {
      if (i > 0 && nameHit[this.name[i]]) hit[i] = 1;
    }
    for (let i = 1; i < this.n;) {
      if (hit[i]) { sum += this.total[i]; i = this.end[i]; } else i++;
    }
    return { hit, sum, share: this.total[0] > 0 ? sum / this.total[0] : 0 };
  }

  // The sandwich of a function: its callers (paths up from each outermost
  // call, merged) and callees (the subtrees under them, merged), as trees.
  sandwich(fname) {
    const k = this.nameIndex.get(fname);
    const callers = { name: fname, self: 0, total: 0, children: [] };
    const callees = { name: fname, self: 0, total: 0, children: [] };
    if (k === undefined) return { callers, callees };
    const child = (node, name) => {
      node.map = node.map || new Map();
      let c = node.map.get(name);
      if (!c) {
        c = { name, self: 0, total: 0, children: [] };
        node.map.set(name, c);
        node.children.push(c);
      }
      return c;
    };
    const merge = (into, i) => {
      into.total += this.total[i];
      into.self += this.self[i];
      for (const c of this.children(i)) merge(child(into, this.nameOf(c)), c);
    };
    for (let i = 1; i < this.n;) {
      if (this.name[i] !== k) { i++; continue; }
      const t = this.total[i];
      callers.total += t;
      let node = callers;
      for (let p = this.parent[i]; p > 0; p = this.parent[p]) {
        node = child(node, this.nameOf(p));
        node.total += t;
      }
      node.self += t;
      merge(callees, i);
      i = this.end[i];
    }
    const sort = (x) => {
      delete x.map;
      x.children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      x.children.forEach(sort);
    };
    sort(callers);
    sort(callees);
    return { callers, callees };
  }
}

// The package of a function name: "crypto/sha256.block" -> "crypto/sha256",
// "(*T).m" receivers kept with their package, "ns::C::f" -> "ns".
function flamePackage(name) {
  if (name.includes('::')) return name.split('::')[0];
  const slash = name.lastIndexOf('/');
  const dot = name.indexOf('.', slash + 1);
  return dot > 0 ? name.slice(0, dot) : name;
}

function flameKind(name, mapping) {
  if (name.endsWith('_[k]')) return 'kernel';
  if (mapping) {
    const base = mapping.slice(mapping.lastIndexOf('/') + 1);
    if (mapping.startsWith('[kernel') || mapping === '[vdso]' || base.startsWith('vmlinux'))
      return 'kernel';
  }
  for (const p of ['runtime.', 'runtime/', 'internal/runtime/', 'std::__', '__gnu_cxx::',
    '__cxxabiv1::', '__libc_', '_dl_', '__GI_'])
    if (name.startsWith(p)) return 'runtime';
  return 'user';
}

function flameHash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}

const FLAME_KIND_HUES = { user: [20, 50], runtime: [190, 215], kernel: [95, 125] };

class FlameGraph {
  // opts: {canvas, tooltip, inverted, onZoom(i), onMenu(i, ev), onSelect(i)}
  constructor(opts) {
    this.opts = opts;
    this.canvas = opts.canvas;
    this.ctx = this.canvas.getContext('2d');
    this.tree = null;
    this.zoom = 0;
    this.cursor = -1;
    this.hit = null;
    this.colorBy = 'package';
    this.inline = new Set();
    this.unit = '';
    this.rowH = 18;
    this.colors = new Map();
    this.visible = [];
    const c = this.canvas;
    c.tabIndex = 0;
    c.addEventListener('mousemove', (e) => this.hover(e));
    c.addEventListener('mouseleave', () => this.tip(null));
    c.addEventListener('click', (e) => {
      const i = this.at(e);
      if (i >= 0) { this.cursor = i; this.opts.onZoom && this.opts.onZoom(i); }
    });
    c.addEventListener('contextmenu', (e) => {
      const i = this.at(e);
      if (i >= 0 && this.opts.onMenu) { e.preventDefault(); this.opts.onMenu(i, e); }
    });
    c.addEventListener('keydown', (e) => this.key(e));
    this.resizeObserver = new ResizeObserver(() => this.draw());
    this.observed = false;
  }

  set(tree) {
    this.tree = tree;
    this.zoom = 0;
    this.cursor = -1;
    this.hit = null;
    this.colors.clear();
  }

  color(i) {
    const t = this.tree;
    if (t.other[i]) return '#b0b0b0';
    if (t.diff) {
      // Red grew, blue shrank, by the change against the larger side.
      const b = t.base[i], c = t.current[i], m = Math.max(Math.abs(b), Math.abs(c));
      const r = m > 0 ? (c - b) / m : 0;
      const k = Math.round(200 * (1 - Math.min(1, Math.abs(r))) + 20);
      if (Math.abs(r) < 0.02) return 'rgb(205,205,205)';
      return r > 0 ? 'rgb(255,' + k + ',' + k + ')' : 'rgb(' + k + ',' + k + ',255)';
    }
    const key = this.colorBy === 'kind' ? 'k' + t.name[i] : t.name[i];
    let c = this.colors.get(key);
    if (c) return c;
    const name = t.nameOf(i);
    if (this.colorBy === 'kind') {
      const [a, b] = FLAME_KIND_HUES[flameKind(name, t.mapping[i])];
      const h = flameHash(name);
      c = 'hsl(' + (a + (h % (b - a))) + ',' + (55 + (h >> 8) % 20) + '%,' + (55 + (h >> 16) % 12) + '%)';
    } else {
      const h = flameHash(flamePackage(name)), v = flameHash(name);
      c = 'hsl(' + (h % 360) + ',' + (45 + (h >> 9) % 25) + '%,' + (58 + (v >> 7) % 14) + '%)';
    }
    this.colors.set(key, c);
    return c;
  }

  // Lay out what is visible at this width: frames at least half a pixel.
  layout(width) {
    const t = this.tree, z = this.zoom;
    const scale = t.total[z] > 0 ? width / t.total[z] : 0;
    const x0 = t.start[z];
    const vis = [], xs = [], ws = [];
    const anc = [];
    for (let a = t.parent[z]; a >= 0; a = t.parent[a]) anc.push(a);
    for (let k = anc.length - 1; k >= 0; k--) { vis.push(anc[k]); xs.push(0); ws.push(width); }
    let maxd = t.depth[z];
    for (let i = z; i < t.end[z];) {
      const w = t.total[i] * scale;
      if (w < 0.5) { i = t.end[i]; continue; }
      vis.push(i);
      xs.push((t.start[i] - x0) * scale);
      ws.push(w);
      if (t.depth[i] > maxd) maxd = t.depth[i];
      i++;
    }
    return { vis, xs, ws, maxd, scale };
  }

  draw() {
    if (!this.tree) return;
    const t = this.tree, c = this.canvas, ctx = this.ctx;
    if (!c.parentElement) return;
    if (!this.observed) { this.resizeObserver.observe(c.parentElement); this.observed = true; }
    const cssW = Math.max(100, c.parentElement.clientWidth);
    const L = this.layout(cssW);
    this.L = L;
    const rows = L.maxd + 1, rowH = this.rowH;
    const cssH = rows * rowH + 2;
    const dpr = window.devicePixelRatio || 1;
    c.style.width = cssW + 'px';
    c.style.height = cssH + 'px';
    if (c.width !== Math.round(cssW * dpr) || c.height !== Math.round(cssH * dpr)) {
      c.width = Math.round(cssW * dpr);
      c.height = Math.round(cssH * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    const fg = '#111';
    ctx.font = '12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
    ctx.textBaseline = 'middle';
    const cw = ctx.measureText('m').width || 7;
    const hit = this.hit;
    const byDepth = [];
    for (let k = 0; k < L.vis.length; k++) {
      const i = L.vis[k], x = L.xs[k], w = L.ws[k], d = t.depth[i];
      const y = this.opts.inverted ? (rows - 1 - d) * rowH : d * rowH;
      (byDepth[d] = byDepth[d] || []).push(k);
      const anc = t.depth[i] < t.depth[this.zoom];
      ctx.fillStyle = hit && hit[i] ? '#e600e6' : this.color(i);
      ctx.globalAlpha = anc ? 0.55 : 1;
      ctx.fillRect(x, y, Math.max(w - (w > 2 ? 1 : 0), 0.5), rowH - 1);
      ctx.globalAlpha = 1;
      if (this.inlined(i) && w > 6) {
        ctx.fillStyle = 'rgba(0,0,0,0.45)';
        ctx.fillRect(x, y + rowH - 4, Math.min(w - 1, 6), 3);
      }
      if (i === this.cursor) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 2;
        ctx.strokeRect(x + 1, y + 1, Math.max(w - 3, 1), rowH - 3);
      }
      if (w > cw * 3 + 6) {
        const name = t.nameOf(i), fit = Math.floor((w - 6) / cw);
        ctx.fillStyle = fg;
        ctx.fillText(name.length > fit ? name.slice(0, fit - 2) + '..' : name, x + 3, y + rowH / 2);
      }
    }
    this.byDepth = byDepth;
    this.rows = rows;
  }

  // The view as it is drawn now, as a standalone SVG (a download): each
  // frame a rect with its description as a title.
  toSVG(width) {
    const t = this.tree, L = this.layout(width), rows = L.maxd + 1, rowH = this.rowH;
    const esc = (x) => String(x).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    const cw = 7.2;
    const out = ['<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="' + width +
      '" height="' + (rows * rowH + 2) + '" font-family="monospace" font-size="12">'];
    for (let k = 0; k < L.vis.length; k++) {
      const i = L.vis[k], x = L.xs[k], w = L.ws[k], d = t.depth[i];
      const y = (this.opts.inverted ? rows - 1 - d : d) * rowH;
      const name = t.nameOf(i), fit = Math.floor((w - 6) / cw);
      out.push('<g class="f" data-n="' + esc(name) + '"><title>' + esc(this.describe(i).join('\n')) +
        '</title><rect x="' + x.toFixed(2) + '" y="' + y + '" width="' + Math.max(w - 1, 0.5).toFixed(2) +
        '" height="' + (rowH - 1) + '" fill="' + (this.hit && this.hit[i] ? '#e600e6' : this.color(i)) + '"/>' +
        (fit >= 3 ? '<text x="' + (x + 3).toFixed(2) + '" y="' + (y + rowH / 2 + 4) + '">' +
        esc(name.length > fit ? name.slice(0, fit - 2) + '..' : name) + '</text>' : '') + '</g>');
    }
    out.push('</svg>\n');
    return out.join('\n');
  }

  // Where the first visible frame of a name is drawn, in client
  // coordinates (for the tests, and the console), or null.
  rectOf(name) {
    if (!this.L) return null;
    const r = this.canvas.getBoundingClientRect();
    for (let k = 0; k < this.L.vis.length; k++) {
      const i = this.L.vis[k];
      if (this.tree.nameOf(i) !== name) continue;
      const d = this.tree.depth[i];
      const y = (this.opts.inverted ? this.rows - 1 - d : d) * this.rowH;
      return { x: r.left + this.L.xs[k], y: r.top + y, w: this.L.ws[k], h: this.rowH };
    }
    return null;
  }

  // The visible frame under a mouse event, or -1.
  at(e) {
    if (!this.L) return -1;
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    let d = Math.floor(y / this.rowH);
    if (this.opts.inverted) d = this.rows - 1 - d;
    const list = this.byDepth && this.byDepth[d];
    if (!list) return -1;
    let lo = 0, hi = list.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1, k = list[m];
      if (x < this.L.xs[k]) hi = m - 1;
      else if (x >= this.L.xs[k] + this.L.ws[k]) lo = m + 1;
      else return this.L.vis[k];
    }
    return -1;
  }

  // Marked inlined: the frame (every one merged into the node was inlined
  // into its caller, per /v1/tree), or its function (a tree built here,
  // as the sandwich's, by the names in this.inline).
  inlined(i) { return this.tree.inl[i] === 1 || this.inline.has(this.tree.nameOf(i)); }

  // file:line of the frame itself when its frames agree on one, else the
  // function's start line, said so.
  source(i) {
    const t = this.tree;
    if (t.frameLine[i]) return t.file[i] + ':' + t.frameLine[i];
    return t.file[i] + (t.line[i] ? ':' + t.line[i] + ' (the function\'s start)' : '');
  }

  describe(i) {
    const t = this.tree, u = this.unit, root = t.total[0];
    const pct = (v, of) => (of > 0 ? (100 * v / of).toFixed(2) + '%' : '-');
    const p = t.parent[i];
    const lines = [t.nameOf(i) + (this.inlined(i) ? '  (inlined)' : '')];
    if (t.diff) {
      const b = t.base[i], c = t.current[i];
      lines.push('base ' + Units.label(b, u) + ', current ' + Units.label(c, u) + ', change ' +
        (c - b >= 0 ? '+' : '') + Units.label(c - b, u) + (b !== 0 ? ' (' + (c - b >= 0 ? '+' : '') +
        (100 * (c - b) / Math.abs(b)).toFixed(1) + '%)' : ''));
      if (t.file[i]) lines.push(this.source(i));
      return lines;
    }
    lines.push('self ' + Units.label(t.self[i], u) + ' (' + pct(t.self[i], root) + ' of root)');
    lines.push('total ' + Units.label(t.total[i], u) + ' (' + pct(t.total[i], root) + ' of root' +
      (p >= 0 ? ', ' + pct(t.total[i], t.total[p]) + ' of parent' : '') + ')');
    if (t.file[i]) lines.push(this.source(i));
    if (t.mapping[i]) lines.push(t.mapping[i]);
    return lines;
  }

  tip(i, e) {
    const tt = this.opts.tooltip;
    if (!tt) return;
    if (i == null || i < 0) { tt.hidden = true; return; }
    tt.replaceChildren(...this.describe(i).map((s, k) => {
      const d = document.createElement('div');
      d.textContent = s;
      if (k === 0) d.className = 'tt-name';
      return d;
    }));
    tt.hidden = false;
    const pad = 14, vw = window.innerWidth, vh = window.innerHeight;
    const r = tt.getBoundingClientRect();
    let x = e.clientX + pad, y = e.clientY + pad;
    if (x + r.width > vw) x = Math.max(0, e.clientX - r.width - pad);
    if (y + r.height > vh) y = Math.max(0, e.clientY - r.height - pad);
    tt.style.left = x + 'px';
    tt.style.top = y + 'px';
  }

  hover(e) {
    const i = this.at(e);
    this.canvas.style.cursor = i >= 0 ? 'pointer' : 'default';
    this.tip(i, e);
  }

  // Arrows walk the frames (up/down: parent and heaviest child, or the
  // other way round when the root is at the bottom; left/right: the
  // neighbours on the row), Enter zooms, Escape zooms out.
  key(e) {
    const t = this.tree;
    if (!t) return;
    let c = this.cursor >= 0 ? this.cursor : this.zoom;
    const down = this.opts.inverted ? 'ArrowUp' : 'ArrowDown';
    const up = this.opts.inverted ? 'ArrowDown' : 'ArrowUp';
    if (e.key === down) {
      const kids = t.children(c);
      if (kids.length) c = kids.reduce((a, b) => (t.total[b] > t.total[a] ? b : a));
    } else if (e.key === up) {
      if (t.parent[c] >= 0) c = t.parent[c];
    } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      const row = (this.byDepth[t.depth[c]] || []).map((k) => this.L.vis[k]);
      const at = row.indexOf(c);
      const n = at + (e.key === 'ArrowLeft' ? -1 : 1);
      if (at >= 0 && n >= 0 && n < row.length) c = row[n];
    } else if (e.key === 'Enter') {
      if (this.opts.onZoom) this.opts.onZoom(c);
      e.preventDefault();
      return;
    } else if (e.key === 'Escape') {
      if (this.opts.onZoom && this.zoom !== 0) this.opts.onZoom(t.parent[this.zoom] >= 0 ? t.parent[this.zoom] : 0);
      e.preventDefault();
      return;
    } else if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
      if (this.opts.onMenu && this.cursor >= 0) {
        const r = this.canvas.getBoundingClientRect();
        this.opts.onMenu(this.cursor, { clientX: r.left + 20, clientY: r.top + 20, preventDefault() {} });
      }
      e.preventDefault();
      return;
    } else return;
    e.preventDefault();
    this.cursor = c;
    this.draw();
    if (this.opts.onSelect) this.opts.onSelect(c);
  }
}
