// timeline.js: the selection's sample totals over time on a canvas, with a
// brush: dragging selects a window, which the page turns into since and
// until; the window in force is shaded.
'use strict';

class Timeline {
  // opts: {canvas, onBrush(t0ns, t1ns), onClear(), onHover(text)}
  constructor(opts) {
    this.opts = opts;
    this.c = opts.canvas;
    this.points = [];
    this.drag = null;
    this.win = null;
    this.height = 64;
    this.c.addEventListener('mousedown', (e) => {
      if (!this.points.length) return;
      this.drag = { a: this.x(e), b: this.x(e) };
      e.preventDefault();
    });
    window.addEventListener('mousemove', (e) => {
      if (this.drag) { this.drag.b = this.x(e); this.draw(); }
    });
    window.addEventListener('mouseup', (e) => {
      if (!this.drag) return;
      const d = this.drag;
      this.drag = null;
      if (Math.abs(d.b - d.a) < 3) { this.draw(); return; }
      const t0 = this.time(Math.min(d.a, d.b)), t1 = this.time(Math.max(d.a, d.b));
      this.opts.onBrush(t0, t1);
    });
    this.c.addEventListener('dblclick', () => this.opts.onClear());
    this.c.addEventListener('mousemove', (e) => {
      if (!this.points.length || !this.opts.onHover) return;
      const k = Math.min(this.points.length - 1, Math.max(0, Math.floor(this.x(e) / this.w * this.points.length)));
      this.opts.onHover(this.points[k]);
    });
    new ResizeObserver(() => this.draw()).observe(this.c.parentElement);
  }

  x(e) { return Math.max(0, Math.min(this.w, e.clientX - this.c.getBoundingClientRect().left)); }

  // The time at x: the start of the step under it, as the API's buckets.
  time(x) {
    const n = this.points.length;
    const k = Math.min(n - 1, Math.max(0, Math.floor(x / this.w * n)));
    return this.points[k].time_ns;
  }

  set(points, stepNs, win) {
    this.points = points;
    this.step = stepNs;
    this.win = win;
    this.draw();
  }

  draw() {
    const c = this.c, ctx = c.getContext('2d');
    const w = Math.max(100, c.parentElement.clientWidth), h = this.height;
    const dpr = window.devicePixelRatio || 1;
    this.w = w;
    c.style.width = w + 'px';
    c.style.height = h + 'px';
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const p = this.points, n = p.length;
    if (!n) return;
    const css = getComputedStyle(document.documentElement);
    const first = p[0].time_ns, last = p[n - 1].time_ns + this.step;
    if (this.win) {
      const a = Math.max(0, (this.win[0] - first) / (last - first) * w);
      const b = Math.min(w, (this.win[1] + this.step - first) / (last - first) * w);
      ctx.fillStyle = css.getPropertyValue('--shade').trim() || 'rgba(80,120,255,0.18)';
      ctx.fillRect(a, 0, Math.max(b - a, 1), h);
    }
    let max = 0;
    for (const q of p) max = Math.max(max, Math.abs(q.value));
    ctx.fillStyle = css.getPropertyValue('--acc').trim() || '#2060c0';
    // A few wide steps get bars of at most 16 px, centred in their step.
    const bw = w / n, bar = Math.max(Math.min(bw - (bw > 3 ? 1 : 0), 16), 1);
    for (let k = 0; k < n; k++) {
      if (!p[k].value) continue;
      const bh = Math.max(1, Math.abs(p[k].value) / max * (h - 4));
      ctx.fillRect(k * bw + (bw - bar) / 2, h - bh, bar, bh);
    }
    if (this.drag) {
      ctx.fillStyle = 'rgba(120,120,120,0.35)';
      ctx.fillRect(Math.min(this.drag.a, this.drag.b), 0, Math.abs(this.drag.b - this.drag.a), h);
    }
  }
}
