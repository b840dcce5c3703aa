/**
 * A reference FFT in float64 for the FFT tests: numpy.fft.fftn / ifftn over axes of an
 * n-dimensional complex array held as interleaved parts. Recursive decimation in time by the
 * smallest prime factor, a prime length by the direct sum: plain and slow, but exact to
 * float64 rounding, and written apart from the library's kernels.
 */

/** The DFT of one sequence (interleaved parts), forward or inverse (unscaled). */
function dft1(re: number[], im: number[], sign: -1 | 1): [number[], number[]] {
  const n = re.length;
  if (n === 1) return [re.slice(), im.slice()];
  let p = 2;
  while (p * p <= n && n % p !== 0) p++;
  if (n % p !== 0) p = n;
  const m = n / p;
  const subs = Array.from({ length: p }, (_, c) => {
    const sr: number[] = [];
    const si: number[] = [];
    for (let j = 0; j < m; j++) {
      sr.push(re[j * p + c]);
      si.push(im[j * p + c]);
    }
    return m > 1 ? dft1(sr, si, sign) : ([sr, si] as [number[], number[]]);
  });
  const or: number[] = new Array(n);
  const oi: number[] = new Array(n);
  for (let k = 0; k < n; k++) {
    let a = 0;
    let b = 0;
    for (let c = 0; c < p; c++) {
      const angle = (sign * 2 * Math.PI * ((c * k) % n)) / n;
      const [wr, wi] = [Math.cos(angle), Math.sin(angle)];
      const [xr, xi] = [subs[c][0][k % m], subs[c][1][k % m]];
      a += xr * wr - xi * wi;
      b += xr * wi + xi * wr;
    }
    or[k] = a;
    oi[k] = b;
  }
  return [or, oi];
}

/** numpy.fft.fftn (or ifftn, divided by the points) of interleaved parts over `axes`. */
export function referenceFft(
  data: ArrayLike<number>,
  shape: readonly number[],
  axes: readonly number[] = shape.map((_, k) => k),
  inverse = false,
): Float64Array {
  const out = Float64Array.from(data);
  const strides = shape.map((_, k) => shape.slice(k + 1).reduce((a, b) => a * b, 1));
  const size = shape.reduce((a, b) => a * b, 1);
  for (const axis of axes) {
    const n = shape[axis];
    const stride = strides[axis];
    for (let start = 0; start < size; start++) {
      // each line along the axis once: from its element with index 0 along it
      if (Math.floor(start / stride) % n !== 0) continue;
      const re: number[] = [];
      const im: number[] = [];
      for (let k = 0; k < n; k++) {
        re.push(out[2 * (start + k * stride)]);
        im.push(out[2 * (start + k * stride) + 1]);
      }
      const [fr, fi] = dft1(re, im, inverse ? 1 : -1);
      for (let k = 0; k < n; k++) {
        out[2 * (start + k * stride)] = inverse ? fr[k] / n : fr[k];
        out[2 * (start + k * stride) + 1] = inverse ? fi[k] / n : fi[k];
      }
    }
  }
  return out;
}

/** Reikna's get_test_array for a complex dtype: real and imaginary parts uniform in [0, 1), deterministic. */
export function testComplex(size: number, seed = 1): Float32Array {
  const out = new Float32Array(2 * size);
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let k = 0; k < out.length; k++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[k] = (s >>> 0) / 2 ** 32;
  }
  return out;
}

/**
 * Reikna's diff_is_negligible for complex arrays (numpy.isclose on each element: |a - b| <=
 * atol + rtol |b|, moduli of complex differences); throws naming the first element that is not.
 */
export function assertComplexClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  what: string,
  atol: number,
  rtol: number,
): void {
  if (actual.length !== expected.length)
    throw new Error(`${what}: ${actual.length} numbers, expected ${expected.length}`);
  for (let k = 0; k < expected.length; k += 2) {
    const diff = Math.hypot(actual[k] - expected[k], actual[k + 1] - expected[k + 1]);
    const ref = Math.hypot(expected[k], expected[k + 1]);
    if (!(diff <= atol + rtol * ref))
      throw new Error(
        `${what}: element ${k / 2} is ${actual[k]}${actual[k + 1] < 0 ? '' : '+'}${actual[k + 1]}j, expected ${expected[k]}${expected[k + 1] < 0 ? '' : '+'}${expected[k + 1]}j`,
      );
  }
}
