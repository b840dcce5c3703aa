/**
 * A small PNG decoder (8-bit RGB or RGBA, not interlaced: what Chromium's screenshots are)
 * through node:zlib, for tests that check a screenshot shows something: `pixelVariance`.
 */
import { inflateSync } from 'node:zlib';

export interface Image {
  readonly width: number;
  readonly height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  readonly channels: number;
  /** Rows of pixels, unfiltered. */
  readonly pixels: Uint8Array;
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

export function decodePng(png: Uint8Array): Image {
  if (!SIGNATURE.every((b, k) => png[k] === b)) throw new Error('not a PNG');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Uint8Array[] = [];
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      const [depth, color, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0)
        throw new Error(`unsupported PNG: depth ${depth}, color type ${color}, interlace ${interlace}`);
      channels = color === 2 ? 3 : 4;
    } else if (type === 'IDAT') data.push(body);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      pixels[y * stride + x] = (line[x] + predict(filter, a, b, c)) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

function predict(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default:
      throw new Error(`unknown PNG filter ${filter}`);
  }
}

/** The variance of the pixels' grey levels (0 for a blank image). */
export function pixelVariance(image: Image): number {
  let sum = 0;
  let squares = 0;
  const n = image.width * image.height;
  for (let k = 0; k < n; k++) {
    const at = k * image.channels;
    const grey = (image.pixels[at] + image.pixels[at + 1] + image.pixels[at + 2]) / 3;
    sum += grey;
    squares += grey * grey;
  }
  return squares / n - (sum / n) ** 2;
}
