// The krew manifests' download URI: one base, package.json's config.releaseBaseUrl or DS_ROLLOUT_RELEASE_URL.
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {expect, test} from 'vitest';
import {archiveUri, releaseBaseUrl} from '../../build/release-url.mjs';
import {ROOT} from '../helpers/run-cli.js';

const PJSON = {version: '1.2.3', config: {releaseBaseUrl: 'https://example.com/releases/v{version}/'}};

test("package.json's base, {version} filled in, the archive's name added", () => {
  expect(releaseBaseUrl(PJSON, {})).toBe('https://example.com/releases/v1.2.3');
  expect(archiveUri(PJSON, 'ds-rollout_1.2.3_linux_amd64.tar.gz', {})).toBe('https://example.com/releases/v1.2.3/ds-rollout_1.2.3_linux_amd64.tar.gz');
});

test('DS_ROLLOUT_RELEASE_URL wins; empty counts as unset', () => {
  expect(releaseBaseUrl(PJSON, {DS_ROLLOUT_RELEASE_URL: 'https://mirror.example/ds/{version}'})).toBe('https://mirror.example/ds/1.2.3');
  expect(releaseBaseUrl(PJSON, {DS_ROLLOUT_RELEASE_URL: ''})).toBe('https://example.com/releases/v1.2.3');
});

test('no base, or one that is not https, is refused before anything is built', () => {
  expect(() => releaseBaseUrl({version: '1.2.3'}, {})).toThrow('no release URL: set config.releaseBaseUrl in package.json or DS_ROLLOUT_RELEASE_URL');
  expect(() => releaseBaseUrl(PJSON, {DS_ROLLOUT_RELEASE_URL: 'http://example.com/x'})).toThrow(
    'the release URL "http://example.com/x" is not an https:// URL',
  );
});

test("this package's base is an https URL naming the version", () => {
  const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string; config: {releaseBaseUrl: string}};
  expect(pjson.config.releaseBaseUrl).toContain('{version}');
  expect(releaseBaseUrl(pjson, {})).toMatch(new RegExp(`^https://\\S+${pjson.version.replaceAll('.', '\\.')}`));
});
