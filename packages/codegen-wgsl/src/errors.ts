/**
 * WebGPU reports problems asynchronously: validation errors through error scopes, shader
 * problems through compilation info, device loss through a promise. Here they become
 * LoomErrors that say what was being done and, for shaders, point at the WGSL line.
 */
/// <reference types="@webgpu/types" preserve="true" />
import { LoomError } from '@loom/core';

/** The LoomError for a shader module that did not compile, pointing at each offending line. */
export function compilationError(what: string, code: string, messages: readonly GPUCompilationMessage[]): LoomError {
  const errors = messages.filter((m) => m.type === 'error');
  const lines = code.split('\n');
  const described = errors.map((m) => {
    const text = lines[m.lineNum - 1];
    if (m.lineNum <= 0 || text === undefined) return m.message;
    const prefix = `  line ${m.lineNum}: `;
    const caret = `${' '.repeat(prefix.length + Math.max(0, m.linePos - 1))}${'^'.repeat(Math.max(1, Math.min(m.length, text.length - m.linePos + 1)))}`;
    return `${m.message}\n${prefix}${text}\n${caret}`;
  });
  return new LoomError(
    `WGSL of ${what} does not compile (a bug in Loom's WGSL target; please report it):\n${described.join('\n')}`,
  );
}

const FILTERS: readonly GPUErrorFilter[] = ['validation', 'out-of-memory', 'internal'];

/**
 * Runs `body` inside validation, out-of-memory and internal error scopes, and throws a
 * LoomError for the first error they caught. The scopes are popped even when `body` throws.
 */
export async function withErrorScopes<T>(device: GPUDevice, what: string, body: () => T | Promise<T>): Promise<T> {
  for (const f of FILTERS) device.pushErrorScope(f);
  let result: T | undefined;
  let thrown: unknown;
  try {
    result = await body();
  } catch (e) {
    thrown = e;
  }
  const errors = new Map<GPUErrorFilter, GPUError>();
  for (const f of [...FILTERS].reverse()) {
    // a lost device resolves its scopes with null; anything else that goes wrong here is reported as an error
    const error = await device.popErrorScope().catch((e: Error) => ({ message: e.message }) as GPUError);
    if (error) errors.set(f, error);
  }
  if (thrown !== undefined) throw thrown;
  for (const [filter, error] of errors)
    throw new LoomError(`WebGPU ${filter} error while ${what}: ${error.message.trim()}`);
  return result as T;
}
