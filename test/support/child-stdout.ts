/**
 * What device code prints (`printf` in OpenCL C, CUDA and C) goes to the process's standard
 * output, through the C library's buffers, where a test cannot read it from inside its own
 * process. So a test that checks printed lines runs the code that prints in a child process and
 * reads its output: `stdoutOf(module, name)` runs `await name()` of `module` (a path from the
 * repository root) under the test's environment and returns what it printed.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The standard output of `await name()` of the module at `modulePath`, run in a process of its own; throws when it fails. */
export function stdoutOf(modulePath: string, name: string): string {
  const url = pathToFileURL(path.join(ROOT, modulePath)).href;
  // an explicit exit once the output is written: a process that ran OpenMP programs of the C
  // device may crash (SIGSEGV) in the runtime's teardown when it ends by itself under load
  const code = `import { ${name} } from ${JSON.stringify(url)}; await ${name}(); process.exit(0);`;
  const child = spawnSync(
    process.execPath,
    ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', code],
    { cwd: ROOT, encoding: 'utf8', env: process.env, maxBuffer: 1 << 24 },
  );
  if (child.status !== 0)
    throw new Error(`${modulePath}: ${name}() failed (${child.status ?? child.signal}):\n${child.stderr}`);
  return child.stdout;
}
