// `npm run docs`: the pictures of the README, made from the real renderers, never drawn by hand. The dashboard is
// the demo scenario of the simulated cluster, loaded at a fixed instant and drawn by the dashboard's own screen;
// ds-plan is the built CLI on the bundled example snapshot with a fixed --now. Both are rendered in colour and
// turned into SVG here. test/docs/screenshots.test.ts renders them again and fails when the committed copies
// are stale. Needs `npm run build` (ds-plan runs the built bundle).
import {execFile} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import type {ClusterState} from '../src/core/index.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The instant both pictures are taken at (the example snapshot's and the test builders' NOW). */
const AT = '2026-11-21T12:00:00Z';
const DASHBOARD_SIZE = {columns: 150, rows: 34};

/** Where each picture goes, relative to the repository. */
export const PICTURES = ['docs/images/dashboard.svg', 'docs/images/ds-plan.svg'] as const;

/** The dashboard on the demo scenario, mid-rollout, as the terminal shows it (ANSI). */
async function dashboardFrame(): Promise<string> {
  // Ink's colours are chosen when chalk loads: ask for the 16 basic ones, whatever runs this.
  process.env.FORCE_COLOR = '1';
  process.env.NODE_ENV ??= 'production';
  const [{renderToString}, {createElement}, core, {ManualClock}, {loadScenario}, {Store}, ui] = await Promise.all([
    import('ink'),
    import('react'),
    import('../src/core/index.js'),
    import('../src/sim/clock.js'),
    import('../src/sim/scenarios.js'),
    import('../src/sim/store.js'),
    Promise.all([
      import('../src/ui/dashboard/DashboardScreen.js'),
      import('../src/ui/dashboard/dashboard-state.js'),
      import('../src/services/dashboard/revision-entries.js'),
      import('../src/ui/dashboard/revision-diff.js'),
      import('../src/ui/dashboard/theme.js'),
      import('../src/ui/dashboard/view-model.js'),
    ]),
  ]);
  const [{DashboardScreen}, {initialDashboardState}, {toRevisionEntries}, {diffRevisionTemplates}, {DEFAULT_THEME}, {toDashboardViewModel}] = ui;
  const now = Date.parse(AT);
  const store = new Store({clock: new ManualClock(now)});
  for (const name of ['default', 'kube-system', 'kube-public']) store.create({kind: 'Namespace', apiVersion: 'v1', metadata: {name}});
  loadScenario(store, 'demo', now);
  const state = {
    daemonSet: store.list('daemonsets', {namespace: 'kube-system'}).items.find((ds) => ds.metadata.name === 'fluentd'),
    nodes: store.list('nodes').items,
    pods: store.list('pods', {namespace: 'kube-system'}).items,
    revisions: store.list('controllerrevisions', {namespace: 'kube-system'}).items,
  } as unknown as ClusterState;
  store.close();
  const plan = core.planRollout(state, {now});
  const report = (await import('../src/services/status.js')).rolloutStatusOf(state, now, plan);
  const input = {
    plan,
    verdict: {verdict: report.verdict, detail: report.detail},
    revisions: toRevisionEntries(state.daemonSet, state.revisions),
    connection: 'live' as const,
    context: {name: 'fluentd', namespace: 'kube-system', kubeContext: 'ds-rollout-sim'},
    diff: diffRevisionTemplates,
  };
  const vm = toDashboardViewModel(input, {...initialDashboardState(), showDiff: true}, DASHBOARD_SIZE, now);
  return renderToString(createElement(DashboardScreen, {vm, theme: DEFAULT_THEME}), {columns: DASHBOARD_SIZE.columns});
}

/** `kubectl ds-plan` on the bundled example, in colour, as the built CLI prints it. */
async function planOutput(): Promise<string> {
  const args = ['fluentd', '-n', 'kube-system', '--snapshot', 'examples/rollout-in-progress.yaml', '--now', AT];
  const {stdout} = await promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'kubectl-ds_plan'), ...args], {
    cwd: ROOT,
    env: {PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FORCE_COLOR: '1'},
  });
  // The picture ends after the waves: the warnings and notes below them are long lines of prose.
  const lines = stdout.split('\n');
  const end = lines.findIndex((line) => /^(?:\u001B\[[0-9;]*m)*(?:Warnings|Notes):/.test(line));
  return `$ kubectl ds-plan ${args.join(' ')}\n\n${(end === -1 ? lines : lines.slice(0, end)).join('\n').trimEnd()}\n`;
}

/** Every picture, rendered now: path -> SVG text. */
export async function renderPictures(): Promise<Record<(typeof PICTURES)[number], string>> {
  const [dashboard, plan] = await Promise.all([dashboardFrame(), planOutput()]);
  return {
    'docs/images/dashboard.svg': ansiToSvg(dashboard, 'kubectl ds-rollout dashboard fluentd -n kube-system, mid-rollout on the demo cluster'),
    'docs/images/ds-plan.svg': ansiToSvg(plan, 'kubectl ds-plan on a rollout in progress'),
  };
}

