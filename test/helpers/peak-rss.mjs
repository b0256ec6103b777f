// Loaded into a CLI child with `node --import` by tests that bound memory: at exit, the process's peak resident
// set size (KiB, from getrusage) goes to the file DS_PEAK_RSS_FILE names, never to stdout or stderr.
import {writeFileSync} from 'node:fs';

process.on('exit', () => {
  if (process.env.DS_PEAK_RSS_FILE) writeFileSync(process.env.DS_PEAK_RSS_FILE, String(process.resourceUsage().maxRSS));
});
