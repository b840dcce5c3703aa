/**
 * The type tests in test/types must fail where they say they fail. `tsc` already rejects
 * a `// @ts-expect-error` with no error under it; this checks the converse on a copy with
 * the directives taken out: every line under one has an error, and no other line does.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const typesDir = path.join(root, 'test', 'types');
// inside the repository, so that '@loom/dsl' resolves as it does for the originals
const copyDir = path.join(root, 'node_modules', '.cache', 'loom-type-tests');
const DIRECTIVE = '// @ts-expect-error';

test('each @ts-expect-error in test/types marks a line that does not compile', () => {
  rmSync(copyDir, { recursive: true, force: true });
  mkdirSync(copyDir, { recursive: true });
  const expected = new Map<string, number[]>();
  for (const name of readdirSync(typesDir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))) {
    const lines = readFileSync(path.join(typesDir, name), 'utf8').split('\n');
    expected.set(
      name,
      lines.flatMap((l, k) => (l.trim().startsWith(DIRECTIVE) ? [k + 2] : [])),
    );
    // same line numbers: the directive becomes a plain comment
    writeFileSync(path.join(copyDir, name), lines.map((l) => l.replace(DIRECTIVE, '// (expected error)')).join('\n'));
  }
  assert.ok([...expected.values()].flat().length >= 30, 'the type tests have their negative cases');
  writeFileSync(
    path.join(copyDir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(root, 'tsconfig.json'),
      include: ['./*.ts', path.join(typesDir, '*.d.ts'), path.join(root, 'examples', '*.d.ts')],
    }),
  );

  const tsc = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', copyDir, '--pretty', 'false'],
    { encoding: 'utf8' },
  );
  const errors = new Map<string, Set<number>>();
  for (const m of tsc.stdout.matchAll(/^(.+?)\((\d+),\d+\): error TS\d+/gm)) {
    const name = path.basename(m[1]);
    if (!errors.has(name)) errors.set(name, new Set());
    errors.get(name)!.add(Number(m[2]));
  }
  for (const [name, lines] of expected) {
    const found = errors.get(name) ?? new Set<number>();
    const missing = lines.filter((l) => !found.has(l));
    const unexpected = [...found].filter((l) => !lines.includes(l));
    assert.equal(missing, [], `${name}: lines that compile although marked @ts-expect-error: ${missing.join(', ')}`);
    assert.equal(unexpected, [], `${name}: errors on lines not marked: ${unexpected.join(', ')}\n${tsc.stdout}`);
  }
  rmSync(copyDir, { recursive: true, force: true });
});

test.run();
