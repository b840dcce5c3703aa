/**
 * The generated code of every example and tutorial kernel (test/support/golden-kernels.ts),
 * for every target, is exactly what test/golden/ holds: a change to code generation shows
 * up here as a diff to review, and a refactoring that should change nothing is checked to
 * change nothing. A kernel a target refuses pins the error message instead.
 *
 *   LOOM_UPDATE_GOLDEN=1 node scripts/run-tests.mjs golden.test   rewrites the files (then read the git diff)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectWarnings, generateCode, LoomError, type Target } from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { cudaTarget } from '@loom/codegen-cuda';
import { cTarget } from '@loom/codegen-c';
import { wgslTarget } from '@loom/codegen-wgsl';
import { goldenKernels, type GoldenKernel } from './support/golden-kernels.ts';

const directory = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');
const update = !!process.env.LOOM_UPDATE_GOLDEN && process.env.LOOM_UPDATE_GOLDEN !== '0';

/** Each target with the file extension its code is kept under (the extension an editor highlights). */
const targets: readonly (readonly [string, Target])[] = [
  ['cl', openclTarget()],
  ['cu', cudaTarget()],
  ['c', cTarget()],
  ['wgsl', wgslTarget()],
  ['js', jsTarget()],
];

/** The code, or for a kernel the target refuses, a comment with the error (a refusal is behaviour too). */
function generated({ kernel, options }: GoldenKernel, target: Target): string {
  try {
    return generateCode(kernel, target, options).code;
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return `// refused: ${e.name}: ${e.message}\n`;
  }
}

const kernels = goldenKernels();
const expectedFiles = new Set<string>();

for (const golden of kernels) {
  const { id } = golden;
  for (const [extension, target] of [...targets, ...(golden.variants ?? [])]) {
    const file = `${id}.${extension}`;
    expectedFiles.add(file);
    test(`golden: ${file}`, () => {
      const code = collectWarnings(() => generated(golden, target)).result;
      const where = path.join(directory, file);
      if (update) {
        mkdirSync(path.dirname(where), { recursive: true });
        writeFileSync(where, code);
        return;
      }
      assert.ok(
        existsSync(where),
        `${file} is missing: run LOOM_UPDATE_GOLDEN=1 node scripts/run-tests.mjs golden.test`,
      );
      // assert.fixture prints a line diff
      assert.fixture(code, readFileSync(where, 'utf8'), `${file} differs from the generated code`);
    });
  }
}

test('golden: every kernel has its own id, and no file is left over from a kernel that is gone', () => {
  assert.is(new Set(kernels.map((k) => k.id)).size, kernels.length, 'duplicate ids');
  const found = readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(directory, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  const stale = found.filter((f) => !expectedFiles.has(f));
  if (update) for (const f of stale) rmSync(path.join(directory, f));
  else assert.equal(stale, [], 'golden files of no kernel');
});

test.run();
