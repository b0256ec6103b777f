// The README's pictures are the real renders, not drawings: made again here (the dashboard's screen on the
// simulated demo cluster, the built ds-plan on the example snapshot, both at a fixed instant), they must equal the
// committed copies. When this fails, run `npm run docs` and commit docs/images.
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {expect, test} from 'vitest';
import {PICTURES, renderPictures, ROOT} from '../../scripts/screenshots.js';

test('the committed pictures are what the renderers draw today (npm run docs makes them)', {timeout: 120_000}, async () => {
  const pictures = await renderPictures();
  for (const path of PICTURES) {
    const committed = readFileSync(join(ROOT, path), 'utf8');
    expect(pictures[path] === committed, `${path} is stale: run npm run docs`).toBe(true);
  }
  // They show what they claim: the dashboard mid-rollout, and a plan with its waves.
  expect(pictures['docs/images/dashboard.svg']).toContain('rollout in progress');
  expect(pictures['docs/images/dashboard.svg']).toContain('worker-08');
  expect(pictures['docs/images/ds-plan.svg']).toContain('syncs until the rollout is complete');
  // In colour, as a terminal shows them.
  expect(pictures['docs/images/dashboard.svg']).toContain('fill="#23d18b"');
});

test('the README shows both pictures', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const path of PICTURES) expect(readme).toContain(`](${path})`);
});
