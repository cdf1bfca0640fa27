// Draws images/icon.png (128x128): a floor plan in white on blueprint paper. Run after changing
// the drawing; the PNG is committed, so packaging does not need this script.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SAMPLES = 4; // per axis: 16 samples a pixel smooth the edges

const paper = [30, 91, 168];
const ink = [255, 255, 255];

/** Signed distance to a rounded square filling the icon (negative inside). */
function roundedSquare(x, y, radius) {
  const qx = Math.abs(x - SIZE / 2) - (SIZE / 2 - radius);
  const qy = Math.abs(y - SIZE / 2) - (SIZE / 2 - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

const near = (value, target, half) => Math.abs(value - target) <= half;
const within = (value, from, to) => value >= from && value <= to;

/** How much ink covers a point: walls, a door swing, and the grid of the paper. */
function inkAt(x, y) {
  const outerWall =
    (within(x, 26, 102) && (near(y, 30, 3) || (near(y, 98, 3) && !within(x, 38, 62)))) ||
    (within(y, 27, 101) && (near(x, 26, 3) || near(x, 102, 3)));
  const innerWall =
    (near(x, 70, 2) && within(y, 30, 72)) || (near(y, 64, 2) && within(x, 70, 102) && !within(x, 80, 94));
  const doorSwing = near(Math.hypot(x - 38, y - 98), 24, 1) && x >= 38 && y <= 98;
  const doorLeaf = near(x, 38, 1.5) && within(y, 74, 98);
  if (outerWall || innerWall || doorLeaf) return 1;
  if (doorSwing) return 0.8;
  return near(x % 16, 8, 0.5) || near(y % 16, 8, 0.5) ? 0.16 : 0;
}

const rows = [];
for (let py = 0; py < SIZE; py++) {
  const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0 (none), then RGBA
  for (let px = 0; px < SIZE; px++) {
    let alpha = 0;
    let cover = 0;
    for (let sy = 0; sy < SAMPLES; sy++) {
      for (let sx = 0; sx < SAMPLES; sx++) {
        const x = px + (sx + 0.5) / SAMPLES;
        const y = py + (sy + 0.5) / SAMPLES;
        if (roundedSquare(x, y, 22) > 0) continue;
        alpha += 1;
        cover += inkAt(x, y);
      }
    }
    const amount = alpha === 0 ? 0 : cover / alpha;
    const pixel = paper.map((channel, i) => Math.round(channel + (ink[i] - channel) * amount));
    row.set([...pixel, Math.round((255 * alpha) / SAMPLES ** 2)], 1 + px * 4);
  }
  rows.push(row);
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter method, no interlace
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../images/icon.png', import.meta.url), png);
