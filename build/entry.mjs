// The bundle's entry (build/bundle.mjs): both plugins and both completion executables call run().
// __DS_ROLLOUT_PJSON__ is package.json's name, version, type and oclif sections, written in at build time.
// `[COMMAND] --help` prints the text the help class rendered when the bundle was built (__DS_ROLLOUT_HELP__,
// written in by build/bundle.mjs), without loading oclif: Node starts, prints, and ends. Anything else loads the CLI.

/* global __DS_ROLLOUT_PJSON__, __DS_ROLLOUT_HELP__ */
const HELP_FLAGS = new Set(['--help', '-h']);

/** {plan: {'': text}, rollout: {'': text, step: text, 'sim start': text, ...}}; empty where the build wrote none (the single executable). */
const HELP = parsed(__DS_ROLLOUT_HELP__);

function parsed(json) {
  return json.startsWith('{') ? JSON.parse(json) : {};
}

export async function run(plugin, root, args = process.argv.slice(2)) {
  const help = renderedHelp(plugin, args);
  if (help !== undefined) {
    // As console.log, which prints the help otherwise: a closed pipe (`| head -1`) is not an error.
    process.stdout.on('error', () => undefined);
    process.stdout.write(help);
    return;
  }
  // A live plan's reads go out before oclif and the planner load (src/cli/early-plan.ts).
  if (plugin === 'plan') await (await import('../src/cli/early-plan.ts')).startEarlyPlan(args);
  const {runPlugin} = await import('../src/cli.ts');
  return runPlugin(plugin, args, {root, pjson: __DS_ROLLOUT_PJSON__});
}

/**
 * The built-in text for `WORDS --help` (or `-h`): only command and topic words before the one help flag, and only
 * under the kubectl spelling, which runPlugin chooses unless KUBECTL_DS_INVOKED_AS is set empty.
 */
function renderedHelp(plugin, args) {
  if (!HELP_FLAGS.has(args.at(-1)) || process.env.KUBECTL_DS_INVOKED_AS === '') return undefined;
  const words = args.slice(0, -1);
  if (!words.every((word) => /^[a-z][a-z-]*$/.test(word))) return undefined;
  const texts = HELP[plugin] ?? {};
  const key = words.join(' ');
  return Object.hasOwn(texts, key) ? texts[key] : undefined;
}

/** Every help text, rendered by the CLI's help class (build/bundle.mjs calls this on the bundle it built). */
export async function renderHelp(root) {
  const {renderHelpTexts} = await import('../src/cli.ts');
  return renderHelpTexts({root, pjson: __DS_ROLLOUT_PJSON__});
}
