/** The examples run to the end and every check in them passes, on every device present. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

for (const example of [
  'tutorial.ts',
  'transformations.ts',
  'tutorial-dsl.ts',
  'matmul.ts',
  'pointwise.ts',
  'statistics.ts',
  'computations.ts',
]) {
  test(`examples/${example} runs and its checks pass`, () => {
    const result = spawnSync(
      process.execPath,
      ['--conditions=loom-source', '--import', 'tsx', path.join(root, 'examples', example)],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.is(result.status, 0, `${example} exited with ${result.status}:\n${result.stderr.slice(-2000)}`);
    assert.not.match(result.stdout, /WRONG|wrong result/);
    assert.match(result.stdout, /: ok/);
  });
}

test.run();
