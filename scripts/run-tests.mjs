// Runs every test file under test/ with uvu in one Node process, TypeScript through tsx, the
// packages from their sources (the "loom-source" condition of their exports: no build needed).
// Usage: node scripts/run-tests.mjs [pattern]   (pattern: a regex on file names)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const result = spawnSync(process.execPath, ['--conditions=loom-source', '--import', 'tsx', path.join(root, 'node_modules/uvu/bin.js'), 'test', pattern], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
