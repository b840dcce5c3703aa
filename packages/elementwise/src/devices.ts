/**
 * Which device a tensor lives on when none is named, and which dtypes a device can
 * hold. The targets say what their languages lack (WGSL has no 64-bit types); an
 * OpenCL device may also lack what its language has (cl_khr_fp64), which only the device
 * knows. (float16 every device holds: one without cl_khr_fp16 stores it as half and computes in float.)
 */
import { LoomError, type Device } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { componentDType, type TensorDType } from './dtypes.ts';

let cpu: Device | undefined;

/** The CPU device (generated JavaScript), one for the whole process. */
export function defaultDevice(): Device {
  return (cpu ??= cpuDevice());
}

/** What an OpenCL device reports about itself; other devices have no `context`. */
interface OpenCLInfo {
  readonly context?: { readonly info?: { readonly supportsFloat64?: boolean } };
}

/** Why `device` cannot hold or compute in `dtype`, or undefined when it can. */
export function unsupportedDType(device: Device, dtype: TensorDType): string | undefined {
  const component = componentDType(dtype);
  const why = device.target.unsupportedDType?.(component);
  if (why) return why;
  const info = (device as OpenCLInfo).context?.info;
  if (component === 'float64' && info?.supportsFloat64 === false) return 'this OpenCL device lacks cl_khr_fp64';
  return undefined;
}

/** Whether `device` can hold and compute in `dtype` (complex dtypes: their parts'). */
export function supportsDType(device: Device, dtype: TensorDType): boolean {
  return unsupportedDType(device, dtype) === undefined;
}

export function checkDTypeSupported(device: Device, dtype: TensorDType, what: string): void {
  const why = unsupportedDType(device, dtype);
  if (why) throw new LoomError(`${what}: ${dtype} is not available on ${device.name}: ${why}`);
}
