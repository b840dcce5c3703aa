/**
 * The `loom` command run in-process for tests: its exit code and what it printed on stdout and
 * stderr (console and direct writes, as a progress bar makes), and Loom's warnings, collected
 * apart (not printed).
 */
import { setWarningHandler } from '@loom/core';
import { main } from '../../packages/dsl/src/cli.ts';

export async function loom(
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string; warnings: string[] }> {
  const printed = { stdout: '', stderr: '' };
  const warnings: string[] = [];
  const { log, error } = console;
  const write = process.stderr.write;
  console.log = (...parts: unknown[]) => void (printed.stdout += `${parts.join(' ')}\n`);
  console.error = (...parts: unknown[]) => void (printed.stderr += `${parts.join(' ')}\n`);
  process.stderr.write = ((chunk: string) => {
    printed.stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  const previous = setWarningHandler((w) => void warnings.push(w.message));
  try {
    return { code: await main(argv), ...printed, warnings };
  } finally {
    Object.assign(console, { log, error });
    process.stderr.write = write;
    setWarningHandler(previous);
  }
}
