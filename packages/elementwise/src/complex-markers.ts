/**
 * Names a payload may call for complex values: `real(z)`, `imag(z)`, `conj(z)`,
 * `complex(re, im)`. The payload translator recognizes them by name and expands them
 * in the kernel; these definitions exist so that a TypeScript payload type-checks.
 * Called in plain JS they treat numbers as complex numbers with no imaginary part.
 */
export const real = (z: number): number => z;
export const imag = (_z: number): number => 0;
export const conj = (z: number): number => z;
export const complex = (re: number, _im: number): number => re;
