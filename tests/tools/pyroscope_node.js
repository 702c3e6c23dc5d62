// pyroscope_node.js MODULE_DIR URL APP TOKEN SECONDS: the Pyroscope Node.js
// client (@pyroscope/nodejs, from npm) profiling this process while it
// burns CPU in two named functions, about 2:1, pushing to URL every
// second with a bearer token; prints {"wall_ms", "cpu_ms"} of the run.
'use strict';
const [moduleDir, url, app, token, seconds] = process.argv.slice(2);
const Pyroscope = require(moduleDir + '/node_modules/@pyroscope/nodejs');

function spin(ms) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) x = (x * 31 + 7) % 1000003;
  return x;
}
function burnAlpha(ms) { return spin(ms); }
function burnBeta(ms) { return spin(ms); }

async function main() {
  Pyroscope.init({
    serverAddress: url,
    appName: app,
    authToken: token,
    tags: { region: 'test-eu' },
    flushIntervalMs: 1000,
    wall: { collectCpuTime: true },
  });
  Pyroscope.start();
  const t0 = Date.now(), c0 = process.cpuUsage();
  while (Date.now() - t0 < Number(seconds) * 1000) {
    burnAlpha(20);
    burnBeta(10);
    await new Promise((r) => setImmediate(r));
  }
  const c = process.cpuUsage(c0);
  const wall = Date.now() - t0;
  await Pyroscope.stop();
  // stop() flushes the last profile; give its request time to finish.
  await new Promise((r) => setTimeout(r, 500));
  console.log(JSON.stringify({ wall_ms: wall, cpu_ms: (c.user + c.system) / 1000 }));
}
main();
