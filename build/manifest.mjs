// Writes oclif.manifest.json (same output as `oclif manifest`) without the heavy oclif dev CLI.
import {Plugin} from '@oclif/core';
import {writeFileSync} from 'node:fs';

const plugin = new Plugin({root: process.cwd(), type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true});
await plugin.load();
writeFileSync('oclif.manifest.json', JSON.stringify(plugin.manifest, null, 2) + '\n');
