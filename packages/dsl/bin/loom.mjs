#!/usr/bin/env node
// The `loom` command. Loom's packages are TypeScript run through tsx, without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = main(process.argv.slice(2));
