// QR codes of table links, drawn by the qrcode package at error-correction level Q (a quarter of
// the code can be lost to a scratch, a crease or a smudge on a printed card and it still reads).
// Loaded on the first code drawn: the package and its PNG encoder are 57 modules a start need not load.
type QRCodeModule = typeof import('qrcode');
let qrcode: Promise<QRCodeModule> | undefined;
const loadQRCode = (): Promise<QRCodeModule> => (qrcode ??= import('qrcode').then((m) => m.default));

const LEVEL = 'Q';

export async function qrSvg(text: string): Promise<string> {
  return (await loadQRCode()).toString(text, { type: 'svg', errorCorrectionLevel: LEVEL, margin: 2 });
}

export async function qrPng(text: string, size: number): Promise<Buffer> {
  return (await loadQRCode()).toBuffer(text, { type: 'png', errorCorrectionLevel: LEVEL, margin: 2, width: size });
}

/** The code's modules as one SVG path (for placing several codes on one sheet). */
function qrPath(QRCode: QRCodeModule, text: string): { size: number; path: string } {
  const code = QRCode.create(text, { errorCorrectionLevel: LEVEL });
  const n = code.modules.size;
  let path = '';
  for (let y = 0; y < n; y += 1) {
    for (let x = 0; x < n; x += 1) if (code.modules.get(y, x)) path += `M${x} ${y}h1v1h-1z`;
  }
  return { size: n, path };
}

/**
 * Text as XML character data: markup characters escaped, and the characters XML 1.0 forbids even as
 * references (control characters, U+FFFE, U+FFFF) dropped, so one odd name cannot void the sheet.
 */
const escapeXml = (s: string) =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface SheetEntry {
  url: string;
  name: string;
  zone: string | null;
}

/** A4 pages (mm): 3 columns by 4 rows of 60 mm codes, each with its table's name and zone. */
const PAGE = { width: 210, height: 297, columns: 3, rows: 4, code: 56 };
export const CODES_PER_PAGE = PAGE.columns * PAGE.rows;

/**
 * Printable A4 sheets of table codes, for cutting and laminating: `pages` holds the page numbers
 * (from 1) to draw, one under another. Text is the venue's own, escaped; the viewer's fonts draw it,
 * so every script prints.
 */
export async function qrSheet(title: string, entries: SheetEntry[], pages: number[]): Promise<string> {
  const QRCode = await loadQRCode();
  const cellW = PAGE.width / PAGE.columns;
  const cellH = (PAGE.height - 20) / PAGE.rows;
  const body = pages
    .map((page, p) => {
      const onPage = entries.slice((page - 1) * CODES_PER_PAGE, page * CODES_PER_PAGE);
      const cells = onPage
        .map((entry, i) => {
          const x = (i % PAGE.columns) * cellW;
          const y = 14 + Math.floor(i / PAGE.columns) * cellH;
          const { size, path } = qrPath(QRCode, entry.url);
          const scale = PAGE.code / size;
          return [
            `<g transform="translate(${x.toFixed(2)} ${y.toFixed(2)})">`,
            `<rect x="2" y="2" width="${(cellW - 4).toFixed(2)}" height="${(cellH - 4).toFixed(2)}" fill="none" stroke="#bbb" stroke-width="0.2" stroke-dasharray="1 1"/>`,
            `<g transform="translate(${((cellW - PAGE.code) / 2).toFixed(2)} 4) scale(${scale.toFixed(4)})"><path d="${path}" fill="#000"/></g>`,
            `<text x="${(cellW / 2).toFixed(2)}" y="${PAGE.code + 10}" text-anchor="middle" font-family="sans-serif" font-size="6" font-weight="bold">${escapeXml(entry.name)}</text>`,
            entry.zone
              ? `<text x="${(cellW / 2).toFixed(2)}" y="${PAGE.code + 16}" text-anchor="middle" font-family="sans-serif" font-size="4" fill="#555">${escapeXml(entry.zone)}</text>`
              : '',
            '</g>',
          ].join('');
        })
        .join('');
      return `<g transform="translate(0 ${p * PAGE.height})"><rect width="${PAGE.width}" height="${PAGE.height}" fill="#fff"/><text x="${PAGE.width / 2}" y="9" text-anchor="middle" font-family="sans-serif" font-size="5" fill="#333">${escapeXml(title)}</text>${cells}</g>`;
    })
    .join('');
  const height = PAGE.height * Math.max(1, pages.length);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE.width}mm" height="${height}mm" viewBox="0 0 ${PAGE.width} ${height}">${body}</svg>\n`;
}
