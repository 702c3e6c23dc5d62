// units.js: pprof's measurement rules, as profctl prints them
// (client/units.c): values scaled to one unit per report, two decimals
// with ".00" dropped, percentages with at least two significant digits.
'use strict';

const Units = (() => {
  const memory = [['B', ['b', 'byte'], 1], ['kB', ['kb', 'kbyte', 'kilobyte'], 1024],
    ['MB', ['mb', 'mbyte', 'megabyte'], 1048576], ['GB', ['gb', 'gbyte', 'gigabyte'], 1073741824],
    ['TB', ['tb', 'tbyte', 'terabyte'], 1099511627776],
    ['PB', ['pb', 'pbyte', 'petabyte'], 1125899906842624]];
  const time = [['ns', ['ns', 'nanosecond'], 1], ['us', ['\u03bcs', 'us', 'microsecond'], 1e3],
    ['ms', ['ms', 'millisecond'], 1e6], ['s', ['s', 'sec', 'second'], 1e9],
    ['hrs', ['hour', 'hr'], 3600e9]];
  const gcu = [['n*GCU', ['nanogcu'], 1e-9], ['u*GCU', ['microgcu'], 1e-6],
    ['m*GCU', ['milligcu'], 1e-3], ['GCU', ['gcu'], 1], ['k*GCU', ['kilogcu'], 1e3],
    ['M*GCU', ['megagcu'], 1e6], ['G*GCU', ['gigagcu'], 1e9], ['T*GCU', ['teragcu'], 1e12],
    ['P*GCU', ['petagcu'], 1e15]];
  const types = [[memory, 'B', 1], [time, 's', 1e9], [gcu, 'GCU', 1]];

  function sniff(units, name) {
    let l = String(name).toLowerCase();
    if (l.length > 2 && l.endsWith('s')) l = l.slice(0, -1);
    return units.find((u) => u[1].includes(l)) || null;
  }

  // [scaled value, unit name] of value (in unit from) in unit to
  // ("minimum"/"auto": the largest unit the value reaches).
  function scale(value, from, to) {
    if (value < 0) {
      const [v, u] = scale(-value, from, to);
      return [-v, u];
    }
    for (const [units, defName, defFactor] of types) {
      const fu = sniff(units, from);
      if (!fu) continue;
      const v = value * fu[2];
      if (to === 'minimum' || to === 'auto') {
        let f = 0, name = '';
        for (const u of units)
          if (u[2] >= f && v / u[2] >= 1) { f = u[2]; name = u[0]; }
        if (f === 0) return [v / defFactor, defName];
        return [v / f, name];
      }
      const tu = sniff(units, to);
      if (!tu) return [v / defFactor, defName];
      return [v / tu[2], tu[0]];
    }
    if (['count', 'sample', 'unit', 'minimum', 'auto'].includes(to)) return [value, ''];
    return [value, to];
  }

  // printf's "%.*f" (and Go's strconv, so pprof): an exact tie rounds to
  // the even digit, where toFixed rounds it up (1.125 -> "1.12", not
  // "1.13": 1152 B as kB).  A value shown has a binary fraction that ends
  // within 70 decimal digits, so toFixed's exact digits show a tie.
  function fixed(x, d) {
    const s = Math.abs(x).toFixed(Math.min(100, d + 70));
    const dot = s.indexOf('.');
    if (!/^50*$/.test(s.slice(dot + 1 + d))) return x.toFixed(d);
    const kept = s.slice(0, d > 0 ? dot + 1 + d : dot);
    if (parseInt(kept[kept.length - 1], 10) % 2 !== 0) return x.toFixed(d);
    return (x < 0 ? '-' : '') + kept;
  }

  function label(value, from, to) {
    const [v, u] = scale(value, from, to || 'minimum');
    let num = fixed(v, 2);
    if (num.endsWith('.00')) num = num.slice(0, -3);
    if (num === '0' || num === '-0') return '0';
    return num + u;
  }

  // C's "%.2g" of a ratio below 1 %: exponential below 1e-4.
  function g2(r) {
    if (r === 0) return '0';
    const [m, e] = r.toExponential(1).split('e');
    const n = parseInt(e, 10);
    const mant = m.replace(/\.0$/, '');
    if (n < -4) return mant + 'e' + (n < 0 ? '-' : '+') + String(Math.abs(n)).padStart(2, '0');
    return fixed(r, Math.max(0, 1 - n)).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  }

  function percentage(value, total) {
    const r = total !== 0 ? Math.abs(value / total) * 100 : 0;
    if (r >= 99.95 && r <= 100.05) return '100%';
    if (r >= 1) return fixed(r, 2) + '%';
    return g2(r) + '%';
  }

  // The report's unit: pprof's selectOutputUnit (render_output_unit).
  function outputUnit(unit, rows, total) {
    if (rows.length === 0) return 'minimum';
    let min = 0;
    for (const r of rows) {
      let m = Math.abs(r.flat);
      if (m === 0) m = Math.abs(r.cum);
      if (m > 0 && (min === 0 || m < min)) min = m;
    }
    const max = total;
    if (min === 0) min = max;
    const minU = scale(min, unit, 'minimum')[1], maxU = scale(max, unit, 'minimum')[1];
    let u = minU;
    if (minU !== maxU && min * 100 < max) u = scale(min * 100, unit, 'minimum')[1];
    return u !== '' ? u : unit;
  }

  return { scale, label, percentage, outputUnit };
})();
