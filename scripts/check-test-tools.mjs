// `npm test`'s first step (pretest): the suites drive the real kubectl against the simulated cluster and the
// dashboard through tmux. Without them on PATH, stop at once with one line naming what is missing, rather than
// minutes later in the middle of the suite. (.ci/run installs both on Debian before it runs npm test.)
import {accessSync, constants} from 'node:fs';
import {delimiter, join} from 'node:path';

const TOOLS = [
  {command: 'kubectl', debian: 'kubernetes-client'},
  {command: 'tmux', debian: 'tmux'},
];

function onPath(command) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const missing = TOOLS.filter((tool) => !onPath(tool.command));
if (missing.length > 0) {
  const names = missing.map((tool) => tool.command).join(' and ');
  const packages = missing.map((tool) => tool.debian).join(' ');
  process.stderr.write(`error: npm test needs ${names} on PATH (Debian: apt-get install ${packages}; .ci/run installs them)\n`);
  process.exit(1);
}
