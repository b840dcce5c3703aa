/**
 * Bounds checking at run time: the flag buffer that code compiled with `checkBounds`
 * writes when a guard fails (codegen/access-guards.ts), allocated before the launch
 * and turned into a LoomError after it.
 *
 * On by default on the CPU device (where it costs little and a wrong index is most
 * likely found while developing) and everywhere when the environment variable
 * `LOOM_DEBUG` is set; `run(..., { checkBounds })` decides explicitly.
 */
import type { BoundsChecks } from '../codegen/access-guards.ts';
import { LoomError } from '../errors.ts';
import { optionKeys } from '../option-keys.ts';
import { printExpr } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';
import { debugMode } from './environment.ts';
import type { Device, DeviceBuffer } from './device.ts';

/** Options of `run` and `prepareLaunch`. */
export interface RunOptions {
  /**
   * Report data-dependent indices that fall outside their array as a LoomError
   * (the access itself is dropped, or reads 0, either way). Default: the device's
   * `checksBoundsByDefault` (the CPU device), or `LOOM_DEBUG` set in the environment.
   */
  readonly checkBounds?: boolean;
}

/** The options run and prepareLaunch read; any other key is an error. */
export const RUN_OPTIONS = optionKeys<RunOptions>()(['checkBounds']);
/** What a call without options runs with. */
export const NO_RUN_OPTIONS: RunOptions = Object.freeze({});

export function wantsBoundsChecks(device: Device, options: RunOptions): boolean {
  if (options.checkBounds !== undefined) return options.checkBounds;
  return (device.checksBoundsByDefault ?? false) || debugMode();
}

/** A zeroed flag buffer: two int32 slots per site, [failed, index]. */
export async function allocateFlags(device: Device, checks: BoundsChecks): Promise<DeviceBuffer> {
  const zeros = new Int32Array(2 * checks.sites.length);
  const buffer = device.allocate(zeros.byteLength);
  try {
    await device.write(buffer, zeros);
  } catch (e) {
    device.release(buffer);
    throw e;
  }
  return buffer;
}

/** Reads the flags back after the launches; throws for the violations they record. */
export async function throwViolations(
  device: Device,
  buffer: DeviceBuffer,
  checks: BoundsChecks,
  values: ReadonlyMap<string, number | bigint>,
): Promise<void> {
  const flags = new Int32Array(2 * checks.sites.length);
  await device.read(buffer, flags);
  const found = checks.sites.flatMap((site, k) => (flags[2 * k] !== 0 ? [{ site, value: flags[2 * k + 1] }] : []));
  if (found.length === 0) return;
  const lines = found.map(({ site, value }) => {
    const what = site.isWrite ? `writes '${site.array}'` : `reads '${site.array}'`;
    const where = site.rank > 1 ? ` on axis ${site.axis}` : '';
    const extent =
      site.extent.kind === 'int'
        ? `${site.extent.value}`
        : `${printExpr(site.extent)} = ${extentValue(site.extent, values)}`;
    return `instruction '${site.instruction}' ${what} at index ${site.index} = ${value}${where}, outside its extent ${extent}`;
  });
  const effect = 'out-of-bounds writes were dropped and reads gave 0';
  throw new LoomError(`index out of bounds (${effect}):\n  ${lines.join('\n  ')}`);
}

function extentValue(extent: Expr, values: ReadonlyMap<string, number | bigint>): number | string {
  try {
    return evaluateInt(extent, valuesEnv(values, 'an extent'), 'an extent');
  } catch {
    return '?';
  }
}
