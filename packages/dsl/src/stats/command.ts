/**
 * `loom stats <file> [--params n=1024,m=512] [--subgroup-size 32] [--device cpu|opencl|webgpu]
 *  [--profile profile.json|device name] [--plot roofline.svg]`: for every kernel the file
 * exports, its operation, memory access and synchronization maps, and with a device (measured
 * on it, kept on disk, or committed with Loom) or a profile (a file, or a committed profile
 * by device name), the roofline's estimate of its time at the parameters; on a
 * device each kernel is also run and timed. `--plot` draws the roofline; `--measured run.jsonl`
 * adds the kernels a `bench/roofline.ts --json` run predicted and measured on that device.
 */
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { estimateTime, getStatistics, LoomError, measureKernelSeconds, type Device, type DeviceProfile, type LoopKernel, type TimeEstimate } from '@loom/core';
import { kernelsOf, type NamedKernel } from './kernels-of.ts';
import { measuredKernelsOf } from './measured-run.ts';
import { cachedProfile, DEVICE_KINDS, deviceOfKind, deviceProfile, type DeviceKind } from './profiles.ts';
import { format, rooflineSvg, type PlottedKernel } from './roofline-svg.ts';

const USAGE = `usage: loom stats <file.ts|.js> [--params n=1024,m=512] [--subgroup-size 32]
                  [--device cpu|opencl|webgpu | --profile <profile.json|device name>] [--plot <roofline.svg>]
                  [--measured <run.jsonl>]

  Prints, for every kernel the file exports (LoopKernels, builders, and functions named
  ...Kernel that take no argument), its operation, memory access and synchronization maps:
  exact counts, polynomials in the parameters. With --device (its profile measured once and
  kept in ~/.cache/loom/device-profiles.json, or $LOOM_CACHE_DIR, unless Loom comes with one
  for that device) or --profile (a JSON file, or the name of a device whose profile Loom
  comes with, or a part of it: --profile 'OpenCL: NVIDIA H100'), and --params,
  also the roofline's estimate of each kernel's time; with --device each kernel also runs
  there and its time is measured. --plot writes the roofline as SVG; --measured adds the kernels
  a \`bench/roofline.ts --json\` run measured on the profile's device (the file is optional then).`;

interface StatsArguments {
  readonly file: string | undefined;
  readonly params: Readonly<Record<string, number>>;
  readonly subgroupSize: number;
  readonly device?: DeviceKind;
  readonly profile?: string;
  readonly plot?: string;
  readonly measured?: string;
}

/** The command's exit code: 0 done, 1 a kernel could not be counted, 2 a usage mistake. */
export async function statsCommand(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const parsed = parseArguments(args);
  if (typeof parsed === 'string') {
    console.error(`loom stats: ${parsed}\n\n${USAGE}`);
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
      device = await deviceOfKind(parsed.device);
      const cached = await cachedProfile(device);
      profile ??= cached.profile;
      const source = { measured: 'measured', cache: 'profile from the cache', committed: 'profile committed with Loom' }[cached.source];
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
    console.log(`${k.name}, from ${parsed.measured}: predicted ${format(k.estimate.seconds)} s, measured ${format(k.measured ?? Number.NaN)} s${ratio}, ${k.estimate.bound} bound`);
  }
  if (parsed.file !== undefined && kernels.length === 0) {
    console.error(`loom stats: ${parsed.file} exports no kernel (LoopKernels, builders, or functions named ...Kernel taking no argument)`);
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
      if (profile) {
        const estimate = estimateTime(kernel, profile, parsed.params);
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
async function measuredOrWhyNot(kernel: LoopKernel, device: Device, params: Readonly<Record<string, number>>): Promise<number | string> {
  try {
    return await measureKernelSeconds(kernel, device, params);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return e.message.split('\n')[0]!;
  }
}

function describe(e: TimeEstimate, profile: DeviceProfile, params: Readonly<Record<string, number>>, measured: number | string | undefined): string {
  const at =
    Object.entries(params)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ') || 'no parameters';
  const ai = Number.isFinite(e.arithmeticIntensity) ? `${format(e.arithmeticIntensity)} flop/byte` : 'no memory traffic';
  const lines = [
    `estimate on ${profile.device} at ${at}: ${format(e.seconds)} s, ${e.bound} bound`,
    `  ${format(e.flops)} flops, ${format(e.bytes)} bytes (${e.traffic === 'footprint' ? 'each element once' : 'each access'}), ${ai}, ${e.launches} launch${e.launches === 1 ? '' : 'es'}`,
  ];
  if (typeof measured === 'number') lines.push(`  measured: ${format(measured)} s (predicted/measured ${format(e.seconds / measured)})`);
  if (typeof measured === 'string') lines.push(`  not measured: ${measured}`);
  return lines.join('\n');
}

function parseArguments(args: readonly string[]): StatsArguments | string {
  let file: string | undefined;
  const params: Record<string, number> = {};
  let subgroupSize = 32;
  let device: DeviceKind | undefined;
  let profile: string | undefined;
  let plot: string | undefined;
  let measured: string | undefined;
  for (let k = 0; k < args.length; k++) {
    const arg = args[k]!;
    const value = () => {
      const v = args[++k];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value`);
      return v;
    };
    try {
      if (arg === '--params') {
        for (const pair of value().split(',')) {
          const m = /^\s*([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*$/.exec(pair);
          if (!m) return `--params takes name=integer pairs separated by commas, not '${pair}'`;
          params[m[1]!] = Number(m[2]);
        }
      } else if (arg === '--subgroup-size') {
        subgroupSize = Number(value());
        if (!Number.isInteger(subgroupSize) || subgroupSize < 1) return `--subgroup-size needs a positive integer`;
      } else if (arg === '--device') {
        const v = value();
        if (!(DEVICE_KINDS as readonly string[]).includes(v)) return `--device is one of ${DEVICE_KINDS.join(', ')}, not '${v}'`;
        device = v as DeviceKind;
      } else if (arg === '--profile') profile = value();
      else if (arg === '--plot') plot = value();
      else if (arg === '--measured') measured = value();
      else if (arg.startsWith('-')) return `unknown option '${arg}'`;
      else if (file === undefined) file = arg;
      else return `one file at a time ('${file}', then '${arg}')`;
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (file === undefined && measured === undefined) return 'which file? (loom stats <file.ts>)';
  if (plot !== undefined && device === undefined && profile === undefined) return '--plot needs a roofline: give --device or --profile';
  // said before anything is counted or measured, rather than after
  if (plot !== undefined && !statSync(path.dirname(path.resolve(plot)), { throwIfNoEntry: false })?.isDirectory()) {
    return `--plot ${plot}: the folder ${path.dirname(plot)} does not exist`;
  }
  if (measured !== undefined && device === undefined && profile === undefined) return "--measured needs the profile of the run's device: give --profile or --device";
  return { file, params, subgroupSize, device, profile, plot, measured };
}