// A terminal's 16 colours (30-37 and 90-97), on a dark background.
const PALETTE = ['#1e1e1e', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#e5e5e5'];
const BRIGHT = ['#767676', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#ffffff'];
const FOREGROUND = '#d4d4d4';
const BACKGROUND = '#1e1e1e';
const CHAR_WIDTH = 8.4;
const LINE_HEIGHT = 18;
const PAD = 12;

interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
}

interface Run {
  readonly text: string;
  readonly style: Style;
}

/** SGR parameters applied to a style (the codes chalk and our palette write). */
function applySgr(style: Style, codes: number[]): Style {
  let next: Style = {...style};
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) next = {};
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 22) next = {...next, bold: false, dim: false};
    else if (code === 7) next.inverse = true;
    else if (code === 27) next.inverse = false;
    else if (code >= 30 && code <= 37) next.fg = PALETTE[code - 30];
    else if (code >= 90 && code <= 97) next.fg = BRIGHT[code - 90];
    else if (code === 39) delete next.fg;
    else if (code >= 40 && code <= 47) next.bg = PALETTE[code - 40];
    else if (code >= 100 && code <= 107) next.bg = BRIGHT[code - 100];
    else if (code === 49) delete next.bg;
    else if ((code === 38 || code === 48) && codes[i + 1] === 5) i += 2;
    else if ((code === 38 || code === 48) && codes[i + 1] === 2) i += 4;
  }
  return next;
}

/** A line of ANSI text as runs of one style each. */
function runsOf(line: string): Run[] {
  const runs: Run[] = [];
  let style: Style = {};
  let at = 0;
  for (const match of line.matchAll(/\u001B\[([0-9;]*)m/g)) {
    if (match.index > at) runs.push({text: line.slice(at, match.index), style});
    style = applySgr(style, match[1] === '' ? [0] : match[1]!.split(';').map(Number));
    at = match.index + match[0].length;
  }
  if (at < line.length) runs.push({text: line.slice(at), style});
  return runs;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Terminal output (ANSI colours) as an SVG picture of a dark terminal. */
export function ansiToSvg(ansi: string, title: string): string {
  // Other escape sequences (cursor movement, erase) draw nothing in a still picture.
  const lines = ansi
    .replace(/\u001B\[[0-9;?]*[A-La-ln-z]/g, '')
    .replace(/\n$/, '')
    .split('\n');
  const columns = Math.max(...lines.map((line) => line.replace(/\u001B\[[0-9;]*m/g, '').length));
  const width = Math.ceil(columns * CHAR_WIDTH + 2 * PAD);
  const height = lines.length * LINE_HEIGHT + 2 * PAD;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" rx="6" fill="${BACKGROUND}"/>`,
    `<g font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="14" xml:space="preserve">`,
  ];
  lines.forEach((line, row) => {
    const y = PAD + row * LINE_HEIGHT;
    let column = 0;
    const spans: string[] = [];
    for (const run of runsOf(line)) {
      const fg = run.style.inverse ? (run.style.bg ?? BACKGROUND) : (run.style.fg ?? FOREGROUND);
      const bg = run.style.inverse ? (run.style.fg ?? FOREGROUND) : run.style.bg;
      const x = (PAD + column * CHAR_WIDTH).toFixed(1);
      if (bg) out.push(`<rect x="${x}" y="${y + 2}" width="${(run.text.length * CHAR_WIDTH).toFixed(1)}" height="${LINE_HEIGHT}" fill="${bg}"/>`);
      if (run.text.trim() !== '') {
        const weight = run.style.bold ? ' font-weight="bold"' : '';
        const opacity = run.style.dim ? ' fill-opacity="0.6"' : '';
        spans.push(`<tspan x="${x}" fill="${fg}"${weight}${opacity}>${escapeXml(run.text)}</tspan>`);
      }
      column += run.text.length;
    }
    if (spans.length > 0) out.push(`<text y="${y + 15}">${spans.join('')}</text>`);
  });
  out.push('</g>', '</svg>');
  return `${out.join('\n')}\n`;
}

// Run directly (`npm run docs`): write the pictures.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const pictures = await renderPictures();
  for (const [path, svg] of Object.entries(pictures)) {
    const changed = (() => {
      try {
        return readFileSync(join(ROOT, path), 'utf8') !== svg;
      } catch {
        return true;
      }
    })();
    if (changed) writeFileSync(join(ROOT, path), svg);
    process.stdout.write(`${path}: ${changed ? 'written' : 'unchanged'}\n`);
  }
  // Ink's renderer may leave handles open; the pictures are written.
  process.exit(0);
}
