// The bundle's entry (build/bundle.mjs): both plugins and both completion executables call run().
// __DS_ROLLOUT_PJSON__ is package.json's name, version, type and oclif sections, written in at build time.
import {runPlugin} from '../src/cli.ts';

/* global __DS_ROLLOUT_PJSON__ */
export function run(plugin, root, args = process.argv.slice(2)) {
  return runPlugin(plugin, args, {root, pjson: __DS_ROLLOUT_PJSON__});
}
