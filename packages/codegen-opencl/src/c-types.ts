/** OpenCL C spellings of dtypes and literals. */
import { InternalError, type DType } from '@loom/core';

export function clType(t: DType): string {
  switch (t) {
    case 'bool':
      return 'uchar'; // bool is not allowed in kernel arguments or buffers
    case 'int8':
      return 'char';
    case 'uint8':
      return 'uchar';
    case 'int16':
      return 'short';
    case 'uint16':
      return 'ushort';
    case 'int32':
      return 'int';
    case 'uint32':
      return 'uint';
    case 'int64':
      return 'long';
    case 'uint64':
      return 'ulong';
    case 'float16':
      return 'half';
    case 'float32':
      return 'float';
    case 'float64':
      return 'double';
    case 'complex64':
    case 'complex128':
      throw new InternalError(`a ${t} value reached the OpenCL printer: complex values are lowered to their parts before code generation`);
  }
}

/** A literal of dtype `t`: `2.0f`, `2.0`, `2`, `2u`, `2l`. */
export function clLiteral(value: number, t: DType): string {
  if (t === 'float32' || t === 'float64' || t === 'float16') {
    if (Number.isNaN(value)) return t === 'float64' ? '(double) NAN' : 'NAN';
    if (!Number.isFinite(value)) {
      const inf = t === 'float64' ? '(double) INFINITY' : 'INFINITY';
      return value < 0 ? `-${inf}` : inf;
    }
    let text = String(value);
    if (!/[.e]/.test(text)) text += '.0';
    if (t === 'float32') return `${text}f`;
    if (t === 'float16') return `(half) ${text}f`;
    return text;
  }
  if (t === 'bool') return value ? '1' : '0';
  const text = String(Math.trunc(value));
  switch (t) {
    case 'uint32':
      return `${text}u`;
    case 'int64':
      return value === -(2 ** 63) ? '(-9223372036854775807l - 1l)' : `${text}l`;
    case 'uint64':
      return `${text}ul`;
    case 'int32':
      return value === -2147483648 ? '(-2147483647 - 1)' : text;
    default:
      return text;
  }
}
