import { runCli } from './cli-program';

/** `cohort …`: the process entry (bin/cohort.js runs this through tsx). */
runCli(process.argv.slice(2), {
  io: { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
