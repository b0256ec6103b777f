// oclif's command_not_found hook: kubectl's (cobra's) one line with the nearest command, instead of oclif's
// "command rollout:stats:x not found".
import type {Hook} from '@oclif/core';
import {nearest} from '../suggest.js';

const hook: Hook<'command_not_found'> = async function (options) {
  const words = options.id.split(':');
  // The topic the user was in (`rollout` for kubectl ds-rollout), then the word that is not one of its commands.
  const topic = words[0] === 'rollout' && words.length > 1 ? 'rollout' : '';
  const typed = topic ? words[1]! : words[0]!;
  const candidates = options.config.commandIDs
    .filter((id) => (topic ? id.startsWith(`${topic}:`) : !id.includes(':')))
    .map((id) => (topic ? id.slice(topic.length + 1) : id))
    .filter((id) => !id.includes(':'));
  const kubectl = Boolean(process.env.KUBECTL_DS_INVOKED_AS);
  const parent = kubectl ? (topic ? 'kubectl ds-rollout' : 'kubectl ds') : topic ? `${options.config.bin} ${topic}` : options.config.bin;
  const suggestion = nearest(typed, candidates);
  process.stderr.write(
    `error: unknown command "${typed.slice(0, 40)}" for "${parent}"${suggestion ? `. Did you mean ${suggestion}?` : ''} (see '${parent} --help')\n`,
  );
  process.exitCode = 1;
};

export default hook;
