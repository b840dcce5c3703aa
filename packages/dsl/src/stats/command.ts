/**
 * `loom stats <file> [--params n=1024,m=512] [--subgroup-size 32] [--device cpu|c|opencl|cuda|webgpu]
 *  [--profile profile.json|device name] [--plot roofline.svg]`: for every kernel the file
 * exports, its operation, memory access and synchronization maps, and with a device (measured
 * on it, kept on disk, or committed with Loom) or a profile (a file, or a committed profile
 * by device name), the roofline's estimate of its time at the parameters; on a
 * device each kernel is also run and timed. `--plot` draws the roofline; `--measured run.jsonl`
 * adds the kernels a `bench/roofline.ts --json` run predicted and measured on that device.
 * On a device, what is measured is said on stderr as it starts, and a kernel whose arrays would
 * take more than `--max-memory` (1 GiB by default) at the parameters is refused before anything
 * runs (memory.ts).
 */
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  estimateTime,
  getStatistics,
  LoomError,
  measureKernelSeconds,
  type Device,
  type DeviceProfile,
  type LoopKernel,
  type TimeEstimate,
} from '@loom/core';
import type { ParsedArguments } from '../cli/args.ts';
import { kernelsOf, type NamedKernel } from './kernels-of.ts';
import { measuredKernelsOf } from './measured-run.ts';
import { cachedProfile, DEVICE_KINDS, deviceOfKind, deviceProfile, type DeviceKind } from './profiles.ts';
import { arraysOf, DEFAULT_MAX_MEMORY, describeArray, formatBytes, parseSize, totalBytes } from './memory.ts';
import { format, rooflineSvg, type PlottedKernel } from './roofline-svg.ts';
import { STATS_COMMAND, type STATS_OPTIONS } from './usage.ts';

interface StatsArguments {
  readonly file: string | undefined;
  readonly params: Readonly<Record<string, number>>;
  readonly subgroupSize: number;
  readonly device?: DeviceKind;
  readonly profile?: string;
  readonly plot?: string;
  readonly measured?: string;
  readonly maxMemory: number;
  readonly verbose: boolean;
}

