#!/usr/bin/env -S node --import tsx --no-warnings
// Development entry: runs src/ through tsx. Needs no oclif.manifest.json (npm run dev removes it).
import {execute} from '@oclif/core';

await execute({development: true, dir: import.meta.url});
