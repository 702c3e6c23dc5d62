// pyroscope_node.js MODULE_DIR URL APP TOKEN SECONDS: the Pyroscope Node.js
// client (@pyroscope/nodejs, from npm) profiling this process while it
// burns SECONDS of CPU time in two named functions, 2:1, pushing to URL
// every second with a bearer token.  Prints, at its exit (which comes
// once no request is in flight: each holds the event loop):
//   wall_ms, cpu_ms  the burning's wall and CPU time;
//   sent_cpu_ms      the process's CPU time in the wall profiles the
//                    client sent (it drops a round's profile when the one
//                    before is still being sent, as on a loaded machine:
//                    dropped_rounds counts those);
//   pushes           the HTTP status of each request the client made (0:
//                    no answer), as node's diagnostics channels saw them.
// CPU time, not wall time, measures the work: a loaded machine lends the
// process less of each second, and the profiles sample what it ran.
'use strict';
const dc = require('diagnostics_channel');
const fs = require('fs');
const [moduleDir, url, app, token, seconds] = process.argv.slice(2);

// Requests by node's fetch (undici: the client's, now) and by its http
// module (the client's before, with axios).
const pushes = [], index = new WeakMap();
dc.channel('undici:request:create').subscribe(({ request }) => {
  index.set(request, pushes.push(0) - 1);
});
dc.channel('undici:request:headers').subscribe(({ request, response }) => {
  if (index.has(request)) pushes[index.get(request)] = response.statusCode;
});
dc.channel('http.client.request.start').subscribe(({ request }) => {
  const i = pushes.push(0) - 1;
  request.on('response', (res) => { pushes[i] = res.statusCode; });
});

function cpuMs() {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

// The rounds, in the pinned client's classes: each ends one profile
// (profilingRound, then stop) and sends it unless the one before is
// still in flight.  stop() clears a round's timer but not the round the
// timer may have queued already (setImmediate), which would then run on
// the stopped profiler and throw: such a round is skipped, and not
// scheduled again.
const dist = moduleDir + '/node_modules/@pyroscope/nodejs/dist/cjs/profilers/';
const { ContinuousProfiler } = require(dist + 'continuous-profiler.js');
const { WallProfiler } = require(dist + 'wall-profiler.js');
const cp = ContinuousProfiler.prototype;
const { profilingRound: round, scheduleProfilingRound: schedule,
  stop: cpStop } = cp;
const wallStop = WallProfiler.prototype.stop;
for (const f of [round, schedule, cpStop, wallStop])
  if (typeof f !== 'function')
    throw new Error('not the client pyroscope_node.js knows');
const stopped = new WeakSet();
cp.stop = function () {
  stopped.add(this);
  return cpStop.call(this);
};
cp.scheduleProfilingRound = function () {
  if (!stopped.has(this)) schedule.call(this);
};
let sentCpu = 0, droppedRounds = 0, windowStart;
cp.profilingRound = function () {
  if (stopped.has(this)) return Promise.resolve();
  if (this.profiler instanceof WallProfiler) {
    const now = cpuMs();
    if (this.lastExport === undefined) sentCpu += now - windowStart;
    else droppedRounds++;
    windowStart = now;
  }
  return round.call(this);
};
WallProfiler.prototype.stop = function () {
  sentCpu += cpuMs() - windowStart;
  return wallStop.call(this);
};

let run = {};
process.on('exit', () => {
  fs.writeSync(1, JSON.stringify({ ...run, sent_cpu_ms: sentCpu,
    dropped_rounds: droppedRounds, pushes }) + '\n');
});

const Pyroscope = require(moduleDir + '/node_modules/@pyroscope/nodejs');

function spin(ms) {	// ms of the process's CPU time
  const end = cpuMs() + ms;
  let x = 0;
  while (cpuMs() < end)
    for (let i = 0; i < 1000; i++) x = (x * 31 + 7) % 1000003;
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
  windowStart = cpuMs();
  Pyroscope.start();
  const t0 = Date.now(), c0 = cpuMs();
  while (cpuMs() - c0 < Number(seconds) * 1000) {
    burnAlpha(20);
    burnBeta(10);
    await new Promise((r) => setImmediate(r));
  }
  run = { wall_ms: Date.now() - t0, cpu_ms: cpuMs() - c0 };
  // Sends the last profile; its request, if still in flight, keeps the
  // process until it is answered.
  await Pyroscope.stop();
}
main();
