#!/usr/bin/env node
// The `loom` command. Installed from the registry it runs the compiled CLI in dist/. In Loom's own
// repository, where src/ sits beside this directory, it runs the TypeScript sources through tsx
// instead, so that nothing has to be built first.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
const { main } = existsSync(source) ? await fromSource() : await import('../dist/cli.js');
process.exitCode = await main(process.argv.slice(2));

/** The CLI's module from src/: TypeScript through tsx, every @loom package resolved to its src/ too. */
async function fromSource() {
  const { register } = await import('node:module');
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  register('./source-condition.mjs', import.meta.url);
  return import(source.href);
}
