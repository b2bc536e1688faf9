// Preloaded into a node (`NODE_OPTIONS=--require`, where --cpu-prof is refused) by bench/large-group.ts:
// profiles the whole process and writes a .cpuprofile into CPU_PROFILE_DIR when it exits.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const session = new inspector.Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 1000 });
session.post('Profiler.start');
let written = false;
function write() {
  if (written) return;
  written = true;
  // The in-thread inspector session answers synchronously, so this works inside 'exit' too.
  session.post('Profiler.stop', (error, result) => {
    if (!error)
      writeFileSync(
        join(process.env.CPU_PROFILE_DIR, `node-${process.pid}.cpuprofile`),
        JSON.stringify(result.profile),
      );
  });
}
process.on('exit', write);
// The benchmark stops the node with SIGTERM, which may end it without an 'exit' event.
process.once('SIGTERM', () => {
  write();
  if (process.listenerCount('SIGTERM') === 0) process.exit(0);
});