/** The command's exit code: 0 done, 1 a kernel could not be counted, 2 a usage mistake. */
export async function statsCommand(args: ParsedArguments<typeof STATS_OPTIONS>): Promise<number> {
  const parsed = statsArguments(args);
  if (typeof parsed === 'string') {
    console.error(`loom stats: ${parsed}\n\n${STATS_COMMAND.usage}`);
    return 2;
  }
  let kernels: NamedKernel[];
  let device: Device | undefined;
  let profile: DeviceProfile | undefined;
  let fromRun: PlottedKernel[] = [];
  try {
    kernels = parsed.file === undefined ? [] : await kernelsOf(parsed.file);
    if (parsed.profile) profile = deviceProfile(parsed.profile);
    if (parsed.device) {
      // said before the device is even opened: nothing is allocated for sizes that do not fit
      const tooLarge = kernelsOverMemory(kernels, parsed);
      if (tooLarge) {
        console.error(`loom stats: ${tooLarge}`);
        return 2;
      }
      device = await deviceOfKind(parsed.device);
      const cached = await cachedProfile(device, (file) =>
        progress(
          `measuring the profile of ${device!.name} (bandwidth, flop rate, launch overhead; once, kept in ${file})`,
        ),
      );
      profile ??= cached.profile;
      const source = {
        measured: 'measured',
        cache: 'profile from the cache',
        committed: 'profile committed with Loom',
      }[cached.source];
      console.log(
        `${device.name}: ${source}: ${format(cached.profile.bandwidth)} B/s, ${format(cached.profile.flopRate)} flop/s, launch ${format(cached.profile.launchOverhead)} s`,
      );
    }
    if (parsed.measured && profile) fromRun = measuredKernelsOf(parsed.measured, profile.device);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    device?.dispose();
    console.error(`loom stats: ${e.message}`);
    return 2;
  }
  for (const k of fromRun) {
    const ratio = k.measured ? ` (predicted/measured ${format(k.estimate.seconds / k.measured)})` : '';
    console.log(
      `${k.name}, from ${parsed.measured}: predicted ${format(k.estimate.seconds)} s, measured ${format(k.measured ?? Number.NaN)} s${ratio}, ${k.estimate.bound} bound`,
    );
  }
  if (parsed.file !== undefined && kernels.length === 0) {
    console.error(
      `loom stats: ${parsed.file} exports no kernel (LoopKernels, builders, or functions named ...Kernel taking no argument)`,
    );
    return 1;
  }
  const plotted: PlottedKernel[] = [...fromRun];
  let failed = false;
  for (const { name, kernel } of kernels) {
    console.log(`\n== ${name}: kernel '${kernel.name}'`);
    try {
      const stats = getStatistics(kernel, { subgroupSize: parsed.subgroupSize });
      console.log(`\noperations (per sub-group of ${parsed.subgroupSize}):\n${stats.ops.toString() || '(none)'}`);
      console.log(`\nmemory accesses:\n${stats.memAccesses.toString() || '(none)'}`);
      console.log(`\nsynchronization:\n${stats.sync.toString()}`);
      if (parsed.verbose) console.log(`\n${arraysAt(kernel, parsed.params)}`);
      if (profile) {
        const estimate = estimateTime(kernel, profile, parsed.params);
        if (device)
          progress(`measuring ${name} at ${at(parsed.params)} on ${device.name}${sizeOf(kernel, parsed.params)}`);
        const measured = device ? await measuredOrWhyNot(kernel, device, parsed.params) : undefined;
        console.log(`\n${describe(estimate, profile, parsed.params, measured)}`);
        plotted.push({ name, estimate, measured: typeof measured === 'number' ? measured : undefined });
      }
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      console.log(`\n${name}: ${e.message}`);
      failed = true;
    }
  }
  device?.dispose();
  if (parsed.plot && profile) {
    try {
      writeFileSync(parsed.plot, rooflineSvg(profile, plotted));
    } catch (e) {
      console.error(`loom stats: cannot write the plot ${parsed.plot}: ${(e as Error).message}`);
      return 1;
    }
    console.log(`\nwrote ${parsed.plot}`);
  }
  return failed ? 1 : 0;
}

/** Seconds per launch on the device, or why the kernel could not run there (Loom refuses to generate it, say). */
async function measuredOrWhyNot(
  kernel: LoopKernel,
  device: Device,
  params: Readonly<Record<string, number>>,
): Promise<number | string> {
  try {
    return await measureKernelSeconds(kernel, device, params);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return e.message.split('\n')[0]!;
  }
}

/** What is being done, on stderr: measurements take seconds, and a line says which one is under way. */
function progress(line: string): void {
  process.stderr.write(`loom stats: ${line}\n`);
}

/** `n=1024, m=512`. */
function at(params: Readonly<Record<string, number>>): string {
  return (
    Object.entries(params)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ') || 'no parameters'
  );
}

/** `, arrays of 12.0 MiB`, or nothing where the sizes are not known (measuring says why). */
function sizeOf(kernel: LoopKernel, params: Readonly<Record<string, number>>): string {
  const arrays = arraysOf(kernel, params);
  return typeof arrays === 'string' ? '' : `, arrays of ${formatBytes(totalBytes(arrays))}`;
}

/** --verbose: the arrays a run at the parameters allocates, one a line. */
function arraysAt(kernel: LoopKernel, params: Readonly<Record<string, number>>): string {
  const arrays = arraysOf(kernel, params);
  if (typeof arrays === 'string') return `arrays at ${at(params)}: not known (${arrays})`;
  return `arrays at ${at(params)}, ${formatBytes(totalBytes(arrays))} in all:\n${arrays.map((a) => `  ${describeArray(a)}`).join('\n')}`;
}

