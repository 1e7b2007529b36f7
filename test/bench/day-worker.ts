import fs from 'node:fs';
import { runDayMix, type DayMixConfig } from './day-mix';

/** The day mix's load generator in a process of its own (as load-worker.ts is autocannon's): reads a DayMixConfig file, prints the result as JSON. */
runDayMix(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as DayMixConfig).then(
  (r) => {
    // a pipe's write is asynchronous: exit once it is flushed, or the bench reads half a result
    process.stdout.write(JSON.stringify(r), () => process.exit(0));
  },
  (err) => {
    process.stderr.write(String(err?.stack ?? err));
    process.exit(1);
  },
);
