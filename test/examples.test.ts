/**
 * The examples run to the end and every check in them passes, on every device present. They run
 * one after another in one process (support/run-modules.ts: tsx and the packages load once), each
 * as if run directly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { type ModulesRun, runModules } from './support/run-modules.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const EXAMPLES = [
  'tutorial.ts',
  'transformations.ts',
  'tutorial-dsl.ts',
  'matmul.ts',
  'pointwise.ts',
  'statistics.ts',
  'computations.ts',
];
const fileOf = (example: string) => path.join(root, 'examples', example);

let ran: ModulesRun | undefined;
const runs = (): ModulesRun => {
  ran ??= runModules(EXAMPLES.map(fileOf));
  return ran;
};

for (const example of EXAMPLES) {
  test(`examples/${example} runs and its checks pass`, () => {
    const { runs: byFile, status, stderr } = runs();
    const result = byFile.get(fileOf(example));
    assert.ok(result, `the examples' process (status ${status}) ended before ${example}:\n${stderr.slice(-2000)}`);
    assert.is(result.error, null, `${example} threw:\n${result.error}\n${result.stderr.slice(-2000)}`);
    assert.is(
      result.exitCode,
      0,
      `${example} set process.exitCode to ${result.exitCode}:\n${result.stderr.slice(-2000)}`,
    );
    assert.not.match(result.stdout, /WRONG|wrong result/);
    assert.match(result.stdout, /: ok/);
  });
}

test('the process that ran the examples ended on its own, with status 0', () => {
  const { status, stderr } = runs();
  assert.is(status, 0, `status ${status}:\n${stderr.slice(-2000)}`);
});

test.run();