/** Why the kernels cannot be run at the parameters (their arrays over --max-memory), or undefined. */
function kernelsOverMemory(kernels: readonly NamedKernel[], parsed: StatsArguments): string | undefined {
  const over = kernels.flatMap(({ name, kernel }) => {
    const arrays = arraysOf(kernel, parsed.params);
    if (typeof arrays === 'string' || totalBytes(arrays) <= parsed.maxMemory) return [];
    const largest = [...arrays].sort((a, b) => b.bytes - a.bytes).slice(0, 3);
    return [{ name, bytes: totalBytes(arrays), largest }];
  });
  if (!over.length) return undefined;
  const needed = Math.max(...over.map((o) => o.bytes));
  const each = over.map(
    (o) => `${o.name} needs ${formatBytes(o.bytes)} of device memory (${o.largest.map(describeArray).join('; ')})`,
  );
  return `at ${at(parsed.params)}, ${each.join(', ')}: more than --max-memory ${formatBytes(parsed.maxMemory)}, so nothing runs; give smaller --params, or raise the limit with --max-memory ${suggestedLimit(needed)}`;
}

/** The next whole GiB (or MiB) above the bytes needed, as --max-memory takes it. */
function suggestedLimit(bytes: number): string {
  return bytes >= 2 ** 30 ? `${Math.ceil(bytes / 2 ** 30)}GiB` : `${Math.ceil(bytes / 2 ** 20)}MiB`;
}

function describe(
  e: TimeEstimate,
  profile: DeviceProfile,
  params: Readonly<Record<string, number>>,
  measured: number | string | undefined,
): string {
  const ai = Number.isFinite(e.arithmeticIntensity)
    ? `${format(e.arithmeticIntensity)} flop/byte`
    : 'no memory traffic';
  const lines = [
    `estimate on ${profile.device} at ${at(params)}: ${format(e.seconds)} s, ${e.bound} bound`,
    `  ${format(e.flops)} flops, ${format(e.bytes)} bytes (${e.traffic === 'footprint' ? 'each element once' : 'each access'}), ${ai}, ${e.launches} launch${e.launches === 1 ? '' : 'es'}`,
  ];
  if (typeof measured === 'number')
    lines.push(`  measured: ${format(measured)} s (predicted/measured ${format(e.seconds / measured)})`);
  if (typeof measured === 'string') lines.push(`  not measured: ${measured}`);
  return lines.join('\n');
}

/** The arguments, checked, or what is wrong with them. */
function statsArguments({ values, positionals }: ParsedArguments<typeof STATS_OPTIONS>): StatsArguments | string {
  if (positionals.length > 1) return `one file at a time ('${positionals[0]}', then '${positionals[1]}')`;
  const file = positionals[0];
  const params: Record<string, number> = {};
  for (const pair of values.params?.split(',') ?? []) {
    const m = /^\s*([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*$/.exec(pair);
    if (!m) return `--params takes name=integer pairs separated by commas, not '${pair}'`;
    params[m[1]!] = Number(m[2]);
  }
  const subgroupSize = Number(values['subgroup-size'] ?? 32);
  if (!Number.isInteger(subgroupSize) || subgroupSize < 1) return '--subgroup-size needs a positive integer';
  const device = values.device;
  if (device !== undefined && !(DEVICE_KINDS as readonly string[]).includes(device))
    return `--device is one of ${DEVICE_KINDS.join(', ')}, not '${device}'`;
  const maxMemory = values['max-memory'] === undefined ? DEFAULT_MAX_MEMORY : parseSize(values['max-memory']);
  if (maxMemory === undefined)
    return `--max-memory takes a size (2GiB, 512MiB, 100MB, or bytes), not '${values['max-memory']}'`;
  if (values['max-memory'] !== undefined && device === undefined)
    return '--max-memory limits what runs on a device: give --device';
  const { profile, plot, measured } = values;
  if (file === undefined && measured === undefined) return 'which file? (loom stats <file.ts>)';
  if (plot !== undefined && device === undefined && profile === undefined)
    return '--plot needs a roofline: give --device or --profile';
  // said before anything is counted or measured, rather than after
  if (plot !== undefined && !statSync(path.dirname(path.resolve(plot)), { throwIfNoEntry: false })?.isDirectory()) {
    return `--plot ${plot}: the folder ${path.dirname(plot)} does not exist`;
  }
  if (measured !== undefined && device === undefined && profile === undefined)
    return "--measured needs the profile of the run's device: give --profile or --device";
  return {
    file,
    params,
    subgroupSize,
    device: device as DeviceKind | undefined,
    profile,
    plot,
    measured,
    maxMemory,
    verbose: values.verbose === true,
  };
}
